/**
 * `policy policies import` on hostile inputs of up to 8 MiB
 * (`_import_inputs.ts`): each ends with its code (never INTERNAL_ERROR),
 * within 30 times what `JSON.parse` takes on the same text, in a process
 * whose heap is capped; messages quote at most a short prefix of a value,
 * warnings are listed up to validation's cap with the rest counted, and the
 * text report lists at most as many policies. The inputs run in one child
 * process, so one that exhausted memory would fail this test instead of
 * ending the test run. The quick suite runs a fixed sample of the inputs
 * (`QUICK`); `deno task test:long` runs them all.
 */
import { makeTempDir } from "../temp_dir.ts";
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { DEFAULT_MAX_ISSUES } from "../../src/engine/validate_bundle.ts";

import { DENO, explainIgnored, runDeno } from "../faults/_policy_process.ts";
import { importInputs } from "./_import_inputs.ts";
import { LONG, noteLong, sampled } from "../_long.ts";
import type { ImportReport } from "./_import_runner.ts";
import { describeElapsed, ratio } from "./_elapsed.ts";

/** The heap cap of the child, as for loading (docs/security.md). */
const HEAP_MIB = 320;
/** Time within this multiple of JSON.parse's on the same text (see _import_runner.ts for the floor). */
const MAX_RATIO = 30;
/** The longest line printed: a message quotes at most ~60 characters of a value. */
const MAX_LINE = 2_000;
const RUNNER = fileURLToPath(new URL("./_import_runner.ts", import.meta.url));

explainIgnored("tests/hostile/import_hostile_test.ts");

/**
 * The sample of the quick suite: a duplicate at the end of a large file,
 * warnings past the cap, a huge name quoted, a huge key in an engine error.
 */
const QUICK = new Set([
  "a key twice, at the end of 60,000",
  "80,000 warnings: an unknown field and another env in 40,000 wrappers",
  "a 7 MB unknown field name",
  "a 7 MB policy key with an engine error",
]);
const ALL = importInputs().map(({ name, outcomes }, index) => ({ name, outcomes, index }));
const INPUTS = sampled(ALL, (input) => QUICK.has(input.name));
if (!LONG) assert.equal(INPUTS.length, QUICK.size, "every input of the sample exists");
noteLong(
  "tests/hostile/import_hostile_test.ts",
  `${ALL.length - INPUTS.length} of ${ALL.length} inputs`,
);

Deno.test({
  name: `policies import: ${LONG ? "every" : "a sample of the"} hostile input${
    LONG ? "" : "s"
  } of up to 8 MiB ends with its code within ${MAX_RATIO}x JSON.parse, in a ${HEAP_MIB} MiB heap, printing bounded lines`,
  ignore: DENO === null,
  fn: async (t) => {
    const { dir, remove } = await makeTempDir("import-hostile-");
    try {
      const output = await runDeno(
        [
          "run",
          "--no-prompt",
          `--v8-flags=--max-old-space-size=${HEAP_MIB}`,
          `--allow-read=${dir}`,
          `--allow-write=${dir}`,
          RUNNER,
          dir,
          ...LONG ? [] : [INPUTS.map((input) => input.index).join(",")],
        ],
        { seconds: 15 * 60 },
      );
      const reports = output.stdout.split("\n").filter((line) => line !== "").map((line) =>
        JSON.parse(line) as ImportReport
      );
      const inputs = INPUTS;
      assert.equal(
        output.code,
        0,
        `the runner died after ${reports.length} of ${inputs.length} inputs (the next: ${
          inputs[reports.length]?.name
        })\n${output.stderr.slice(-2000)}`,
      );
      assert.deepEqual(reports.map((r) => r.name), inputs.map((i) => i.name));
      for (const [i, report] of reports.entries()) {
        await t.step(report.name, () => {
          const where = `${report.name} (${report.bytes} bytes)`;
          assert.ok(report.bytes <= 8 * 1024 * 1024, `${where}: at most 8 MiB`);
          assert.ok(inputs[i]!.outcomes.includes(report.outcome), `${where}: ${report.outcome}`);
          const times = ratio(report.took, report.baseline);
          assert.ok(
            times <= MAX_RATIO,
            `${where}: took ${describeElapsed(report.took)}, ${times.toFixed(1)}x JSON.parse (${
              describeElapsed(report.baseline)
            })`,
          );
          assert.ok(report.longestLine <= MAX_LINE, `${where}: a line of ${report.longestLine}`);
          // The warnings, the line that counts the others, and the report of the policies.
          assert.ok(report.warningLines <= DEFAULT_MAX_ISSUES + 1, `${where}: warnings`);
          assert.ok(report.lines <= 2 * DEFAULT_MAX_ISSUES + 10, `${where}: ${report.lines} lines`);
          assert.ok(report.printedBytes <= 1024 * 1024, `${where}: ${report.printedBytes} bytes`);
        });
      }
    } finally {
      await remove();
    }
  },
});
