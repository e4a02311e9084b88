/**
 * Concurrent commands on one working folder, as real processes with the
 * `policy` task's permissions: none loses another's work (docs/cli.md,
 * "Writing files and concurrent commands").
 */
import assert from "node:assert/strict";
import { draftWith, rule, scratch } from "./_helpers.ts";
import { cliEnv, DENO, explainIgnored, runPolicy } from "../faults/_policy_process.ts";

explainIgnored("concurrent_commands_test");

Deno.test({
  name: "eight parallel 'policies add-rule' processes add eight rules; none is lost",
  ignore: DENO === null,
  fn: async () => {
    await using s = await scratch();
    await draftWith(s, []);
    const ids = Array.from({ length: 8 }, (_, i) => `rule-${i}`);
    for (const id of ids) await s.write(`rules/${id}.json`, rule(id));
    const env = cliEnv(s.home);
    const results = await Promise.all(
      ids.map((id) =>
        runPolicy([
          "policies",
          "add-rule",
          "--policy-key",
          "billing",
          "--rule-file",
          `rules/${id}.json`,
        ], {
          cwd: s.wf,
          env,
        })
      ),
    );
    for (const r of results) assert.equal(r.code, 0, r.stderr);
    const draft = await s.readJson("policy-drafts.json");
    const added = (draft.policies as { rules: { id: string }[] }[])[0]!.rules.map((r) => r.id);
    assert.deepEqual(added.sort(), ids);
  },
});

Deno.test({
  name: "parallel builds write successive bundleVersions",
  ignore: DENO === null,
  fn: async () => {
    await using s = await scratch();
    await s.fixture("draft.json", "policy-drafts.json");
    const env = cliEnv(s.home);
    const results = await Promise.all(
      [1, 2, 3, 4].map(() =>
        runPolicy(["build", "--format", "json"], { cwd: s.wf, env: { ...env, POLICY_LICENSE: "" } })
      ),
    );
    const versions = results.map((r) => {
      assert.equal(r.code, 0, r.stderr);
      return JSON.parse(r.stdout).bundleVersion as number;
    });
    assert.deepEqual(versions.sort(), [1, 2, 3, 4]);
    assert.equal((await s.readJson("policy-bundle.json")).bundleVersion, 4);
  },
});
