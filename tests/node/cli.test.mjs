// The `policy` bin of the npm build, run under Node as npm installs it
// (node_modules/.bin/policy).
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { test } from "node:test";
import { root, scratch } from "./_package.mjs";
import { LONG_OUTPUT_COMMANDS, wideBundle } from "../_wide_bundle.mjs";

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

test("policy --help prints the usage and exits 0", (t) => {
  const { status, stdout, stderr } = policy(t, "--help");
  assert.equal(status, 0, stderr);
  assert.match(stdout, /Usage: policy/);
});

test("policy <unknown command> exits 2 with the error on stderr", (t) => {
  const { status, stderr } = policy(t, "no-such-command");
  assert.equal(status, 2);
  assert.match(stderr, /no-such-command/);
});

test("policy validate --format json: 0 for a valid bundle, 1 for an invalid one", (t) => {
  const valid = policy(t, "validate", join(root, "examples", "bundle.json"), "--format", "json");
  assert.equal(valid.status, 0, valid.stderr);
  assert.equal(JSON.parse(valid.stdout).valid, true);

  const invalidPath = join(valid.home, "invalid.json");
  writeFileSync(invalidPath, JSON.stringify({ schemaVersion: 1, env: "prod" }));
  const invalid = policy(t, "validate", invalidPath, "--format", "json");
  assert.equal(invalid.status, 1, invalid.stderr);
  assert.equal(JSON.parse(invalid.stdout).valid, false);
});

test(
  "policy analyze without the optional typescript peer exits 2 with TYPESCRIPT_UNAVAILABLE",
  {},
  () => {
    // Recorded by run.mjs right after installing the package alone, before typescript.
    const record = JSON.parse(
      readFileSync(join(scratch, "analyze-without-typescript.json"), "utf8"),
    );
    assert.equal(record.status, 2, record.stderr);
    assert.equal(JSON.parse(record.stdout).error.code, "TYPESCRIPT_UNAVAILABLE");
    assert.match(record.stderr, /npm install --save-dev typescript/);
  },
);

/** The installed bin, spawned (not waited for) in `folder`. */
function spawnPolicy(folder, args) {
  const bin = join(scratch, "node_modules", ".bin", "policy");
  return spawn(bin, ["-w", folder, ...args], {
    cwd: folder,
    env: { ...process.env, HOME: folder, USERPROFILE: folder, POLICY_HOME: folder },
    stdio: ["ignore", "pipe", "pipe"],
  });
}

/** Exit code and stderr of a spawned child. */
function finished(child) {
  let stderr = "";
  child.stderr.on("data", (chunk) => (stderr += chunk));
  return new Promise((resolve) =>
    child.on("close", (status, signal) => resolve({ status, signal, stderr }))
  );
}

test(
  "policy inspect | head -1 under Node: a closed stdout ends the output quietly",
  async (t) => {
    const folder = mkdtempSync(join(tmpdir(), "policy-node-epipe-"));
    t.after(() => rmSync(folder, { recursive: true, force: true }));
    writeFileSync(join(folder, "policy-bundle.json"), JSON.stringify(wideBundle()));
    for (const args of LONG_OUTPUT_COMMANDS) {
      const child = spawnPolicy(folder, args);
      const done = finished(child);
      await once(child.stdout, "data"); // the first line is there …
      child.stdout.destroy(); // … and the reader goes away, as head does
      const { status, signal, stderr } = await done;
      assert.equal(signal, null);
      assert.equal(status, 0, stderr);
      assert.equal(stderr, "", `${args[0]} prints no error and no stack trace`);
    }
  },
);

test(
  "parallel policies add-rule under Node lose nothing (the working folder's lock)",
  async (t) => {
    const folder = mkdtempSync(join(tmpdir(), "policy-node-lock-"));
    t.after(() => rmSync(folder, { recursive: true, force: true }));
    const run = (args) => finished(spawnPolicy(folder, args));
    assert.equal((await run(["working-folder", "init"])).status, 0);
    assert.equal(
      (await run([
        "policies",
        "update-policy",
        "--create",
        "--policy-key",
        "b",
        "--defaults-effect",
        "deny",
      ]))
        .status,
      0,
    );
    const ids = Array.from({ length: 6 }, (_, i) => `rule-${i}`);
    for (const id of ids) {
      writeFileSync(
        join(folder, `${id}.json`),
        JSON.stringify({
          id,
          status: "active",
          priority: 1,
          target: { service: "s", resource: "r", action: "a" },
          effect: { type: "allow" },
        }),
      );
    }
    const results = await Promise.all(
      ids.map((id) =>
        run(["policies", "add-rule", "--policy-key", "b", "--rule-file", `${id}.json`])
      ),
    );
    for (const r of results) assert.equal(r.status, 0, r.stderr);
    const draft = JSON.parse(readFileSync(join(folder, "policy-drafts.json"), "utf8"));
    assert.deepEqual(draft.policies[0].rules.map((r) => r.id).sort(), ids);
  },
);

test(
  "under Node, a lock whose process is gone is taken over without waiting for it to age",
  {},
  async (t) => {
    const folder = mkdtempSync(join(tmpdir(), "policy-node-stale-"));
    t.after(() => rmSync(folder, { recursive: true, force: true }));
    const gone = spawnSync(process.execPath, ["-e", ""]).pid; // a process that has ended
    const lock = join(folder, ".policy.lock");
    writeFileSync(
      lock,
      JSON.stringify({
        pid: gone,
        command: "build",
        token: "0",
        since: "2026-01-01",
        flock: false,
      }),
    );
    const recent = new Date(Date.now() - 3_000); // touched 3 s ago: not yet stale by age (10 s)
    utimesSync(lock, recent, recent);
    const r = await finished(spawnPolicy(folder, ["working-folder", "init"]));
    assert.equal(r.status, 0, r.stderr);
    // A lock taken over by age (10 s untouched) is first waited for, and the command says so; one
    // whose process is gone is taken over at the first look. Read from what the command printed,
    // not from how long it took: a loaded machine can take 7 s to start Node.
    assert.doesNotMatch(
      r.stderr,
      /waiting for/,
      "taken over because its process is gone, not by age",
    );
    assert.equal(existsSync(lock), false, "released");
  },
);
