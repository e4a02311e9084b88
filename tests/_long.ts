/**
 * The quick suite and the long one. `deno task test` runs every test file
 * quickly: a long corpus is represented by a fixed sample, a property by
 * fewer runs, and the heaviest cases are left to `deno task test:long`,
 * which sets `POLICY_TEST_LONG=1`, grants reading it, and runs the files
 * that import this module at full length (`.ci/run` runs both tasks). The
 * default task grants no access to that variable, so {@link LONG} is false
 * there without a permission prompt.
 *
 * A file that leaves something to the long run says so when it loads
 * ({@link noteLong}), and `tests/long_suite_test.ts` checks that every file
 * importing this module is one the `test:long` task runs.
 *
 * @module
 */

/** True under `deno task test:long`: run every case, every document, every property run. */
export const LONG = Deno.permissions.querySync({ name: "env", variable: "POLICY_TEST_LONG" })
      .state === "granted" && Deno.env.get("POLICY_TEST_LONG") === "1";

/** The reason printed for what only the long run does. */
export const LONG_ONLY = "run by deno task test:long";

/**
 * Prints, in the quick suite only, what `file` leaves to the long run
 * (`what`: "12 of 31 documents", "the 200-kill loop"…). The test report
 * keeps the line (it says "skipped").
 */
export function noteLong(file: string, what: string): void {
  // A hostile case's worker imports its file again: the note is the test runner's alone.
  if (!LONG && !("WorkerGlobalScope" in globalThis)) {
    console.log(`${file}: ${what} skipped here, ${LONG_ONLY}`);
  }
}

/**
 * The items the quick suite runs: those `quick` keeps (a fixed, representative
 * sample), or all of them under the long run.
 */
export function sampled<T>(items: readonly T[], quick: (item: T) => boolean): T[] {
  return LONG ? [...items] : items.filter(quick);
}
