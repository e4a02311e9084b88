/**
 * Processes hammering Redis buckets through the store (`_hammer_child.ts`),
 * for the multi-process tests on one server and on a cluster: started and
 * connected, released together, and their answers put in server-time order
 * for `assertGuarantee`.
 *
 * @module
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { requireDenoCommand } from "../_deno_command.ts";
import type { ClientKind, ClusterSeeds } from "./redis_clients.ts";
import type { Answer } from "./_window_scenarios.ts";

/** What one hammering process does. */
export interface HammerJob {
  kind: ClientKind;
  /** One server's URL, or… */
  url?: string;
  /** …a cluster's nodes. */
  cluster?: ClusterSeeds;
  /** Checked in turn. */
  buckets: { bucket: string; limit: number; windowMicros: number }[];
  durationMs: number;
  /** Checks in flight. */
  concurrency: number;
  /** Record a failed check (a node down) instead of failing the process. */
  failuresExpected?: boolean;
}

/** One answer of a child: bucket index, admitted (1), refused (0) or failed (-1), server µs. */
export type HammerAnswer = [bucket: number, admitted: 1 | 0 | -1, nowMicros: number];

/** `deno run` flags of a hammering child: loopback, the repository, the ignored variables. */
function childFlags(): string[] {
  const task: string = JSON.parse(
    Deno.readTextFileSync(new URL("../../deno.json", import.meta.url)),
  ).tasks["test:deno"];
  const ignoreEnv = task.split(/\s+/).find((word) => word.startsWith("--ignore-env="));
  assert.ok(ignoreEnv, "test:deno ignores the variables npm packages read");
  return ["--no-prompt", "--allow-net=127.0.0.1", "--allow-read=.", ignoreEnv];
}

/** A hammering child: started, connected, waiting for the go on stdin. */
export async function startHammer(job: HammerJob) {
  const child = new Deno.Command(requireDenoCommand(), {
    args: [
      "run",
      ...childFlags(),
      fileURLToPath(new URL("./_hammer_child.ts", import.meta.url)),
      JSON.stringify(job),
    ],
    cwd: fileURLToPath(new URL("../..", import.meta.url)),
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).pipeThrough(
    new TransformStream<string, string>(
      {
        buffer: "",
        transform(chunk, controller) {
          const parts = (this.buffer + chunk).split("\n");
          this.buffer = parts.pop()!;
          for (const line of parts) controller.enqueue(line);
        },
      } as Transformer<string, string> & { buffer: string },
    ),
  ).getReader();
  const stderr = new Response(child.stderr).text();
  const first = await lines.read();
  if (first.value !== "ready") {
    await child.status;
    assert.fail(`a child did not start:\n${first.value ?? ""}\n${await stderr}`);
  }
  return {
    go: async () => {
      const writer = child.stdin.getWriter();
      await writer.write(new TextEncoder().encode("go\n"));
      await writer.close();
    },
    /** The child's answers, once it exits. */
    answers: async (): Promise<HammerAnswer[]> => {
      const result = await lines.read();
      await lines.cancel();
      const { code } = await child.status;
      assert.equal(code, 0, await stderr);
      return JSON.parse(result.value!);
    },
  };
}

/** Starts one child per job, releases them together, and gathers their answers when they end. */
export async function hammer(
  jobs: HammerJob[],
  meanwhile: () => Promise<void> = () => Promise.resolve(),
): Promise<HammerAnswer[][]> {
  const children = await Promise.all(jobs.map(startHammer));
  await Promise.all(children.map((child) => child.go()));
  await meanwhile();
  const all = [];
  for (const [index, child] of children.entries()) {
    const mine = await child.answers();
    assert.ok(mine.length > 0, `child ${index} checked`);
    all.push(mine);
  }
  return all;
}

/**
 * The answers of `bucket` that the store gave (failed checks left out), in
 * server-time order; two in one µs, the admitted one first (the order cannot
 * be known).
 */
export function answersOf(all: HammerAnswer[][], bucket: number): Answer[] {
  const answers: Answer[] = [];
  for (const mine of all) {
    for (const [index, admitted, at] of mine) {
      if (index !== bucket || admitted === -1) continue;
      answers.push({ at, count: { admitted: admitted === 1, nowMicros: at } as Answer["count"] });
    }
  }
  return answers.sort((a, b) => a.at - b.at || Number(b.count.admitted) - Number(a.count.admitted));
}
