/**
 * The worked example of docs/change-safety.md, run exactly as written: its
 * files are written into a working folder, its patches applied, and each
 * command run in turn; the output must be the one the page shows, byte for
 * byte, and the exit code the one its marker states.
 *
 * The page marks what the test reads with HTML comments before code blocks:
 * `<!-- file: NAME -->` (the block is the file), `<!-- patch: NAME POINTER -->`
 * (the block replaces the JSON value at POINTER in the file), `<!-- run:
 * exit N -->` (the block is one `policy` command, the next block its output).
 */
import assert from "node:assert/strict";
import * as path from "node:path";
import { scratch } from "./_helpers.ts";

const PAGE = new URL("../../docs/change-safety.md", import.meta.url);

/** One marked step of the page. */
type Step =
  | { kind: "file"; name: string; content: string }
  | { kind: "patch"; name: string; pointer: string; content: string }
  | { kind: "run"; exit: number; command: string; output: string };

/** The marked steps of the page, in order. */
function steps(page: string): Step[] {
  const lines = page.split("\n");
  const blockAt = (start: number): { content: string; end: number } => {
    let i = start;
    while (!lines[i]!.startsWith("```")) i++;
    const open = i++;
    while (lines[i] !== "```") i++;
    return { content: lines.slice(open + 1, i).join("\n") + "\n", end: i + 1 };
  };
  const out: Step[] = [];
  for (let i = 0; i < lines.length; i++) {
    const marker = /^<!-- (file|patch|run): (.*) -->$/.exec(lines[i]!);
    if (marker === null) continue;
    const [, kind, args] = marker;
    const first = blockAt(i + 1);
    if (kind === "file") out.push({ kind, name: args!, content: first.content });
    if (kind === "patch") {
      const [name, pointer] = args!.split(" ");
      out.push({ kind, name: name!, pointer: pointer!, content: first.content });
    }
    if (kind === "run") {
      const output = blockAt(first.end);
      out.push({
        kind,
        exit: Number(/^exit (\d+)$/.exec(args!)![1]),
        command: first.content.trim(),
        output: output.content,
      });
    }
  }
  return out;
}

Deno.test("docs/change-safety.md: the worked example runs exactly as written", async () => {
  await using s = await scratch();
  const page = await Deno.readTextFile(PAGE);
  const all = steps(page);
  assert.ok(all.filter((step) => step.kind === "run").length >= 5, "the page has its commands");
  for (const step of all) {
    if (step.kind === "file") {
      await s.write(step.name, step.content);
    } else if (step.kind === "patch") {
      const document = await s.readJson(step.name);
      const segments = step.pointer.split("/").slice(1);
      let parent = document as Record<string, unknown>;
      for (const segment of segments.slice(0, -1)) {
        parent = parent[segment] as Record<string, unknown>;
      }
      parent[segments[segments.length - 1]!] = JSON.parse(step.content);
      await s.write(step.name, JSON.stringify(document, null, 2) + "\n");
    } else {
      const [program, ...args] = step.command.split(/\s+/);
      assert.equal(program, "policy");
      const result = await s.run(args);
      // Paths the CLI prints absolute are shown relative to the working folder.
      const stdout = result.stdout.replaceAll(s.wf + path.sep, "");
      assert.equal(stdout, step.output, `${step.command}\nstderr: ${result.stderr}`);
      assert.equal(result.code, step.exit, step.command);
    }
  }
});
