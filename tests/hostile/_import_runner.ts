/**
 * Runs `policy policies import` in this process on each hostile input of
 * `_import_inputs.ts` and prints one JSON line per input: the outcome, what
 * the command printed (bytes, lines, the longest line), and the time it
 * took (the fastest of three runs) against the time `JSON.parse` takes on the
 * same text, or, when longer, what no run can avoid: a SHA-256 of its bytes
 * (reading them costs at least that), decoding them as UTF-8, and, when the
 * import succeeds, writing its draft's bytes atomically (as the draft is
 * written). Run by `import_hostile_test.ts` as a child with a capped heap:
 * `deno run --v8-flags=--max-old-space-size=<MiB> --allow-read=<dir> --allow-write=<dir> _import_runner.ts <dir>`.
 *
 * @module
 */
import * as path from "node:path";
import { runCli } from "../../src/commands/run_cli.ts";
import type { CliIo } from "../../src/commands/cli_io.ts";
import { writeFileAtomic } from "../../src/_io/write_file_atomic.ts";
import { SYSTEM_CLOCK } from "../../src/_internal/clock.ts";
import { baselineMs } from "./_baseline.ts";
import { importInputs } from "./_import_inputs.ts";

/** One line of output. */
export interface ImportReport {
  name: string;
  bytes: number;
  exitCode: number;
  /** `ok`, or the code the error names. */
  outcome: string;
  ms: number;
  baselineMs: number;
  /** What the measured run printed, stdout and stderr together. */
  printedBytes: number;
  lines: number;
  longestLine: number;
  warningLines: number;
}

const root = Deno.args[0]!;

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
  const started = performance.now();
  const exitCode = await runCli(["policies", "import", ...args], io);
  const ms = performance.now() - started;
  const outcome = exitCode === 0
    ? "ok"
    : /^error: .*\(([A-Z][A-Z_]+)\)$/m.exec(error)?.[1] ?? `uncoded: ${error.slice(0, 300)}`;
  return { exitCode, outcome, ms, printedBytes, lines, longestLine, warningLines };
}

// The command's modules are loaded by a first run, which is not measured.
await Deno.mkdir(path.join(root, "warm-up"));
await Deno.writeTextFile(path.join(root, "warm-up", "in.json"), '{"policyKey":"w","snapshot":{}}');
await run(path.join(root, "warm-up"), ["in.json"]);

for (const [i, input] of importInputs().entries()) {
  const bytes = new TextEncoder().encode(input.text);
  let best: Awaited<ReturnType<typeof run>> | undefined;
  // The draft the import wrote, when it succeeded.
  let draft: Uint8Array | null = null;
  // The fastest of three runs: one run can be slowed by whatever else the machine does.
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
    if (best === undefined || result.ms < best.ms) best = result;
    if (result.outcome === "ok") {
      draft = await Deno.readFile(path.join(folder, "policy-drafts.json"));
    }
    await Deno.remove(folder, { recursive: true });
  }
  // The command decodes the file as UTF-8 (strictly) before parsing it: no run is cheaper.
  let decodeMs = Infinity;
  for (let attempt = 0; attempt < 2; attempt++) {
    const started = performance.now();
    new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    decodeMs = Math.min(decodeMs, performance.now() - started);
  }
  // An import that succeeds writes its draft (flushed, renamed): nothing that does is cheaper than
  // writing those bytes that way, which is its floor then (a draft of tiny wrappers is three
  // times the file).
  let writeMs = 0;
  if (draft !== null) {
    writeMs = Infinity;
    for (let attempt = 0; attempt < 2; attempt++) {
      const started = performance.now();
      await writeFileAtomic(path.join(root, "written.json"), draft);
      writeMs = Math.min(writeMs, performance.now() - started);
    }
  }
  const report: ImportReport = {
    name: input.name,
    bytes: bytes.byteLength,
    ...best!,
    baselineMs: Math.max(await baselineMs(input.text, bytes), decodeMs, writeMs),
  };
  console.log(JSON.stringify(report));
}
