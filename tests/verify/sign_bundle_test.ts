import assert from "node:assert/strict";
import { canonicalPayloadBytes, computeDigest } from "../../src/engine/canonical_payload.ts";
import type { RuntimeBundleV1 } from "../../src/engine/types.ts";
import { signBundle } from "../../src/verify/sign_bundle.ts";
import { verifyPayload } from "../../src/verify/verify_payload.ts";
import { assertRejectsCode } from "../_assert_policy_error.ts";

const SECRET = "00ff11ee22dd33cc44bb55aa66997788aa55bb44cc33dd22ee11ff0000ff11ee";
const BUNDLE: RuntimeBundleV1 = JSON.parse(
  await Deno.readTextFile(new URL("../testdata/verify/bundle.json", import.meta.url)),
);

Deno.test("signBundle() sets the checksum of the canonical payload and an HMAC signature over it", async () => {
  const signed = await signBundle(BUNDLE, { algorithm: "HMAC_SHA256", key: SECRET, keyId: "ci" });
  assert.equal(signed.checksum, (await computeDigest(BUNDLE)).checksum);
  assert.deepEqual(Object.keys(signed.signature), ["algorithm", "keyId", "value"]);
  assert.equal(signed.signature.algorithm, "HMAC_SHA256");
  assert.equal(signed.signature.keyId, "ci");
  assert.ok(
    await verifyPayload(
      "HMAC_SHA256",
      SECRET,
      canonicalPayloadBytes(BUNDLE),
      signed.signature.value,
    ),
  );
});

Deno.test("signBundle() signs with an ECDSA P-256 key so that its public key verifies", async () => {
  const pair = await crypto.subtle.generateKey(
    { name: "ECDSA", namedCurve: "P-256" },
    false,
    ["sign", "verify"],
  );
  const signed = await signBundle(BUNDLE, {
    algorithm: "ECDSA_SHA_256",
    key: pair.privateKey,
    keyId: "release-2025",
  });
  assert.equal(signed.signature.algorithm, "ECDSA_SHA_256");
  assert.ok(
    await verifyPayload(
      "ECDSA_SHA_256",
      pair.publicKey,
      canonicalPayloadBytes(BUNDLE),
      signed.signature.value,
    ),
  );
});

Deno.test("signBundle() leaves its input untouched and returns an independent copy", async () => {
  const input = structuredClone(BUNDLE);
  const signed = await signBundle(input, { algorithm: "HMAC_SHA256", key: SECRET, keyId: "ci" });
  assert.deepEqual(input, BUNDLE);
  assert.notEqual(signed, input);
  signed.policies[0]!.rules[0]!.priority = 99;
  assert.equal(input.policies[0]!.rules[0]!.priority, 10);
  const { checksum: _checksum, signature: _signature, ...rest } = signed;
  rest.policies[0]!.rules[0]!.priority = 10;
  assert.deepEqual(rest, BUNDLE);
});

Deno.test("signBundle() replaces an existing checksum and signature", async () => {
  const stale = {
    ...BUNDLE,
    checksum: "sha256:" + "0".repeat(64),
    signature: { algorithm: "Ed25519", keyId: "old", value: "AAAA" },
  };
  const signed = await signBundle(stale, { algorithm: "HMAC_SHA256", key: SECRET, keyId: "new" });
  assert.equal(signed.checksum, (await computeDigest(BUNDLE)).checksum);
  assert.equal(signed.signature.algorithm, "HMAC_SHA256");
  assert.equal(signed.signature.keyId, "new");
});

Deno.test("signBundle() rejects an unsupported algorithm or an empty keyId with INVALID_OPTIONS", async () => {
  await assertRejectsCode(
    signBundle(BUNDLE, { algorithm: "Ed25519" as "HMAC_SHA256", key: SECRET, keyId: "k" }),
    "INVALID_OPTIONS",
  );
  await assertRejectsCode(
    signBundle(BUNDLE, { algorithm: "HMAC_SHA256", key: SECRET, keyId: "" }),
    "INVALID_OPTIONS",
  );
  await assertRejectsCode(
    signBundle(BUNDLE, { algorithm: "HMAC_SHA256", key: SECRET, keyId: 7 as unknown as string }),
    "INVALID_OPTIONS",
  );
});

Deno.test("signBundle() rejects a key that does not fit the algorithm with INVALID_KEY", async () => {
  await assertRejectsCode(
    signBundle(BUNDLE, { algorithm: "ECDSA_SHA_256", key: SECRET, keyId: "k" }),
    "INVALID_KEY",
  );
  await assertRejectsCode(
    signBundle(BUNDLE, { algorithm: "HMAC_SHA256", key: SECRET.slice(2), keyId: "k" }),
    "INVALID_KEY",
  );
});

Deno.test("signBundle() returns rules and defaults in canonical key order, the top level in its own", async () => {
  const signed = await signBundle(BUNDLE, { algorithm: "HMAC_SHA256", key: SECRET, keyId: "ci" });
  const sortedDeep = (value: unknown): boolean =>
    typeof value !== "object" || value === null ||
    (Array.isArray(value) ? value.every(sortedDeep) : (() => {
      const keys = Object.keys(value);
      return keys.every((k, i) => i === 0 || keys[i - 1]! < k) &&
        Object.values(value).every(sortedDeep);
    })());
  for (const policy of signed.policies) {
    assert.ok(sortedDeep(policy.rules) && sortedDeep(policy.defaults ?? null), policy.policyKey);
  }
  const { checksum: _c, signature: _s, ...rest } = signed;
  const unsigned = Object.keys(BUNDLE).filter((k) => k !== "checksum" && k !== "signature");
  assert.deepEqual(Object.keys(rest), unsigned);
  assert.deepEqual(await computeDigest(signed), await computeDigest(BUNDLE));
});
