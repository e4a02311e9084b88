/**
 * tools/test_report.ts on what `deno test` really prints: a passing file is
 * one line; a failing test keeps its output and deno's ERRORS section keeps
 * the full message; what a file prints when it loads (why a test is
 * skipped) is kept; the exit code follows deno's summary.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { DENO, explainIgnored } from "../faults/_policy_process.ts";

explainIgnored("tests/tools/test_report_test.ts");

const REPORT = fileURLToPath(new URL("../../tools/test_report.ts", import.meta.url));
const SAMPLES = fileURLToPath(new URL("../testdata/test_report/", import.meta.url));

/** `deno test <files>`, stdout and stderr together, through the report. */
async function report(
  files: string[],
  flags: string[] = [],
): Promise<{ code: number; text: string }> {
  const test = await new Deno.Command(DENO!, {
    args: ["test", "--no-config", "--no-check", ...flags, ...files.map((f) => SAMPLES + f)],
    // Two jobs with --parallel whatever the machine: deno takes its core count (a CPU quota
    // included), and with one job it prints the serial layout.
    env: { NO_COLOR: "1", DENO_JOBS: "2" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  return await reportOf(new Uint8Array([...test.stdout, ...test.stderr]));
}

/** The report of `input`, as deno test would have printed it. */
async function reportOf(input: Uint8Array): Promise<{ code: number; text: string }> {
  const child = new Deno.Command(DENO!, {
    args: ["run", "--no-prompt", REPORT],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(input);
  await writer.close();
  const { code, stdout } = await child.output();
  return { code, text: new TextDecoder().decode(stdout) };
}

Deno.test({
  name:
    "test_report: a passing file is one line, a failure is kept in full, exit code from deno's summary",
  ignore: DENO === null,
  fn: async () => {
    const passing = await report(["other_test.ts"]);
    assert.equal(passing.code, 0, passing.text);
    assert.deepEqual(passing.text.trim().split("\n"), [
      "ok ./tests/testdata/test_report/other_test.ts (2 passed)",
      passing.text.trim().split("\n")[1]!,
    ]);
    assert.match(passing.text, /^ok \| 2 passed \| 0 failed/m);

    const failing = await report(["sample_test.ts", "other_test.ts"]);
    assert.equal(failing.code, 1);
    const text = failing.text;
    assert.match(text, /sample_test\.ts: the ignored test needs a thing this machine lacks/);
    assert.match(text, /output of the failing test/);
    assert.match(text, /^sample_test\.ts: the second half not run: no thing here$/m);
    assert.match(text, /the failure's own message/, "deno's ERRORS section");
    assert.match(text, /the failing step's message/);
    assert.match(text, /a step \.\.\. that fails \.\.\. FAILED/);
    assert.match(
      text,
      /^FAILED \.\/tests\/testdata\/test_report\/sample_test\.ts \(3 passed, 2 failed, 1 ignored\)$/m,
    );
    assert.match(text, /^ok \.\/tests\/testdata\/test_report\/other_test\.ts \(2 passed\)$/m);
    // Passing tests are dropped with their output; the steps of a failing test are kept (context).
    assert.doesNotMatch(text, /output of a passing test|passes quietly|passes with output/);
    assert.match(text, /a step that passes \.\.\. ok/);
    assert.match(text, /^FAILED \| 5 passed \(1 step\) \| 2 failed \(1 step\) \| 1 ignored/m);
  },
});

Deno.test({
  name:
    "test_report: a line of stderr or a long-running notice between a test's name and its result is dropped, the result kept; doc blocks count as their module",
  ignore: DENO === null,
  fn: async () => {
    // As the full run printed them: a worker's Check line and the notices of a slow test land
    // after `name ...`, and the result follows on a line of its own; the code blocks of a
    // module's documentation run as modules of their own.
    const input = [
      "running 3 tests from ./a_test.ts",
      "a test whose name says skipped ... ok (1ms)",
      "in a worker ...Check tests/hostile/_worker.ts",
      " ok (5s)",
      "slow ...'slow' has been running for over (1m0s)",
      "'slow' has been running for over (2m0s)",
      "  a step ... ok (1ms)",
      "slow ... ok (3m0s)",
      "running 1 test from ./src/mod.ts#12-20.ts",
      "./src/mod.ts#12-20.ts ... ok (2ms)",
      "running 1 test from ./src/mod.ts#31-40.ts",
      "./src/mod.ts#31-40.ts ... ok (2ms)",
      "running 1 test from ./b_test.ts",
      "failing ...Check tests/hostile/_worker.ts",
      " FAILED (2ms)",
      "",
      "FAILED | 3 passed (1 step) | 1 failed (3m)",
    ].join("\n") + "\n";
    const { code, text } = await reportOf(new TextEncoder().encode(input));
    assert.equal(code, 1);
    assert.deepEqual(text.trim().split("\n"), [
      "ok ./a_test.ts (3 passed)",
      "ok ./src/mod.ts (2 passed)",
      "failing ... FAILED (2ms)",
      "FAILED ./b_test.ts (0 passed, 1 failed)",
      "FAILED | 3 passed (1 step) | 1 failed (3m)",
    ]);
  },
});

Deno.test({
  name:
    "test_report: what a module prints outside its tests is kept, even when deno labels it post-test output",
  ignore: DENO === null,
  fn: async () => {
    // In a full run deno may frame what the next module prints when it loads as the post-test
    // output of the module before; a file's note of what it skipped must not be lost there.
    const input = [
      "------- pre-test output -------",
      "a_test.ts: one case skipped here",
      "----- pre-test output end -----",
      "running 1 test from ./a_test.ts",
      "passes ... ok (1ms)",
      "------- post-test output -------",
      "b_test.ts: the long corpus skipped here",
      "----- post-test output end -----",
      "running 1 test from ./b_test.ts",
      "passes too ... ok (1ms)",
      "",
      "ok | 2 passed | 0 failed (2ms)",
    ].join("\n") + "\n";
    const { code, text } = await reportOf(new TextEncoder().encode(input));
    assert.equal(code, 0, text);
    assert.deepEqual(text.trim().split("\n"), [
      "a_test.ts: one case skipped here",
      "b_test.ts: the long corpus skipped here",
      "ok ./a_test.ts (1 passed)",
      "ok ./b_test.ts (1 passed)",
      "ok | 2 passed | 0 failed (2ms)",
    ]);
  },
});

Deno.test({
  name:
    "test_report: deno test --parallel, files interleaved: a line per file, failures and skip notes kept, exit code from deno's summary",
  ignore: DENO === null,
  fn: async () => {
    const passing = await report(["other_test.ts"], ["--parallel"]);
    assert.equal(passing.code, 0, passing.text);
    assert.deepEqual(passing.text.trim().split("\n"), [
      "ok ./tests/testdata/test_report/other_test.ts (2 passed)",
      passing.text.trim().split("\n")[1]!,
    ]);
    assert.match(passing.text, /^ok \| 2 passed \| 0 failed/m);

    const failing = await report(["sample_test.ts", "other_test.ts"], ["--parallel"]);
    assert.equal(failing.code, 1);
    const text = failing.text;
    assert.match(text, /sample_test\.ts: the ignored test needs a thing this machine lacks/);
    assert.match(text, /^output of the failing test$/m);
    assert.match(text, /^sample_test\.ts: the second half not run: no thing here$/m);
    assert.match(text, /the failure's own message/, "deno's ERRORS section");
    assert.match(text, /the failing step's message/);
    assert.match(text, /=> ?steps \.\.\. a step \.\.\. that fails \.\.\. FAILED/);
    // The steps of a test count with it, as in the serial layout.
    assert.match(
      text,
      /^FAILED \.\/tests\/testdata\/test_report\/sample_test\.ts \(3 passed, 2 failed, 1 ignored\)$/m,
    );
    assert.match(text, /^ok \.\/tests\/testdata\/test_report\/other_test\.ts \(2 passed\)$/m);
    // Deno does not tie output to its test reliably in this layout, so all of it is kept: the
    // passing results are dropped.
    assert.match(text, /^output of a passing test$/m);
    assert.doesNotMatch(text, /passes quietly|passes with output/);
    assert.match(text, /^FAILED \| 5 passed \(1 step\) \| 2 failed \(1 step\) \| 1 ignored/m);
  },
});

Deno.test({
  name:
    "test_report: deno test --parallel: interleaved files, all output kept, a post-test frame closed by a test's line, doc blocks as their module",
  ignore: DENO === null,
  fn: async () => {
    // As a full run with --parallel printed them: the end of a test's output is glued to
    // `file => name ...`, and deno may label a test's output post-test.
    const input = [
      "Check tests/a_test.ts",
      "------- pre-test output -------",
      "b_test.ts: one case skipped here",
      "----- pre-test output end -----",
      "./a_test.ts => first ... ok (1ms)",
      "./b_test.ts => one ... ok (1ms)",
      "------- output -------",
      "chatter of a passing test",
      "./a_test.ts => second ...----- output end -----",
      "./a_test.ts => second ... ok (1ms)",
      "------- post-test output -------",
      "chatter labelled post-test",
      "./b_test.ts => two ...----- post-test output end -----",
      "./b_test.ts => two ... ok (1ms)",
      "./a_test.ts => slow ... a step ... ok (1ms)",
      "'slow' has been running for over (1m0s)",
      "./a_test.ts => slow ... ok (1m1s)",
      "./src/mod.ts#12-20.ts => ./src/mod.ts#12-20.ts ... ok (2ms)",
      "./src/mod.ts$31-40.ts => ./src/mod.ts$31-40.ts ... ok (2ms)",
      "------- output -------",
      "what the failing test said",
      "./b_test.ts => three ...----- output end -----",
      "./b_test.ts => three ... FAILED (3ms)",
      "------- output -------",
      "output deno did not tie to a test",
      "----- output end -----",
      "./a_test.ts => last ... ok (1ms)",
      "",
      " ERRORS ",
      "",
      "three => ./b_test.ts:9:6",
      "error: Error: boom",
      "",
      "FAILED | 8 passed (1 step) | 1 failed (1m)",
    ].join("\n") + "\n";
    const { code, text } = await reportOf(new TextEncoder().encode(input));
    assert.equal(code, 1);
    assert.deepEqual(text.trim().split("\n"), [
      "b_test.ts: one case skipped here",
      "chatter of a passing test",
      "chatter labelled post-test",
      "------- output -------",
      "what the failing test said",
      "----- output end -----",
      "./b_test.ts => three ... FAILED (3ms)",
      "------- output -------",
      "output deno did not tie to a test",
      "----- output end -----",
      "ok ./a_test.ts (4 passed)",
      "FAILED ./b_test.ts (2 passed, 1 failed)",
      "ok ./src/mod.ts (2 passed)",
      " ERRORS ",
      "",
      "three => ./b_test.ts:9:6",
      "error: Error: boom",
      "",
      "FAILED | 8 passed (1 step) | 1 failed (1m)",
    ]);
    // A summary that says ok is the only way to exit 0, in this layout too.
    const ok = await reportOf(new TextEncoder().encode(
      "./a_test.ts => first ... ok (1ms)\n\nok | 1 passed | 0 failed (1ms)\n",
    ));
    assert.equal(ok.code, 0, ok.text);
    assert.deepEqual(ok.text.trim().split("\n"), [
      "ok ./a_test.ts (1 passed)",
      "ok | 1 passed | 0 failed (1ms)",
    ]);
    const cut = await reportOf(new TextEncoder().encode("./a_test.ts => first ... ok (1ms)\n"));
    assert.equal(cut.code, 1, cut.text);
  },
});
