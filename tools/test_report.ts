/**
 * Shortens what `deno test` prints (its default reporter, stdout and stderr
 * together on stdin) to one line per test file, and keeps everything that
 * needs reading: what a file prints when it loads (where a test that is
 * skipped says why), a line of a passing test's output that says what it
 * skipped or did not run, each failed test or step with the output it printed,
 * deno's ERRORS and FAILURES sections with the full details, the summary,
 * and any line it does not recognise. A passing test's line and output, and
 * deno's `Check` lines, are dropped; a repeated diagnostic line (`Info
 * Failed to resolve 'x' for allow-run`, printed again by every worker) is
 * printed once; blank lines between files are dropped. Exits 0 only when
 * deno's summary says `ok`.
 *
 * It reads both of deno's layouts: the serial one (`running N tests from
 * ./a_test.ts`, then a line per test and indented steps) and the one of
 * `deno test --parallel`, where the files interleave and each line names its
 * file (`./a_test.ts => name ... ok (1ms)`, a step as `test ... step ... ok`,
 * a test's output framed before its result and closed by
 * `./a_test.ts => name ...----- output end -----`). There a failure is printed
 * as it comes, and the line of each file once deno's summary comes (a file's
 * end is not marked). Deno does not tie output to its test reliably there
 * (what a module prints as it loads can come framed as the output of another
 * file's test, a test's output may be labelled `post-test` or not be closed
 * by its name), so in that layout every line a test or module prints is kept:
 * what says why something was skipped is never lost.
 *
 * Usage (the `test:deno` task): `deno test … 2>&1 | deno run tools/test_report.ts`.
 * Deno's other reporters do not do this: `dot` prints a line per test in
 * Deno 2.9, and `dot`, `tap` and `junit` drop what tests print, so a skipped
 * test could not say why.
 *
 * @module
 */

// deno-lint-ignore no-control-regex
const ANSI = /\x1b\[[0-9;]*m/g;
const RUNNING = /^running \d+ tests? from (.+)$/;
const RESULT = /^( *)(.*) \.\.\. (ok|FAILED|ignored)\b.*\([^)]*\)$/;
const STARTED = /^( *)(.*) \.\.\.$/;
const OUTPUT_START = /^-{7} (pre-test |post-test )?output -{7}$/;
const OUTPUT_END = /^-{5} (pre-test |post-test )?output end -{5}$/;
const SUMMARY = /^(ok|FAILED) \| \d+ passed/;
/**
 * Deno prints `name ...` and the result later: a line on stderr (`Check` of a
 * worker's module) or a notice that the test runs long can come in between,
 * on the same line, and the result then comes alone (` ok (5s)`).
 */
const INTERRUPTED =
  /^(.* \.\.\.)((?:Check |Download |Info |Warning |'.*' has been running for over ).*)$/;
const LATE_RESULT = /^ (ok|FAILED|ignored)\b.*\([^)]*\)$/;
/** A line a passing test prints about what it did not run (`… skipped, …`, `… not run: …`). */
const SKIP_NOTE = /\bskipped\b|\bnot run\b/i;
const LONG_RUNNING = /^(?:\S+ => )?'.*' has been running for over \([^)]*\)$/;
/** A result in `deno test --parallel`'s layout: `./a_test.ts => name ... ok (1ms)`. */
const PARALLEL_RESULT = /^(\S+) => (.*) \.\.\. (ok|FAILED|ignored)\b.*\([^)]*\)$/;
/** The end of a test's output in that layout: `./a_test.ts => name ...----- output end -----`. */
const PARALLEL_OUTPUT_END = /^(\S+) => (.*) \.\.\.-{5} (pre-test |post-test )?output end -{5}$/;

const encoder = new TextEncoder();
function print(line: string): void {
  Deno.stdout.writeSync(encoder.encode(line + "\n"));
}

/** The counts of the file being run, printed as its one line when it ends. */
interface FileRun {
  name: string;
  passed: number;
  failed: number;
  ignored: number;
}

let file: FileRun | null = null;
/**
 * With `--parallel`: each file's counts, and its results so far that may turn
 * out to be steps (a step ends before its test, whose name and ` ... ` start
 * the step's: the test's result moves them out of the counts).
 */
const parallelFiles = new Map<string, FileRun & { results: { name: string; status: string }[] }>();
/** With `--parallel`: what each test printed (its output lines), by `file => name`. */
const parallelOutput = new Map<string, string[]>();
/** Lines of the test being run (its start, steps, output), printed if it fails. */
let pending: string[] = [];
/** What the test being run printed (its output lines only). */
let printed: string[] = [];
/** Inside an output block: `pre` for what a module prints outside its tests, else a test's. */
let block: "pre" | "test" | null = null;
/** After deno's ERRORS or FAILURES heading: everything is printed. */
let details = false;
let outcome: "ok" | "FAILED" | null = null;
/** The last `name ...` line whose result has not come yet. */
let lastStarted: string | null = null;
const seenDiagnostics = new Set<string>();

function printFile({ name, passed, failed, ignored }: FileRun): void {
  const counts = [`${passed} passed`];
  if (failed > 0) counts.push(`${failed} failed`);
  if (ignored > 0) counts.push(`${ignored} ignored`);
  print(`${failed > 0 ? "FAILED" : "ok"} ${name} (${counts.join(", ")})`);
}

function endFile(): void {
  if (file !== null) printFile(file);
  file = null;
  for (const name of [...parallelFiles.keys()].sort()) printFile(parallelFiles.get(name)!);
  parallelFiles.clear();
}

/** The code blocks of a module's documentation (`./mod.ts#12-30.ts`) count as that module. */
function moduleOf(name: string): string {
  return name.replace(/[$#]\d+-\d+\.[a-z]+$/, "");
}

/** A result line of `deno test --parallel` (`raw`, and `line` without colours). */
function parallelResult(raw: string, [, path, name, status]: RegExpExecArray): void {
  const fileName = moduleOf(path!);
  let run = parallelFiles.get(fileName);
  if (run === undefined) {
    run = { name: fileName, passed: 0, failed: 0, ignored: 0, results: [] };
    parallelFiles.set(fileName, run);
  }
  const count = (result: string, by: number) => {
    if (result === "ok") run.passed += by;
    else if (result === "FAILED") run.failed += by;
    else run.ignored += by;
  };
  run.results = run.results.filter((earlier) => {
    if (!earlier.name.startsWith(`${name} ... `)) return true;
    count(earlier.status, -1);
    return false;
  });
  run.results.push({ name: name!, status: status! });
  count(status!, 1);
  const key = `${path} => ${name}`;
  const output = parallelOutput.get(key) ?? [];
  parallelOutput.delete(key);
  // Deno may print a module's output as it loads inside the output of another file's test, so
  // a passing test's output is kept too.
  if (status === "ok") { for (const kept of output) print(kept); }
  else if (status === "FAILED") {
    if (output.length > 0) {
      print("------- output -------");
      for (const kept of output) print(kept);
      print("----- output end -----");
    }
    print(raw);
  }
}

function handle(raw: string): void {
  const line = raw.replace(ANSI, "");
  if (details) {
    if (SUMMARY.test(line)) outcome = line.startsWith("ok") ? "ok" : "FAILED";
    print(raw);
    return;
  }
  // What a module prints outside its tests (when it loads; deno may label that output `post-test`,
  // after the tests of the module before) is printed without deno's frame around it; what a test
  // prints is kept, framed, with the test.
  if (block !== null) {
    const parallelEnd = PARALLEL_OUTPUT_END.exec(line);
    if (parallelEnd !== null && block === "pre") block = null;
    else if (parallelEnd !== null) {
      const key = `${parallelEnd[1]} => ${parallelEnd[2]}`;
      parallelOutput.set(key, [...(parallelOutput.get(key) ?? []), ...printed]);
      pending = [];
      printed = [];
      block = null;
    } else if (OUTPUT_END.test(line)) {
      if (block === "test") pending.push(raw);
      // With --parallel, a test's output is not always closed by its name: whose it is is
      // unknown, so it is kept.
      if (block === "test" && file === null) {
        for (const kept of pending) print(kept);
        pending = [];
        printed = [];
      }
      block = null;
    } else if (block === "pre") print(raw);
    else {
      pending.push(raw);
      printed.push(raw);
    }
    return;
  }
  const start = OUTPUT_START.exec(line);
  if (start !== null) {
    block = start[1] === undefined ? "test" : "pre";
    if (block === "test") pending.push(raw);
    return;
  }
  const running = RUNNING.exec(line);
  if (running !== null) {
    const name = moduleOf(running[1]!);
    if (file?.name === name) return;
    endFile();
    file = { name, passed: 0, failed: 0, ignored: 0 };
    return;
  }
  const interrupted = INTERRUPTED.exec(line);
  if (interrupted !== null && file !== null) {
    handle(interrupted[1]!);
    handle(interrupted[2]!);
    return;
  }
  const late = LATE_RESULT.exec(line);
  if (late !== null && file !== null && lastStarted !== null) {
    if (pending.at(-1) === lastStarted) pending.pop();
    const started = lastStarted;
    lastStarted = null;
    handle(`${started}${line}`);
    return;
  }
  if (LONG_RUNNING.test(line)) return;
  const parallel = PARALLEL_RESULT.exec(line);
  if (parallel !== null && file === null) {
    parallelResult(raw, parallel);
    return;
  }
  const result = RESULT.exec(line);
  if (result !== null && file !== null) {
    const [, indent, , status] = result;
    pending.push(raw);
    if (indent === "") {
      if (status === "ok") {
        file.passed++;
        // A test that skips part of itself at run time says so in its output: that line is kept.
        for (const kept of printed) if (SKIP_NOTE.test(kept.replace(ANSI, ""))) print(kept);
      } else if (status === "ignored") file.ignored++;
      else {
        file.failed++;
        for (const kept of pending) print(kept);
      }
      pending = [];
      printed = [];
    }
    return;
  }
  if (file !== null && STARTED.test(line)) {
    pending.push(raw);
    lastStarted = raw;
    return;
  }
  if (line.trim() === "ERRORS" || line.trim() === "FAILURES" || SUMMARY.test(line)) {
    endFile();
    for (const kept of pending) print(kept);
    pending = [];
    details = true;
    handle(raw);
    return;
  }
  if (/^Check /.test(line) || line.trim() === "") return;
  if (/^Info /.test(line)) {
    if (seenDiagnostics.has(line)) return;
    seenDiagnostics.add(line);
  }
  print(raw);
}

let rest = "";
const decoder = new TextDecoder();
for await (const chunk of Deno.stdin.readable) {
  rest += decoder.decode(chunk, { stream: true });
  let newline: number;
  while ((newline = rest.indexOf("\n")) !== -1) {
    handle(rest.slice(0, newline).replace(/\r$/, ""));
    rest = rest.slice(newline + 1);
  }
}
if (rest !== "") handle(rest);
endFile();
for (const kept of pending) print(kept);
if (outcome === null) print("test_report: deno test ended without its summary line");
Deno.exit(outcome === "ok" ? 0 : 1);
