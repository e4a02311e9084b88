// The escaped-key fixture (tests/testdata/escaped_keys/) through the npm build
// under Node: the same bytes give the same checksum and decision as under Deno
// (tests/hostile/escaped_keys_test.ts), the one an independent parser gives.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { test } from "node:test";
import { importPackage, root, scratch } from "./_package.mjs";

const data = join(root, "tests", "testdata", "escaped_keys");
const expected = JSON.parse(readFileSync(join(data, "expected.json"), "utf8"));
const target = { service: "billing", resource: "invoice", action: "create" };

test("loadBundle reads the escaped elseEffect with the independent checksum", async () => {
  const { createEvaluator, loadBundle } = await importPackage(".");
  const loaded = await loadBundle(readFileSync(join(data, "bundle.json")), { allowUnsigned: true });
  assert.equal(loaded.status.checksum, expected.checksum);
  const evaluate = createEvaluator(loaded.compiled);
  assert.equal(evaluate({ target, context: { plan: "pro" } }).ruleId, "free-only");
  assert.equal(evaluate({ target, context: { plan: "pro" } }).decision, "deny");
});

test("policy build of the escaped-key draft gives the independent checksum", (t) => {
  const folder = mkdtempSync(join(tmpdir(), "policy-node-escaped-"));
  t.after(() => rmSync(folder, { recursive: true, force: true }));
  copyFileSync(join(data, "draft.json"), join(folder, "policy-drafts.json"));
  const bin = join(
    scratch,
    "node_modules",
    ".bin",
    process.platform === "win32" ? "policy.cmd" : "policy",
  );
  const result = spawnSync(bin, ["build", "--format", "json"], {
    cwd: folder,
    encoding: "utf8",
    shell: process.platform === "win32",
    env: {
      ...process.env,
      HOME: folder,
      POLICY_HOME: join(folder, "home"),
      POLICY_WORKING_FOLDER: folder,
    },
  });
  assert.equal(result.status, 0, result.stderr);
  assert.equal(JSON.parse(result.stdout).checksum, expected.checksum);
});
