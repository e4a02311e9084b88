/**
 * End to end: `cli.ts` as a child process, run with exactly the permissions
 * of the `policy` task in deno.json, so the task's flags are proven enough.
 * Needs `--allow-run` for the deno binary; skipped (with a printed reason)
 * without it.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { type RunResult, scratch } from "./_helpers.ts";
import { DENO, policyCommand, policyTaskFlags } from "../faults/_policy_process.ts";
import { DEFAULT_LICENSE_API_URL } from "../../src/license/mod.ts";
import { activationServer, ISSUER, json, TEST_LICENSE } from "../_license.ts";
import { LONG_OUTPUT_COMMANDS, wideBundle } from "../_wide_bundle.mjs";

const CLI = fileURLToPath(new URL("../../cli.ts", import.meta.url));
const denoJson = JSON.parse(await Deno.readTextFile(new URL("../../deno.json", import.meta.url)));

if (DENO === null) {
  console.log(
    "cli_e2e_test: skipped, run permission for the deno binary not granted (--allow-run=deno)",
  );
}

async function policy(
  args: string[],
  cwd: string,
  env: Record<string, string>,
  extraFlags: string[] = [],
): Promise<RunResult> {
  const output = await new Deno.Command(DENO!, {
    args: ["run", ...policyTaskFlags(), ...extraFlags, CLI, ...args],
    cwd,
    env: {
      NO_COLOR: "1",
      POLICY_WORKING_FOLDER: "",
      POLICY_PUBLIC_KEY: "",
      POLICY_PUBLIC_KEY_PATH: "",
      POLICY_HMAC_SECRET: "",
      POLICY_LICENSE: "",
      POLICY_LICENSE_FILE: "",
      POLICY_LICENSE_PUBLIC_KEY: "",
      POLICY_API_URL: "",
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

Deno.test("the policy task grants the loopback address, the browser openers and only the POLICY_* and home variables", () => {
  const flags = policyTaskFlags();
  assert.ok(flags.includes("--no-prompt"));
  assert.ok(!flags.some((f) => /^(-A|--allow-all|--allow-sys|--allow-ffi)/.test(f)));
  // policy playground listens on 127.0.0.1 only, and --open starts the system's browser.
  assert.deepEqual(flags.filter((f) => /^--allow-(net|run)/.test(f)), [
    "--allow-net=127.0.0.1",
    "--allow-run=xdg-open,open",
  ]);
  assert.deepEqual(flags.filter((f) => f.startsWith("--allow-env")), [
    "--allow-env=POLICY_*,HOME,USERPROFILE",
  ]);
  const shebang = Deno.readTextFileSync(CLI).split("\n")[0]!;
  // --unstable-bundle is the task's launcher's (tools/policy.ts bundles cli.ts), not the CLI's.
  assert.equal(
    shebang,
    `#!/usr/bin/env -S deno run ${flags.filter((f) => f !== "--unstable-bundle").join(" ")}`,
    "cli.ts shebang matches the task",
  );
});

Deno.test("the cli.ts shebang fits the 256 bytes the kernel reads of a first line", () => {
  const shebang = Deno.readTextFileSync(CLI).split("\n")[0]!;
  assert.ok(
    new TextEncoder().encode(shebang).length < 256,
    `the shebang is ${shebang.length} bytes: longer ones are cut and lose flags`,
  );
});

Deno.test("the policy:activate task is the policy task plus network access to the activation host only", () => {
  const words = (denoJson.tasks["policy:activate"] as string).split(/\s+/);
  const host = new URL(DEFAULT_LICENSE_API_URL).host;
  assert.deepEqual(words, [
    "deno",
    "run",
    ...policyTaskFlags(),
    `--allow-net=${host}`,
    "tools/policy.ts",
    "activate",
  ]);
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
      "--create",
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
    // Without its key, simulate evaluates a signed bundle and says it is unverified (the failed
    // expectation still exits 1); --strict refuses it, and the suite could not run (exit 2).
    const noKey = { POLICY_HMAC_SECRET: "" };
    const unverified = await run(["simulate", "--suite", "suite_failing.json"], noKey);
    assert.equal(unverified.code, 1);
    assert.match(unverified.stderr, /\(SIGNATURE_NOT_VERIFIED\)/);
    assert.match(
      unverified.stdout,
      /signature: unverified \(HMAC_SHA256, key id ci; no key configured\)/,
    );
    const strict = await run(["simulate", "--suite", "suite_failing.json", "--strict"], noKey);
    assert.equal(strict.code, 2);
    assert.match(strict.stderr, /BUNDLE_SIGNATURE_UNVERIFIED/);
    assert.match(strict.stderr, /hint: .*--skip-verify/);
    // The secret in POLICY_HMAC_SECRET (as inspect reads it), or inline in a public-key variable
    // with --algorithm HMAC_SHA256: verified, and the failed expectation exits 1.
    const failing = await run(["simulate", "--suite", "suite_failing.json"]);
    assert.equal(failing.code, 1);
    assert.match(failing.stdout, /signature: verified \(HMAC_SHA256, key id ci\)/);
    const inline = await run(
      ["simulate", "--suite", "suite_failing.json", "--algorithm", "HMAC_SHA256"],
      { POLICY_HMAC_SECRET: "", POLICY_PUBLIC_KEY: env.POLICY_HMAC_SECRET },
    );
    assert.equal(inline.code, 1);
    assert.match(inline.stdout, /signature: verified \(HMAC_SHA256, key id ci\)/);
    assert.match(inline.stdout, /expected: allow \(rule paid-plans\)\n {2}actual: +deny/);
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

Deno.test({
  name: "cli.ts analyze loads TypeScript under the task's permissions and writes the draft",
  ignore: DENO === null,
  fn: async () => {
    await using s = await scratch();
    await s.write(
      "src/invoices.ts",
      `export const create = (client: { evaluate(r: unknown): unknown }) =>
  client.evaluate({ target: { service: "billing", resource: "invoice", action: "create" } });
`,
    );
    const env = { POLICY_HOME: s.home };
    const written = await policy(["analyze", "--source", "src"], s.wf, env);
    assert.equal(written.code, 0, written.stderr);
    assert.equal(written.stderr, "");
    assert.match(written.stdout, /missing +billing\.invoice\.create/);
    assert.deepEqual(
      (JSON.parse(await s.read("policy-drafts.json")) as { policies: { policyKey: string }[] })
        .policies.map((p) => p.policyKey),
      ["billing.invoice.create"],
    );
    const again = await policy(["analyze"], s.wf, env);
    assert.equal(again.code, 2);
    assert.match(again.stderr, /DRAFT_EXISTS/);
    const check = await policy(["analyze", "--check", "--format", "json"], s.wf, env);
    assert.equal(check.code, 0, check.stderr);
    assert.equal(JSON.parse(check.stdout).passed, true);
  },
});

Deno.test({
  name:
    "cli.ts reads the licence variables and counts the grace period under the task's permissions",
  ignore: DENO === null,
  fn: async () => {
    await using s = await scratch();
    await s.fixture("draft.json", "policy-drafts.json");
    const licensed = await policy(["build"], s.wf, {
      POLICY_HOME: s.home,
      POLICY_LICENSE: TEST_LICENSE,
      POLICY_LICENSE_PUBLIC_KEY: ISSUER.publicKeyPem,
    });
    assert.equal(licensed.code, 0, licensed.stderr);
    assert.doesNotMatch(licensed.stderr, /LICENSE/);
    await s.write("licence.json", TEST_LICENSE);
    const fromFile = await policy(["build"], s.wf, {
      POLICY_HOME: s.home,
      POLICY_LICENSE_FILE: "licence.json",
      POLICY_LICENSE_PUBLIC_KEY: ISSUER.publicKeyPem,
    });
    assert.equal(fromFile.code, 0, fromFile.stderr);
    assert.doesNotMatch(fromFile.stderr, /LICENSE/);
    const grace = await policy(["build"], s.wf, { POLICY_HOME: s.home });
    assert.equal(grace.code, 0, grace.stderr);
    assert.match(
      grace.stderr,
      /warning: no toolkit licence: 30 days left .*\(LICENSE_GRACE_PERIOD\)/,
    );
    const state = JSON.parse(await Deno.readTextFile(`${s.home}/license-state.json`));
    assert.equal(typeof state.graceStartedAt, "string");
  },
});

Deno.test({
  name: "cli.ts activate: refused without network permission, works with --allow-net for the host",
  ignore: DENO === null,
  fn: async () => {
    await using s = await scratch();
    await using server = activationServer(() => json(JSON.parse(TEST_LICENSE)));
    // The policy task grants 127.0.0.1 (where policy playground listens): the stub is reached by
    // its other name, which the task does not grant.
    const url = server.url.replace("127.0.0.1", "localhost");
    const env = {
      POLICY_HOME: s.home,
      POLICY_API_URL: url,
      POLICY_LICENSE_PUBLIC_KEY: ISSUER.publicKeyPem,
    };
    const host = new URL(url).host;
    const denied = await policy(["activate", "--key", "K-1"], s.wf, env);
    assert.equal(denied.code, 2);
    assert.match(denied.stderr, new RegExp(`network access to ${host} is not permitted`));
    assert.match(denied.stderr, new RegExp(`add --allow-net=${host}`));
    assert.equal(server.requests.length, 0);
    // What the policy:activate task does for the real host, with the stub's host.
    const activated = await policy(["activate", "--key", "K-1"], s.wf, env, [
      `--allow-net=${host}`,
    ]);
    assert.equal(activated.code, 0, activated.stderr);
    assert.match(activated.stdout, /licence lic_test_0001 for Acme Corp activated/);
    const status = await policy(["activate", "--status", "--format", "json"], s.wf, env);
    assert.equal(JSON.parse(status.stdout).source, "stored");
  },
});

Deno.test({
  name: "cli.ts ends quietly when the reader of its output goes away (policy inspect | head -1)",
  ignore: DENO === null,
  fn: async () => {
    await using s = await scratch();
    await s.write("policy-bundle.json", wideBundle());
    for (const args of LONG_OUTPUT_COMMANDS) {
      const child = policyCommand(args, {
        cwd: s.wf,
        env: { POLICY_HOME: s.home, NO_COLOR: "1" },
      }).spawn();
      const reader = child.stdout.getReader();
      assert.ok((await reader.read()).value!.length > 0, "it starts printing");
      await reader.cancel(); // what head does after its first line
      const [status, stderr] = await Promise.all([
        child.status,
        new Response(child.stderr).text(),
      ]);
      assert.equal(status.code, 0, `${args[0]}: ${stderr}`);
      assert.equal(stderr, "", `${args[0]} prints no error and no stack trace`);
    }
  },
});
