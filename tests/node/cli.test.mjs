// The `policy` bin of the npm build, run under Node as npm installs it
// (node_modules/.bin/policy). Skipped, saying why, while the build has no
// CLI (cli.ts comes from its own branch).
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { test } from "node:test";
import { manifest, root, scratch } from "./_package.mjs";

const skip = manifest.bin?.policy
  ? undefined
  : "the npm build has no policy bin yet (cli.ts is not merged)";

/** Runs the installed bin with a private working folder and home. */
function policy(t, ...args) {
  const home = mkdtempSync(join(tmpdir(), "policy-node-cli-"));
  t.after(() => rmSync(home, { recursive: true, force: true }));
  const bin = join(
    scratch,
    "node_modules",
    ".bin",
    process.platform === "win32" ? "policy.cmd" : "policy",
  );
  const result = spawnSync(bin, args, {
    cwd: home,
    encoding: "utf8",
    shell: process.platform === "win32",
    env: { ...process.env, HOME: home, USERPROFILE: home, POLICY_WORKING_FOLDER: home },
  });
  return { ...result, home };
}

test("policy --help prints the usage and exits 0", { skip }, (t) => {
  const { status, stdout, stderr } = policy(t, "--help");
  assert.equal(status, 0, stderr);
  assert.match(stdout, /Usage: policy/);
});

test("policy <unknown command> exits 2 with the error on stderr", { skip }, (t) => {
  const { status, stderr } = policy(t, "no-such-command");
  assert.equal(status, 2);
  assert.match(stderr, /no-such-command/);
});

test("policy validate --format json: 0 for a valid bundle, 1 for an invalid one", { skip }, (t) => {
  const valid = policy(t, "validate", join(root, "examples", "bundle.json"), "--format", "json");
  assert.equal(valid.status, 0, valid.stderr);
  assert.equal(JSON.parse(valid.stdout).valid, true);

  const invalidPath = join(valid.home, "invalid.json");
  writeFileSync(invalidPath, JSON.stringify({ schemaVersion: 1, env: "prod" }));
  const invalid = policy(t, "validate", invalidPath, "--format", "json");
  assert.equal(invalid.status, 1, invalid.stderr);
  assert.equal(JSON.parse(invalid.stdout).valid, false);
});

test("policy analyze without the optional typescript peer exits 2 with TYPESCRIPT_UNAVAILABLE", {
  skip,
}, () => {
  // Recorded by run.mjs right after installing the package alone, before typescript.
  const record = JSON.parse(
    readFileSync(join(scratch, "analyze-without-typescript.json"), "utf8"),
  );
  assert.equal(record.status, 2, record.stderr);
  assert.equal(JSON.parse(record.stdout).error.code, "TYPESCRIPT_UNAVAILABLE");
  assert.match(record.stderr, /npm install --save-dev typescript/);
});
