import assert from "node:assert/strict";
import type { RuntimeBundleV1 } from "../../../src/engine/types.ts";
import { verifyBundleSignature } from "../../../src/verify/mod.ts";
import { assertError, assertShape, HMAC_SECRET, scratch } from "../_helpers.ts";
import { generateSec1Key } from "../../_openssl.ts";

const SHAPE = {
  formatVersion: "number",
  path: "string",
  schemaVersion: "number",
  env: "string",
  bundleVersion: "number|null",
  checksum: "string",
  etag: "string",
  signature: "object",
  replacedSignature: "object|null",
  freshness: "object|null",
  freshnessIssued: "boolean",
  warnings: "array",
};

Deno.test("sign signs the configured bundle in place from the sign.signing block", async () => {
  await using s = await scratch();
  await s.fixture("draft.json", "policy-drafts.json");
  await s.run(["build"]);
  const before = await s.readJson("policy-bundle.json");
  await s.write("policy.config.json", {
    sign: { signing: { algorithm: "HMAC_SHA256", keyId: "release", hmacSecretEnv: "SIGN_SECRET" } },
  });
  const r = await s.json(["sign"], { env: { SIGN_SECRET: HMAC_SECRET } });
  assert.equal(r.code, 0, r.stderr);
  assertShape(r.doc, SHAPE);
  assert.deepEqual(r.doc.signature, { algorithm: "HMAC_SHA256", keyId: "release" });
  assert.equal(r.doc.replacedSignature, null);
  const after = await s.readJson("policy-bundle.json") as unknown as RuntimeBundleV1;
  assert.deepEqual(Object.keys(after), [...Object.keys(before), "signature"]);
  assert.equal(after.bundleVersion, before.bundleVersion);
  assert.equal(after.generatedAt, before.generatedAt);
  assert.equal(
    (await verifyBundleSignature(after, {
      verify: { algorithm: "HMAC_SHA256", publicKey: HMAC_SECRET },
    })).status,
    "verified",
  );
});

Deno.test("sign replaces a previous signature and takes flags over the blocks", async () => {
  await using s = await scratch();
  await s.fixture("draft.json", "policy-drafts.json");
  await s.run(["build"]);
  await s.run(["keys", "generate", "--algorithm", "ECDSA_SHA_256", "--out-dir", "keys"]);
  await s.write("policy.config.json", {
    build: { signing: { algorithm: "ECDSA_SHA_256", ecdsaPrivateKeyPath: "keys/private-key.pem" } },
    sign: { signing: { keyId: "from-sign-block" } },
  });
  const first = await s.json(["sign"]);
  assert.equal(first.code, 0, first.stderr);
  assert.deepEqual(first.doc.signature, { algorithm: "ECDSA_SHA_256", keyId: "from-sign-block" });
  const second = await s.json(
    [
      "sign",
      "--signing-algorithm",
      "HMAC_SHA256",
      "--hmac-secret-env",
      "S",
      "--signing-key-id",
      "h",
    ],
    { env: { S: HMAC_SECRET } },
  );
  assert.equal(second.code, 0, second.stderr);
  assert.deepEqual(second.doc.replacedSignature, {
    algorithm: "ECDSA_SHA_256",
    keyId: "from-sign-block",
  });
  assert.deepEqual(second.doc.signature, { algorithm: "HMAC_SHA256", keyId: "h" });
});

Deno.test("sign refuses a bundle whose checksum does not match (altered after build)", async () => {
  await using s = await scratch();
  await s.fixture("draft.json", "policy-drafts.json");
  await s.run(["build"]);
  const bundle = await s.readJson("policy-bundle.json");
  bundle.env = "dev";
  await s.write("policy-bundle.json", bundle);
  const before = await s.read("policy-bundle.json");
  const r = await s.run(["sign", "--hmac-secret-env", "S", "--signing-key-id", "k"], {
    env: { S: HMAC_SECRET },
  });
  assertError(r, 1, "CHECKSUM_MISMATCH");
  assert.equal(await s.read("policy-bundle.json"), before);
});

Deno.test("sign refuses a missing or invalid bundle and missing signing settings", async () => {
  await using s = await scratch();
  const env = { S: HMAC_SECRET };
  const args = ["sign", "--hmac-secret-env", "S", "--signing-key-id", "k"];
  assertError(await s.run(args, { env }), 2, "BUNDLE_READ_ERROR");
  await s.write("other.json", { schemaVersion: 1, env: "prod" });
  assertError(await s.run([...args, "--bundle", "other.json"], { env }), 1, "BUNDLE_INVALID");
  await s.write("policy-bundle.json", { schemaVersion: 1, env: "prod", policies: [] });
  assertError(await s.run(["sign"], { env }), 2, "USAGE_ERROR");
});

Deno.test("sign writes rules in canonical key order, whatever order the file had", async () => {
  await using s = await scratch();
  await s.fixture("draft.json", "policy-drafts.json");
  await s.run(["build"]);
  const built = await s.readJson("policy-bundle.json") as unknown as RuntimeBundleV1;
  const reversed = (value: unknown): unknown =>
    typeof value !== "object" || value === null
      ? value
      : Array.isArray(value)
      ? value.map(reversed)
      : Object.fromEntries(
        Object.keys(value).reverse().map((
          k,
        ) => [k, reversed((value as Record<string, unknown>)[k])]),
      );
  const policies = built.policies.map((p) => ({ ...p, rules: reversed(p.rules) }));
  await s.write("policy-bundle.json", { ...built, policies });
  await s.write("policy.config.json", {
    sign: { signing: { algorithm: "HMAC_SHA256", keyId: "release", hmacSecretEnv: "SIGN_SECRET" } },
  });
  const r = await s.json(["sign"], { env: { SIGN_SECRET: HMAC_SECRET } });
  assert.equal(r.code, 0, r.stderr);
  const after = await s.readJson("policy-bundle.json") as unknown as RuntimeBundleV1;
  const rule = after.policies[0]!.rules[0]! as unknown as Record<string, unknown>;
  assert.deepEqual(Object.keys(rule), Object.keys(rule).sort());
  assert.equal(after.checksum, built.checksum);
});

Deno.test("sign with a SEC1 key and no public key says the self-check was skipped, in text and JSON", async () => {
  await using s = await scratch();
  await s.fixture("draft.json", "policy-drafts.json");
  assert.equal((await s.run(["build"])).code, 0);
  await s.write("sec1.pem", await generateSec1Key());
  const r = await s.json(["sign", "--ecdsa-private-key", "sec1.pem", "--signing-key-id", "k"]);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual((r.doc.warnings as { code: string }[]).map((w) => w.code), [
    "PARITY_SIGNATURE_SKIPPED",
  ]);
  assert.match(r.stderr, /warning: the new signature was not checked/);
});
