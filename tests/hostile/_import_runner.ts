/**
 * Runs `policy policies import` in this process on each hostile input of
 * `_import_inputs.ts` and prints one JSON line per input: the outcome, what
 * the command printed (bytes, lines, the longest line), and the time it
 * took against the time `JSON.parse` takes on the same text or, when
 * longer, what no run can avoid: a SHA-256 of its bytes (reading them costs
 * at least that), decoding them as UTF-8, and, when the import succeeds,
 * writing its draft's bytes atomically. The floor is measured right after
 * each of three runs, and the report is the run with the lowest ratio (both
 * on the two clocks of `_elapsed.ts`). Run
 * by `import_hostile_test.ts` as a child with a capped heap:
 * `deno run --v8-flags=--max-old-space-size=<MiB> --allow-read=<dir> --allow-write=<dir> _import_runner.ts <dir> [<index>,…]`.
 *
 * @module
 */
import * as path from "node:path";
import { runCli } from "../../src/cli/run_cli.ts";
import type { CliIo } from "../../src/cli/cli_io.ts";
import { writeFileAtomic } from "../../src/io/write_file_atomic.ts";
import { SYSTEM_CLOCK } from "../../src/public/clock.ts";
import { baseline } from "./_baseline.ts";
import {
  type Elapsed,
  fastest,
  NOT_YET,
  NOTHING,
  ratio,
  slowest,
  startClocks,
} from "./_elapsed.ts";
import { importInputs } from "./_import_inputs.ts";

/** One line of output. */
export interface ImportReport {
  name: string;
  bytes: number;
  exitCode: number;
  /** `ok`, or the code the error names. */
  outcome: string;
  took: Elapsed;
  baseline: Elapsed;
  /** What the measured run printed, stdout and stderr together. */
  printedBytes: number;
  lines: number;
  longestLine: number;
  warningLines: number;
}

const root = Deno.args[0]!;
/** The indexes of the inputs to run (comma-separated), or every input. */
const only = Deno.args[1]?.split(",").map(Number);

/** A run of the command in `folder`, counting what it prints (keeping its error line). */
async function run(folder: string, args: string[]) {
  let printedBytes = 0;
  let error = "";
  const keep = (text: string) => {
    printedBytes += text.length;
    if (text.startsWith("error: ")) error = text.slice(0, 65_536);
  };
  let lines = 0;
  let longestLine = 0;
  let current = 0;
  let warningLines = 0;
  const count = (text: string) => {
    keep(text);
    let start = 0;
    for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", start)) {
      current += i - start;
      longestLine = Math.max(longestLine, current);
      if (text.startsWith("warning: ", start)) warningLines++;
      lines++;
      current = 0;
      start = i + 1;
    }
    current += text.length - start;
    longestLine = Math.max(longestLine, current);
  };
  const io: CliIo = {
    stdout: count,
    stderr: count,
    env: (name) => (name === "POLICY_HOME" ? path.join(folder, "home") : undefined),
    cwd: folder,
    clock: SYSTEM_CLOCK,
  };
  const elapsed = startClocks();
  const exitCode = await runCli(["policies", "import", ...args], io);
  const took = elapsed();
  const outcome = exitCode === 0
    ? "ok"
    : /^error: .*\(([A-Z][A-Z_]+)\)$/m.exec(error)?.[1] ?? `uncoded: ${error.slice(0, 300)}`;
  return { exitCode, outcome, took, printedBytes, lines, longestLine, warningLines };
}

// The command's modules are loaded by a first run, which is not measured.
await Deno.mkdir(path.join(root, "warm-up"));
await Deno.writeTextFile(path.join(root, "warm-up", "in.json"), '{"policyKey":"w","snapshot":{}}');
await run(path.join(root, "warm-up"), ["in.json"]);

/**
 * What no import of `bytes` avoids, measured now: JSON.parse or a SHA-256 (see
 * `_baseline.ts`), decoding the bytes as UTF-8, and, for an import that
 * succeeded, writing its draft's bytes atomically (a draft of tiny wrappers
 * is three times the file).
 */
async function floor(
  text: string,
  bytes: Uint8Array<ArrayBuffer>,
  draft: Uint8Array | null,
): Promise<Elapsed> {
  let decode = NOT_YET;
  let write = draft === null ? NOTHING : NOT_YET;
  for (let attempt = 0; attempt < 2; attempt++) {
    let elapsed = startClocks();
    new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    decode = fastest(decode, elapsed());
    if (draft === null) continue;
    elapsed = startClocks();
    await writeFileAtomic(path.join(root, "written.json"), draft);
    write = fastest(write, elapsed());
  }
  return slowest(slowest(await baseline(text, bytes), decode), write);
}

for (const [i, input] of importInputs().entries()) {
  if (only !== undefined && !only.includes(i)) continue;
  const bytes = new TextEncoder().encode(input.text);
  // Three runs, each measured against its floor taken right after it (so that both see the same
  // load of the machine); the report is the run with the lowest ratio.
  let best: (Awaited<ReturnType<typeof run>> & { baseline: Elapsed }) | undefined;
  for (let attempt = 0; attempt < 3; attempt++) {
    const folder = path.join(root, `${i}-${attempt}`);
    await Deno.mkdir(folder);
    if (input.before !== undefined) {
      await Deno.writeTextFile(path.join(folder, "before.json"), input.before);
      const before = await run(folder, ["before.json"]);
      if (before.exitCode !== 0) throw new Error(`${input.name}: the import before failed`);
    }
    await Deno.writeFile(path.join(folder, "in.json"), bytes);
    const result = await run(folder, ["in.json", ...input.args ?? []]);
    const draft = result.outcome === "ok"
      ? await Deno.readFile(path.join(folder, "policy-drafts.json"))
      : null;
    await Deno.remove(folder, { recursive: true });
    const measured = { ...result, baseline: await floor(input.text, bytes, draft) };
    if (
      best === undefined ||
      ratio(measured.took, measured.baseline) < ratio(best.took, best.baseline)
    ) {
      best = measured;
    }
  }
  const report: ImportReport = { name: input.name, bytes: bytes.byteLength, ...best! };
  console.log(JSON.stringify(report));
}
