/**
 * End to end: `cli.ts` as a child process, run with exactly the permissions
 * of the `policy` task in deno.json, so the task's flags are proven enough.
 * Needs `--allow-run` for the deno binary; skipped (with a printed reason)
 * without it.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { type RunResult, scratch } from "./_helpers.ts";
import { denoCommand } from "../_deno_command.ts";

const CLI = fileURLToPath(new URL("../../cli.ts", import.meta.url));
const denoJson = JSON.parse(await Deno.readTextFile(new URL("../../deno.json", import.meta.url)));
const TASK: string = denoJson.tasks.policy;

const DENO = denoCommand();
if (DENO === null) {
  console.log(
    "cli_e2e_test: skipped, run permission for the deno binary not granted (--allow-run=deno)",
  );
}

/** The task's `deno run` flags: everything between `deno run` and `cli.ts`. */
function taskFlags(): string[] {
  const words = TASK.split(/\s+/);
  assert.deepEqual(words.slice(0, 2), ["deno", "run"]);
  assert.equal(words.at(-1), "cli.ts");
  return words.slice(2, -1);
}

async function policy(
  args: string[],
  cwd: string,
  env: Record<string, string>,
): Promise<RunResult> {
  const output = await new Deno.Command(DENO!, {
    args: ["run", ...taskFlags(), CLI, ...args],
    cwd,
    env: {
      NO_COLOR: "1",
      POLICY_WORKING_FOLDER: "",
      POLICY_PUBLIC_KEY: "",
      POLICY_PUBLIC_KEY_PATH: "",
      POLICY_HMAC_SECRET: "",
      ...env,
    },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decoder = new TextDecoder();
  return {
    code: output.code,
    stdout: decoder.decode(output.stdout),
    stderr: decoder.decode(output.stderr),
  };
}

Deno.test("the policy task grants no network, no run and only the named environment variables", () => {
  const flags = taskFlags();
  assert.ok(flags.includes("--no-prompt"));
  assert.ok(
    !flags.some((f) => /^(-A|--allow-all|--allow-net|--allow-run|--allow-sys|--allow-ffi)/.test(f)),
  );
  assert.ok(flags.some((f) => f.startsWith("--allow-env=")));
  const shebang = Deno.readTextFileSync(CLI).split("\n")[0]!;
  assert.equal(
    shebang,
    `#!/usr/bin/env -S deno run ${flags.join(" ")}`,
    "cli.ts shebang matches the task",
  );
});

Deno.test({
  name: "cli.ts walks from an empty folder to a signed bundle and a passing simulation suite",
  ignore: DENO === null,
  fn: async () => {
    await using s = await scratch();
    await s.write("rules/paid-plans.json", {
      id: "paid-plans",
      status: "active",
      priority: 10,
      target: { service: "billing", resource: "invoice", action: "create" },
      when: { op: "in", path: "ctx.plan", values: ["pro", "enterprise"] },
      effect: { type: "allow" },
    });
    const env = { POLICY_HOME: s.home };
    const step = async (args: string[]) => {
      const result = await policy(args, s.root, env);
      assert.equal(result.code, 0, `policy ${args.join(" ")}\n${result.stderr}`);
      return result;
    };
    await step(["working-folder", "set", "wf"]);
    await step(["working-folder", "init"]);
    await step([
      "policies",
      "update-policy",
      "--policy-key",
      "billing.invoice.create",
      "--defaults-effect",
      "deny",
    ]);
    await step([
      "policies",
      "add-rule",
      "--policy-key",
      "billing.invoice.create",
      "--rule-file",
      "rules/paid-plans.json",
    ]);
    await step(["validate", "--strict"]);
    await step(["keys", "generate", "--algorithm", "ECDSA_SHA_256", "--out-dir", "keys"]);
    const built = await step([
      "build",
      "--signed",
      "--ecdsa-private-key",
      "keys/private-key.pem",
      "--signing-key-id",
      "release-1",
      "--org-id",
      "acme",
      "--project-id",
      "storefront",
      "--format",
      "json",
    ]);
    assert.deepEqual(JSON.parse(built.stdout).signature, {
      algorithm: "ECDSA_SHA_256",
      keyId: "release-1",
    });
    const inspected = await step([
      "inspect",
      "--signature",
      "--public-key",
      "wf/keys/public-key.pem",
    ]);
    assert.match(inspected.stdout, /signature: valid/);
    await s.write("tests/walk.json", {
      name: "walk",
      scenarios: [
        {
          name: "pro may create invoices",
          target: { service: "billing", resource: "invoice", action: "create" },
          context: { plan: "pro" },
          expected: { decision: "allow", ruleId: "paid-plans" },
        },
        {
          name: "free falls back to deny",
          target: { service: "billing", resource: "invoice", action: "create" },
          context: { plan: "free" },
          expected: { decision: "deny", reason: "default" },
        },
      ],
    });
    const simulated = await policy(["simulate", "--suite", "tests/walk.json"], s.root, {
      ...env,
      POLICY_PUBLIC_KEY_PATH: "wf/keys/public-key.pem",
    });
    assert.equal(simulated.code, 0, simulated.stderr);
    assert.match(simulated.stdout, /signature: verified \(ECDSA_SHA_256, key id release-1\)/);
    assert.match(simulated.stdout, /scenarios 2, passed 2, failed 0/);
  },
});

Deno.test({
  name: "cli.ts exit codes: 1 for a failed check, 2 for usage and configuration errors",
  ignore: DENO === null,
  fn: async () => {
    await using s = await scratch();
    await s.fixture("draft.json", "policy-drafts.json");
    await s.fixture("suite_failing.json");
    const env = { POLICY_HOME: s.home, POLICY_HMAC_SECRET: "ab".repeat(32) };
    const run = (args: string[], extra: Record<string, string> = {}) =>
      policy(args, s.wf, { ...env, ...extra });
    const built = await run([
      "build",
      "--signed",
      "--signing-algorithm",
      "HMAC_SHA256",
      "--signing-key-id",
      "ci",
    ]);
    assert.equal(built.code, 0, built.stderr);
    const failing = await run(["simulate", "--suite", "suite_failing.json"]);
    assert.equal(failing.code, 1);
    assert.match(failing.stdout, /expected: allow \(rule paid-plans\)\n {2}actual: +deny/);
    const unknown = await run(["bulid", "--format", "json"]);
    assert.equal(unknown.code, 2);
    assert.equal(JSON.parse(unknown.stdout).error.code, "USAGE_ERROR");
    assert.equal((await run(["validate", "--config", "missing.json"])).code, 2);
    // A secret variable outside the task's --allow-env list is a clear configuration error.
    const other = await run([
      "build",
      "--signed",
      "--hmac-secret-env",
      "OTHER_SECRET",
      "--signing-key-id",
      "k",
    ], {
      OTHER_SECRET: "ab".repeat(32),
    });
    assert.equal(other.code, 2);
    assert.match(other.stderr, /ENV_NOT_PERMITTED/);
    assert.match(other.stderr, /add OTHER_SECRET to --allow-env/);
  },
});
