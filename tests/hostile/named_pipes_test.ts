/**
 * Named pipes (and other files that are not regular) where a document is
 * expected: the CLI and the remote client's cache refuse them at once with a
 * coded error, and leave nothing pending that would keep the process alive
 * (opening a FIFO with no writer used to block forever). Each case runs in
 * a child process, so a hang fails the test instead of the test run.
 */
import { makeTempDir } from "../temp_dir.ts";
import assert from "node:assert/strict";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { symlink } from "../clients/_helpers.ts";
import { GRACE_STATE_FILE } from "../../src/cli/kit/license.ts";
import { cliEnv, DENO, explainIgnored, runDeno, runPolicy } from "../faults/_policy_process.ts";
import { HANG_BOUND_MS } from "../_hang_bound.ts";

explainIgnored("tests/hostile/named_pipes_test.ts");
const MKFIFO = Deno.permissions.querySync({ name: "run", command: "mkfifo" }).state === "granted";
if (!MKFIFO) console.log("tests/hostile/named_pipes_test.ts: skipped, needs --allow-run=mkfifo");
const ignore = DENO === null || !MKFIFO;

async function mkfifo(file: string): Promise<void> {
  const { code } = await new Deno.Command("mkfifo", { args: [file] }).output();
  assert.equal(code, 0, `mkfifo ${file}`);
}

Deno.test({
  name:
    "policy refuses a named pipe as bundle, draft, rule file, suite, config, public key, licence or grace record, at once with a coded error",
  ignore,
  fn: async () => {
    const { dir, remove } = await makeTempDir("fifo-");
    try {
      const pipe = path.join(dir, "pipe");
      await mkfifo(pipe);
      const home = path.join(dir, "home");
      await Deno.mkdir(home);
      const valid = path.join(dir, "bundle.json");
      await Deno.writeTextFile(valid, '{"schemaVersion":1,"env":"prod","policies":[]}');
      const graceHome = path.join(dir, "grace-home");
      await Deno.mkdir(graceHome);
      await symlink(pipe, path.join(graceHome, GRACE_STATE_FILE));
      const cases: { args: string[]; env?: Record<string, string>; bundle?: string }[] = [
        { args: ["validate", pipe] },
        { args: ["validate"] },
        { args: ["inspect", "--policies"] },
        { args: ["policies", "add-rule", "--policy-key", "p", "--rule-file", valid] },
        { args: ["simulate", "--suite", pipe] },
        { args: ["validate", valid, "--config", pipe] },
        { args: ["inspect", "--signature", "--public-key", pipe], bundle: valid },
        { args: ["build"], env: { POLICY_LICENSE: "", POLICY_LICENSE_FILE: pipe } },
        { args: ["build"], env: { POLICY_LICENSE: "", POLICY_HOME: graceHome } },
      ];
      for (const [i, { args, env, bundle }] of cases.entries()) {
        // The working folder's bundle and draft are the pipe, so every command meets one.
        const wf = path.join(dir, `wf-${i}`);
        await Deno.mkdir(wf);
        await symlink(bundle ?? pipe, path.join(wf, "policy-bundle.json"));
        await symlink(pipe, path.join(wf, "policy-drafts.json"));
        const result = await runPolicy([...args, "--format", "json"], {
          cwd: wf,
          env: cliEnv(home, { POLICY_WORKING_FOLDER: wf, ...env }),
          seconds: 30,
        });
        const where = `policy ${args.join(" ")}: ${result.stdout} ${result.stderr}`;
        assert.equal(result.code, 2, where);
        const { error } = JSON.parse(result.stdout);
        assert.ok(["DOCUMENT_READ_ERROR", "BUNDLE_READ_ERROR"].includes(error.code), where);
        assert.match(error.message, /not a regular file/, where);
      }
    } finally {
      await remove();
    }
  },
});

Deno.test({
  name:
    "a remote client whose cachePath is a named pipe rejects at start-up, and the process exits by itself",
  ignore,
  fn: async () => {
    const { dir, remove } = await makeTempDir("fifo-");
    try {
      const pipe = path.join(dir, "cache");
      await mkfifo(pipe);
      const child = fileURLToPath(new URL("./_fifo_cache_child.ts", import.meta.url));
      // runDeno fails the test as a hang if the child does not exit by itself.
      const output = await runDeno(
        ["run", "--no-prompt", `--allow-read=${pipe}`, "--allow-net=127.0.0.1", child, pipe],
        { seconds: 30 },
      );
      const report = JSON.parse(output.stdout);
      assert.equal(output.code, 0, output.stderr);
      assert.equal(report.code, "REMOTE_UNAVAILABLE");
      assert.match(report.message, /cache file .* not a regular file/);
      assert.ok(report.ms < HANG_BOUND_MS, `rejected after ${report.ms} ms`);
    } finally {
      await remove();
    }
  },
});
