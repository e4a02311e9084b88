import assert from "node:assert/strict";
import * as path from "node:path";
import { assertError, assertShape, HMAC_SECRET, scratch } from "../_helpers.ts";

const SHAPE = {
  formatVersion: "number",
  path: "string",
  schemaVersion: "number",
  env: "string",
  orgId: "string|null",
  projectId: "string|null",
  bundleVersion: "number|null",
  generatedAt: "string|null",
  checksum: "string|null",
  policyCount: "number",
  ruleCount: "number",
  operators: "array",
  signature: "object|null",
  freshness: "object|null",
  policies: "array|null",
  verification: "object|null",
  warnings: "array",
};
const POLICY_SHAPE = {
  policyKey: "string",
  activeVersion: "number",
  defaults: "object|null",
  rules: "array",
};
const RULE_SHAPE = {
  id: "string",
  status: "string",
  priority: "number",
  target: "object",
  effect: "string",
  hasCondition: "boolean",
  when: "object|null",
  condition: "string|null",
  thenEffect: "string|null",
  elseEffect: "string|null",
  description: "string|null",
};
const VERIFICATION_SHAPE = {
  status: "string",
  algorithm: "string|null",
  keyId: "string|null",
  keySource: "string",
  code: "string|null",
  message: "string|null",
  freshness: "object|null",
};

async function signedBundle() {
  const s = await scratch();
  await s.fixture("draft.json", "policy-drafts.json");
  await s.run(["keys", "generate", "--algorithm", "ECDSA_SHA_256", "--out-dir", "keys"]);
  const built = await s.run([
    "build",
    "--signed",
    "--ecdsa-private-key",
    "keys/private-key.pem",
    "--signing-key-id",
    "k1",
    "--org-id",
    "acme",
    "--project-id",
    "shop",
  ]);
  assert.equal(built.code, 0, built.stderr);
  return s;
}

Deno.test("inspect shows metadata, policies and rules by default (and with --policies)", async () => {
  await using s = await signedBundle();
  const r = await s.json(["inspect"]);
  assert.equal(r.code, 0, r.stderr);
  assertShape(r.doc, SHAPE);
  assert.deepEqual(
    [
      r.doc.env,
      r.doc.orgId,
      r.doc.projectId,
      r.doc.bundleVersion,
      r.doc.policyCount,
      r.doc.ruleCount,
    ],
    ["prod", "acme", "shop", 1, 2, 5],
  );
  assert.deepEqual(r.doc.signature, { algorithm: "ECDSA_SHA_256", keyId: "k1" });
  assert.equal(r.doc.verification, null);
  const policies = r.doc.policies as Record<string, unknown>[];
  assertShape(policies[0], POLICY_SHAPE, "policy");
  const rules = policies[0]!.rules as Record<string, unknown>[];
  assertShape(rules[0], RULE_SHAPE, "rule");
  assert.deepEqual(
    rules.map((x) => [x.id, x.status, x.effect, x.hasCondition]),
    [["paid-plans", "active", "allow", true], ["free-plan-many-seats", "active", "deny", true], [
      "legacy",
      "disabled",
      "allow",
      false,
    ]],
  );
  // The condition tree as the bundle holds it, and in readable form.
  assert.deepEqual(rules[1]!.when, {
    op: "and",
    conditions: [
      { op: "eq", path: "plan", value: "free" },
      { op: "gt", path: "seats", value: 5 },
    ],
  });
  assert.deepEqual(rules.map((x) => x.condition), [
    'ctx.plan in ["pro", "enterprise"]',
    'plan == "free" and seats > 5',
    null,
  ]);
  // The operators the rules use, in the order of docs/bundle-format.md.
  assert.deepEqual(r.doc.operators, ["eq", "gt", "in", "and"]);
  const text = await s.run(["inspect", "--policies"]);
  assert.match(text.stdout, /\n {2}operators eq, gt, in, and\n/);
  assert.match(text.stdout, /policy billing\.invoice\.create \(active version 3, default deny\)/);
  assert.match(
    text.stdout,
    /rule free-plan-many-seats \[active\] priority 20 billing\/invoice\/create: when plan == "free" and seats > 5 then deny\n/,
  );
  assert.match(
    text.stdout,
    /rule eu-only \[active\] priority 5 search\/index\/export: when region == "eu" then allow else deny\n/,
  );
  assert.match(
    text.stdout,
    /rule per-tenant \[active\] priority 5 search\/index\/query: throttle \(100 per 60s by tenant\)/,
  );
});

Deno.test("inspect --signature prints status valid, algorithm and key id (key from --public-key, relative to cwd)", async () => {
  await using s = await signedBundle();
  const text = await s.run(
    ["inspect", "--signature", "-w", s.wf, "--public-key", "wf/keys/public-key.pem"],
    { cwd: s.root },
  );
  assert.equal(text.code, 0, text.stderr);
  assert.match(text.stdout, /signature: valid\n {2}algorithm: ECDSA_SHA_256\n {2}key id: +k1/);
  const r = await s.json(["inspect", "--signature", "--public-key", "keys/public-key.pem"]);
  assertShape(r.doc, SHAPE);
  assert.equal(r.doc.policies, null);
  assertShape(r.doc.verification, VERIFICATION_SHAPE, "verification");
  assert.deepEqual(r.doc.verification, {
    status: "valid",
    algorithm: "ECDSA_SHA_256",
    keyId: "k1",
    keySource: path.join(s.wf, "keys/public-key.pem"),
    code: null,
    message: null,
    freshness: null,
  });
});

Deno.test("inspect --signature reports a tampered bundle as invalid and exits 1", async () => {
  await using s = await signedBundle();
  const bundle = await s.readJson("policy-bundle.json");
  (bundle.policies as { activeVersion: number }[])[0]!.activeVersion = 4;
  delete bundle.checksum;
  await s.write("policy-bundle.json", bundle);
  const r = await s.json(["inspect", "--signature", "--public-key", "keys/public-key.pem"]);
  assert.equal(r.code, 1);
  const v = r.doc.verification as Record<string, unknown>;
  assert.deepEqual([v.status, v.code], ["invalid", "BUNDLE_SIGNATURE_INVALID"]);
  // With the checksum left in place, the checksum is what fails first.
  bundle.checksum = "sha256:" + "0".repeat(64);
  await s.write("policy-bundle.json", bundle);
  const checksum = await s.json(["inspect", "--signature", "--public-key", "keys/public-key.pem"]);
  assert.equal((checksum.doc.verification as { code: string }).code, "CHECKSUM_MISMATCH");
  const text = await s.run(["inspect", "--signature", "--public-key", "keys/public-key.pem"]);
  assert.match(text.stdout, /signature: invalid/);
});

Deno.test("inspect --signature reports an unsigned bundle and a key of the other algorithm as invalid", async () => {
  await using s = await signedBundle();
  const r = await s.json(["inspect", "--signature", "--algorithm", "HMAC_SHA256"], {
    env: { POLICY_PUBLIC_KEY: HMAC_SECRET },
  });
  assert.equal(r.code, 1);
  assert.equal(
    (r.doc.verification as { code: string }).code,
    "BUNDLE_SIGNATURE_ALGORITHM_MISMATCH",
  );
  assert.equal((await s.run(["build", "--unsigned"])).code, 0);
  const unsigned = await s.json(["inspect", "--signature", "--public-key", "keys/public-key.pem"]);
  assert.equal(unsigned.code, 1);
  assert.equal((unsigned.doc.verification as { code: string }).code, "BUNDLE_SIGNATURE_MISSING");
});

Deno.test("inspect --signature finds the key in POLICY_PUBLIC_KEY, POLICY_PUBLIC_KEY_PATH, then signature.publicKeyPath", async () => {
  await using s = await signedBundle();
  const pem = await s.read("keys/public-key.pem");
  const source = async (env: Record<string, string>, cwd?: string) => {
    const r = await s.json(["inspect", "--signature", "-w", s.wf], {
      env,
      ...(cwd ? { cwd } : {}),
    });
    assert.equal(r.code, 0, r.stderr);
    return (r.doc.verification as { keySource: string }).keySource;
  };
  await s.write("policy.config.json", { signature: { publicKeyPath: "keys/public-key.pem" } });
  assert.equal(await source({}), path.join(s.wf, "keys/public-key.pem"));
  assert.equal(
    await source({ POLICY_PUBLIC_KEY_PATH: "wf/keys/public-key.pem" }, s.root),
    path.join(s.wf, "keys/public-key.pem"),
  );
  assert.equal(
    await source({ POLICY_PUBLIC_KEY: pem, POLICY_PUBLIC_KEY_PATH: "nope.pem" }),
    "POLICY_PUBLIC_KEY",
  );
});

Deno.test("inspect --signature and simulate take several public keys (a rotation) from a key file, POLICY_PUBLIC_KEY or signature.publicKeyPath", async () => {
  await using s = await signedBundle();
  const current = await s.read("keys/public-key.pem");
  await s.run(["keys", "generate", "--algorithm", "ECDSA_SHA_256", "--out-dir", "next"]);
  const next = await s.read("next/public-key.pem");
  // Old key first: the bundle, signed with "k1", still verifies under the set.
  await s.write("keys/trusted.pem", `# retiring\n${next}\n# current\n${current}`);
  const fromFile = await s.json(["inspect", "--signature", "--public-key", "keys/trusted.pem"]);
  assert.equal(fromFile.code, 0, fromFile.stderr);
  assert.deepEqual(fromFile.doc.verification, {
    status: "valid",
    algorithm: "ECDSA_SHA_256",
    keyId: "k1",
    keySource: `${path.join(s.wf, "keys/trusted.pem")} (2 keys)`,
    code: null,
    message: null,
    freshness: null,
  });
  const fromEnv = await s.json(["inspect", "--signature"], {
    env: { POLICY_PUBLIC_KEY: `${next}${current}` },
  });
  assert.equal((fromEnv.doc.verification as { status: string }).status, "valid");
  await s.write("policy.config.json", { signature: { publicKeyPath: "keys/trusted.pem" } });
  const simulated = await s.json([
    "simulate",
    "--service",
    "billing",
    "--resource",
    "invoice",
    "--action",
    "create",
  ]);
  assert.equal(simulated.code, 0, simulated.stderr);
  assert.equal((simulated.doc.verification as { status: string }).status, "verified");
  // Only the next key: the signature's key id names no trusted key.
  const unknown = await s.json(["inspect", "--signature"], { env: { POLICY_PUBLIC_KEY: next } });
  assert.equal(unknown.code, 1);
  assert.equal(
    (unknown.doc.verification as { code: string }).code,
    "BUNDLE_SIGNATURE_INVALID",
    "the CLI's keys carry no key id, so a miss is a bad signature",
  );
  // At most 16 keys.
  assertError(
    await s.run(["inspect", "--signature"], {
      env: { POLICY_PUBLIC_KEY: Array(17).fill(current).join("") },
    }),
    2,
    "INVALID_KEY",
  );
});

Deno.test("inspect --signature verifies an HMAC bundle with the secret of the signing block", async () => {
  await using s = await scratch();
  await s.fixture("draft.json", "policy-drafts.json");
  await s.write("policy.config.json", {
    build: { signed: true, signing: { algorithm: "HMAC_SHA256", keyId: "h", hmacSecretEnv: "S" } },
  });
  const env = { S: HMAC_SECRET };
  assert.equal((await s.run(["build"], { env })).code, 0);
  const r = await s.json(["inspect", "--signature"], { env });
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(
    [
      (r.doc.verification as { status: string }).status,
      (r.doc.verification as { keySource: string }).keySource,
    ],
    ["valid", "environment variable S"],
  );
  assertError(await s.run(["inspect", "--signature"]), 2, "SIGNING_KEY_MISSING");
});

Deno.test("inspect --signature without any key exits 2; a private key given as public key exits 2", async () => {
  await using s = await signedBundle();
  assertError(await s.run(["inspect", "--signature"]), 2, "PUBLIC_KEY_MISSING");
  assertError(
    await s.run(["inspect", "--signature", "--public-key", "keys/private-key.pem"]),
    2,
    "INVALID_KEY",
  );
  assertError(
    await s.run(["inspect", "--signature", "--public-key", "keys/none.pem"]),
    2,
    "DOCUMENT_READ_ERROR",
  );
});

Deno.test("inspect refuses an invalid bundle (exit 1) and a missing one (exit 2)", async () => {
  await using s = await scratch();
  assertError(await s.run(["inspect"]), 2, "BUNDLE_READ_ERROR");
  await s.write("policy-bundle.json", { schemaVersion: 2, env: "prod", policies: [] });
  assertError(await s.run(["inspect"]), 1, "BUNDLE_INVALID");
});

Deno.test("inspect --signature falls back to POLICY_HMAC_SECRET when no other key is configured", async () => {
  await using s = await scratch();
  await s.fixture("draft.json", "policy-drafts.json");
  const env = { POLICY_HMAC_SECRET: HMAC_SECRET };
  const built = await s.run(
    ["build", "--signed", "--signing-algorithm", "HMAC_SHA256", "--signing-key-id", "h"],
    { env },
  );
  assert.equal(built.code, 0, built.stderr);
  const r = await s.json(["inspect", "--signature"], { env });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(
    (r.doc.verification as { keySource: string }).keySource,
    "environment variable POLICY_HMAC_SECRET",
  );
});

Deno.test("inspect lists the operators a bundle uses and names those an older runtime reads as false", async () => {
  await using s = await scratch();
  const target = { service: "s", resource: "r", action: "a" };
  const rule = (id: string, when: unknown) => ({
    id,
    status: "active",
    priority: 1,
    target,
    when,
    effect: { type: "allow" },
  });
  await s.write(
    "policy-bundle.json",
    JSON.stringify({
      schemaVersion: 1,
      env: "prod",
      policies: [{
        policyKey: "p",
        activeVersion: 1,
        rules: [
          rule("a", {
            op: "or",
            conditions: [
              { op: "rollout", path: "userId", salt: "s", to: 10 },
              { op: "not", arg: { op: "contains", path: "roles", value: "admin" } },
            ],
          }),
          rule("b", { op: "semver", path: "v", cmp: "gte", value: "1.0.0" }),
          rule("c", { op: "ne", path: "plan", value: "free" }),
        ],
      }],
    }),
  );
  const r = await s.json(["inspect"]);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(r.doc.operators, ["ne", "or", "not", "contains", "semver", "rollout"]);
  const text = await s.run(["inspect"]);
  assert.match(
    text.stdout,
    /\n {2}operators ne, or, not, contains, semver, rollout \(contains, semver, rollout added after the specification's: older runtimes read them as false\)\n/,
  );
});

Deno.test("inspect and sign before any build say to build, as simulate does", async () => {
  await using s = await scratch();
  await s.fixture("draft.json", "policy-drafts.json");
  const r = await s.run(["inspect"]);
  assertError(r, 2, "BUNDLE_READ_ERROR");
  assert.match(r.stderr, /no bundle has been built here yet: run 'policy build'/);
  // No --draft to offer: inspect and sign work on a built bundle only.
  assert.doesNotMatch(r.stderr, /--draft/);
  const signed = await s.run(
    ["sign", "--hmac-secret-env", "S", "--signing-key-id", "k"],
    { env: { S: HMAC_SECRET } },
  );
  assertError(signed, 2, "BUNDLE_READ_ERROR");
  assert.match(signed.stderr, /no bundle has been built here yet: run 'policy build'/);
  // In an empty folder: how to start a draft; a bundle named with --bundle gets no hint.
  await Deno.remove(path.join(s.wf, "policy-drafts.json"));
  assert.match((await s.run(["inspect"])).stderr, /policy policies add-rule/);
  const named = await s.run(["inspect", "--bundle", "elsewhere.json"]);
  assertError(named, 2, "BUNDLE_READ_ERROR");
  assert.doesNotMatch(named.stderr, /policy build/);
});
