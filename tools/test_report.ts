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
const LONG_RUNNING = /^'.*' has been running for over \([^)]*\)$/;

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

function endFile(): void {
  if (file === null) return;
  const { name, passed, failed, ignored } = file;
  const counts = [`${passed} passed`];
  if (failed > 0) counts.push(`${failed} failed`);
  if (ignored > 0) counts.push(`${ignored} ignored`);
  print(`${failed > 0 ? "FAILED" : "ok"} ${name} (${counts.join(", ")})`);
  file = null;
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
    if (OUTPUT_END.test(line)) {
      if (block === "test") pending.push(raw);
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
    // The code blocks of a module's documentation run as modules of their own
    // (`./mod.ts#12-30.ts`): they count as that module.
    const name = running[1]!.replace(/[$#]\d+-\d+\.[a-z]+$/, "");
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
