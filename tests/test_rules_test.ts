/**
 * The rules of ARCHITECTURE.md "Tests" that the test files themselves must
 * keep: they mirror src/ (a folder of tests per unit); they never change the
 * current folder or the environment (many share a worker); and speed is
 * measured by `bench/`, never asserted: a test bounds an elapsed real time
 * only against a hang, with `HANG_BOUND_MS` (`tests/_hang_bound.ts`). The
 * last finds an assertion that compares a time taken (`ms`, `took`,
 * `elapsed`, `now() - …`) with a number of its own; a fake clock's readings
 * (`clock.now()`) are not real time.
 */
import assert from "node:assert/strict";
import { findFiles } from "../src/io/find_files.ts";

const ROOT = decodeURIComponent(new URL("../", import.meta.url).pathname);

/** An assertion bounding a time taken by a number literal (`took < budget + 1000`, `ms < 5_000`). */
const TIMED = new RegExp(
  String.raw`assert\w*(?:\.\w+)?\(.*(?:\b(?:ms|took|elapsed)\b|(?<!clock\.)now\(\)\s*-\s*\w+)` +
    String.raw`\s*<=?\s*(?:[\w.]+\s*\+\s*)?[\d_]+\b`,
);

/** The lines of `text` that assert a speed, as `file:line`. */
export function timedAssertions(file: string, text: string): string[] {
  return text.split("\n").flatMap((line, i) =>
    TIMED.test(line) && !line.includes("HANG_BOUND_MS") ? [`${file}:${i + 1}`] : []
  );
}

Deno.test("no test asserts speed: an elapsed time is bounded only by HANG_BOUND_MS", async () => {
  const files = await findFiles(`${ROOT}tests`, (name) => /\.(ts|mjs)$/.test(name), {
    enter: (name) => name !== "testdata",
  });
  assert.ok(files.length > 100, `the tests are read (${files.length})`);
  const found = files.filter((f) => !f.endsWith("test_rules_test.ts")).flatMap((file) =>
    timedAssertions(file.slice(ROOT.length), Deno.readTextFileSync(file))
  );
  assert.deepEqual(found, []);
});

Deno.test("timedAssertions finds a bound on speed, and lets a hang bound and a fake clock be", () => {
  const text = [
    "assert.ok(ms < 1_000, `refused in ${ms} ms`);",
    "assert.ok(took < budget + 1000);",
    "assert.ok(Date.now() - started < 2_000);",
    "assert.ok(ms < HANG_BOUND_MS);",
    "assert.ok(clock.now() - start < 400);",
    "assert.ok(text.length < 3_000);",
  ].join("\n");
  assert.deepEqual(timedAssertions("t.ts", text), ["t.ts:1", "t.ts:2", "t.ts:3"]);
});

/** Where the tests of a unit of src/ are, when not in `tests/<unit>/`. */
const TESTS_OF: Readonly<Record<string, string>> = {
  _internal: "internal",
  // The telemetry interface is tested with the OpenTelemetry adapter that implements it.
  telemetry: "otel",
};

Deno.test("tests/ mirrors src/: a folder of tests for each unit", () => {
  const lacking: string[] = [];
  for (const entry of Deno.readDirSync(`${ROOT}src`)) {
    if (!entry.isDirectory) continue;
    const folder = TESTS_OF[entry.name] ?? entry.name;
    try {
      Deno.statSync(`${ROOT}tests/${folder}`);
    } catch {
      lacking.push(`src/${entry.name} has no tests/${folder}/`);
    }
  }
  assert.deepEqual(lacking, []);
});

Deno.test("no test changes the current folder or the environment", async () => {
  const files = await findFiles(`${ROOT}tests`, (name) => /\.(ts|mjs)$/.test(name), {
    enter: (name) => name !== "testdata",
  });
  const changes = /\b(?:Deno\.chdir|process\.chdir|Deno\.env\.(?:set|delete))\s*\(/;
  const found = files.filter((f) => !f.endsWith("test_rules_test.ts"))
    .filter((file) => changes.test(Deno.readTextFileSync(file)))
    .map((file) => file.slice(ROOT.length));
  assert.deepEqual(found, []);
});
