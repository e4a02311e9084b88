import assert from "node:assert/strict";
import ts from "typescript";
import { DEFAULT_SKIPPED_DIRECTORIES, scanSourceTree } from "../../src/analyze/scan_source_tree.ts";
import type { SourceTreeScan } from "../../src/analyze/scan_source_tree.ts";
import { isPolicyError } from "../../src/public/policy_error.ts";

const TESTDATA = "tests/testdata/analyze";
const SAMPLE = `${TESTDATA}/sample-service`;
const EXPRESS = `${TESTDATA}/express-app`;

/** The scan as stored in `*.want.json`: warnings without their messages (text for people, not contract). */
function comparable(scan: SourceTreeScan) {
  return {
    filesScanned: scan.filesScanned,
    points: scan.points,
    warnings: scan.warnings.map(({ code, file, line, column }) => ({ code, file, line, column })),
  };
}

async function want(name: string) {
  return JSON.parse(await Deno.readTextFile(`${TESTDATA}/${name}.want.json`));
}

Deno.test("scanSourceTree() finds exactly the evaluation points of the sample service", async () => {
  const scan = await scanSourceTree(SAMPLE);
  assert.deepEqual(comparable(scan), await want("sample-service"));
});

Deno.test("scanSourceTree() finds exactly the evaluation points of a plain-JS CommonJS app", async () => {
  // Written after the parser, in another style: CommonJS, no semicolons, #private
  // fields, optional calls, JSX in .jsx, a generic middleware with run-time targets.
  const scan = await scanSourceTree(EXPRESS);
  assert.deepEqual(comparable(scan), await want("express-app"));
});

Deno.test("scanSourceTree() skips dependency, build, hidden and declaration files and symlinked folders", async () => {
  const scan = await scanSourceTree(SAMPLE);
  const files = new Set([...scan.points, ...scan.warnings].map((item) => item.file));
  for (const file of files) {
    assert.doesNotMatch(file, /^(node_modules|dist|coverage|\.hidden)\//);
    assert.doesNotMatch(file, /\.d\.ts$/);
    assert.doesNotMatch(file, /^src\/loop\//, "src/loop links to the root: not followed");
  }
  const services = new Set(scan.points.map((point) => point.target.service));
  for (const skipped of ["sdk", "dist", "coverage", "hidden", "declaration", "docs"]) {
    assert.equal(services.has(skipped), false, skipped);
  }
  assert.ok(DEFAULT_SKIPPED_DIRECTORIES.includes("node_modules"));
});

Deno.test("scanSourceTree() ignores evaluate-like text and Playwright calls in the fixture", async () => {
  const scan = await scanSourceTree(SAMPLE);
  const noisy = ["src/lib/not-evaluations.ts", "e2e/checkout.spec.ts"];
  assert.deepEqual(
    [...scan.points, ...scan.warnings].filter((item) => noisy.includes(item.file)),
    [],
  );
});

Deno.test("scanSourceTree() skips the folder names given in skipDirectories", async () => {
  const scan = await scanSourceTree(SAMPLE, { skipDirectories: ["legacy", "routes"] });
  assert.deepEqual(
    [...new Set(scan.points.map((point) => point.file))],
    ["src/jobs/cleanup.mjs", "src/server.ts", "src/ui/InvoiceButton.tsx"],
  );
  assert.deepEqual(scan.warnings, []);
});

Deno.test("scanSourceTree() scans a single file given as root, named by its base name", async () => {
  const scan = await scanSourceTree(`${SAMPLE}/src/legacy/worker.cjs`, { typescript: ts });
  assert.equal(scan.filesScanned, 1);
  assert.deepEqual(scan.points, [{
    target: { service: "reports", resource: "queue", action: "drain" },
    file: "worker.cjs",
    line: 8,
    column: 10,
  }]);
});

Deno.test("scanSourceTree() skips files over maxFileBytes with ANALYZE_FILE_TOO_LARGE", async () => {
  const scan = await scanSourceTree(`${SAMPLE}/src/legacy`, { maxFileBytes: 370, typescript: ts });
  assert.equal(scan.filesScanned, 1);
  assert.deepEqual(scan.points.map((point) => point.file), ["worker.cjs"]);
  assert.deepEqual(
    scan.warnings.map(({ code, file, line, column }) => [code, file, line, column]),
    [["ANALYZE_FILE_TOO_LARGE", "export-job.js", 1, 1]],
  );
  assert.match(scan.warnings[0]!.message, /over the limit of 370/);
});

Deno.test("scanSourceTree() rejects a root that does not exist with INVALID_OPTIONS", async () => {
  await assert.rejects(
    scanSourceTree(`${TESTDATA}/no-such-folder`, { typescript: ts }),
    (error: unknown) => {
      assert.ok(isPolicyError(error, "INVALID_OPTIONS"));
      assert.match(error.message, /no-such-folder/);
      return true;
    },
  );
});

Deno.test("scanSourceTree() gives the same result on every run", async () => {
  const first = await scanSourceTree(EXPRESS);
  const second = await scanSourceTree(EXPRESS, { typescript: ts });
  assert.equal(JSON.stringify(second), JSON.stringify(first));
});
