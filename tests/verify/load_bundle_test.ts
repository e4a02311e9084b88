import assert from "node:assert/strict";
import { inspectBundle, loadBundle, type RuntimeBundleV1, signBundle } from "../../mod.ts";
import { generateHmacSecret, generateSec1Key, publicKeyOf } from "../_openssl.ts";
import { assertRejectsCode } from "../_assert_policy_error.ts";

const example: RuntimeBundleV1 = JSON.parse(
  Deno.readTextFileSync(new URL("../../examples/bundle.json", import.meta.url)),
);
const text = (value: unknown) => JSON.stringify(value, null, 2);

const hmacSecret = await generateHmacSecret();
const ecPrivate = await generateSec1Key();
const ecPublic = await publicKeyOf(ecPrivate);
const hmacSigned = await signBundle(example, {
  algorithm: "HMAC_SHA256",
  key: hmacSecret,
  keyId: "hmac-1",
});
const ecdsaSigned = await signBundle(example, {
  algorithm: "ECDSA_SHA_256",
  key: ecPrivate,
  keyId: "ec-1",
});
const hmacKey = { verify: { algorithm: "HMAC_SHA256" as const, publicKey: hmacSecret } };
const ecKey = {
  verify: { algorithm: "ECDSA_SHA_256" as const, publicKey: ecPublic, keyId: "ec-1" },
};

Deno.test("loadBundle() verifies an ECDSA bundle and reports its status", async () => {
  const loaded = await loadBundle(text(ecdsaSigned), ecKey);
  assert.deepEqual(loaded.status, {
    bundleVersion: 1,
    checksum: ecdsaSigned.checksum,
    etag: `"${ecdsaSigned.checksum.slice(7)}"`,
    env: "prod",
    signature: { status: "verified", algorithm: "ECDSA_SHA_256", keyId: "ec-1" },
    freshness: null,
    policies: 3,
  });
  assert.equal(loaded.compiled.policyCount, 3);
  assert.deepEqual(loaded.warnings, []);
});

Deno.test("loadBundle() verifies an HMAC bundle from bytes", async () => {
  const loaded = await loadBundle(new TextEncoder().encode(text(hmacSigned)), hmacKey);
  // The key was configured without a key id: the one the signature records is only claimed.
  assert.deepEqual(loaded.status.signature, {
    status: "verified",
    algorithm: "HMAC_SHA256",
    keyId: "hmac-1",
  });
});

Deno.test("loadBundle() gives the four verification states of docs/errors.md", async () => {
  const unsigned = text(example);
  // unsigned: no signature, no key, allowUnsigned.
  assert.equal(
    (await loadBundle(unsigned, { allowUnsigned: true })).status.signature.status,
    "unsigned",
  );
  assert.equal((await loadBundle(unsigned, { allowUnsigned: true })).status.bundleVersion, 1);
  // BUNDLE_UNSIGNED: no signature, no key, allowUnsigned not set (or false).
  await assertRejectsCode(loadBundle(unsigned), "BUNDLE_UNSIGNED");
  await assertRejectsCode(loadBundle(unsigned, { allowUnsigned: false }), "BUNDLE_UNSIGNED");
  // missing: a key configured, the bundle unsigned; allowUnsigned does not help.
  await assertRejectsCode(loadBundle(unsigned, ecKey), "BUNDLE_SIGNATURE_MISSING");
  await assertRejectsCode(
    loadBundle(unsigned, { ...ecKey, allowUnsigned: true }),
    "BUNDLE_SIGNATURE_MISSING",
  );
  // unverified: signed, no key; allowUnsigned does not help.
  await assertRejectsCode(loadBundle(text(ecdsaSigned)), "BUNDLE_SIGNATURE_UNVERIFIED");
  await assertRejectsCode(
    loadBundle(text(hmacSigned), { allowUnsigned: true }),
    "BUNDLE_SIGNATURE_UNVERIFIED",
  );
});

Deno.test("loadBundle() refuses a bundle over maxFileBytes before parsing", async () => {
  const body = text(example);
  await assertRejectsCode(
    loadBundle(body, { allowUnsigned: true, maxFileBytes: body.length - 1 }),
    "BUNDLE_TOO_LARGE",
  );
  await loadBundle(body, { allowUnsigned: true, maxFileBytes: body.length });
  // The limit applies before parsing: garbage over the limit is too large, not a parse error.
  await assertRejectsCode(
    loadBundle("x".repeat(101), { maxFileBytes: 100 }),
    "BUNDLE_TOO_LARGE",
  );
});

Deno.test("loadBundle() gives BUNDLE_PARSE_ERROR for text that is not a JSON document", async () => {
  for (const bad of ["", "   ", "{", "not json", "{'a':1}", text(example).slice(0, 200)]) {
    await assertRejectsCode(loadBundle(bad, { allowUnsigned: true }), "BUNDLE_PARSE_ERROR");
  }
  const invalidUtf8 = new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]);
  await assertRejectsCode(loadBundle(invalidUtf8, { allowUnsigned: true }), "BUNDLE_PARSE_ERROR");
});

Deno.test("loadBundle() accepts a UTF-8 byte-order mark", async () => {
  const bytes = new TextEncoder().encode("\uFEFF" + text(hmacSigned));
  assert.equal(bytes[0], 0xef);
  const loaded = await loadBundle(bytes, hmacKey);
  assert.equal(loaded.status.signature.status, "verified");
});

Deno.test("loadBundle() gives BUNDLE_INVALID with every issue", async () => {
  const error = await assertRejectsCode(
    loadBundle(text({ schemaVersion: 2, env: "qa", policies: [] }), { allowUnsigned: true }),
    "BUNDLE_INVALID",
  );
  assert.deepEqual(error.issues.map((i) => i.code), ["INVALID_SCHEMA_VERSION", "INVALID_ENV"]);
  await assertRejectsCode(loadBundle("null", { allowUnsigned: true }), "BUNDLE_INVALID");
  await assertRejectsCode(loadBundle("[]", { allowUnsigned: true }), "BUNDLE_INVALID");
});

Deno.test("loadBundle() gives CHECKSUM_MISMATCH when the contents were altered", async () => {
  const altered = structuredClone(hmacSigned);
  altered.policies[0]!.activeVersion = 99;
  // The checksum check comes before the signature check.
  await assertRejectsCode(loadBundle(text(altered), hmacKey), "CHECKSUM_MISMATCH");
  const unsignedAltered = { ...altered, signature: undefined };
  await assertRejectsCode(
    loadBundle(text(unsignedAltered), { allowUnsigned: true }),
    "CHECKSUM_MISMATCH",
  );
  // A bundle without an embedded checksum skips that check; the signature still catches it.
  const noChecksum = { ...altered, checksum: undefined };
  await assertRejectsCode(loadBundle(text(noChecksum), hmacKey), "BUNDLE_SIGNATURE_INVALID");
});

Deno.test("loadBundle() gives BUNDLE_SIGNATURE_INVALID for a tampered or foreign signature", async () => {
  const tampered = structuredClone(ecdsaSigned);
  tampered.signature.value = hmacSigned.signature.value;
  await assertRejectsCode(loadBundle(text(tampered), ecKey), "BUNDLE_SIGNATURE_INVALID");
  const otherKey = await publicKeyOf(await generateSec1Key());
  await assertRejectsCode(
    loadBundle(text(ecdsaSigned), { verify: { algorithm: "ECDSA_SHA_256", publicKey: otherKey } }),
    "BUNDLE_SIGNATURE_INVALID",
  );
});

const MISSING = "BUNDLE_SIGNATURE_MISSING";

Deno.test('loadBundle() gives BUNDLE_SIGNATURE_ALGORITHM_MISMATCH for a key of the other algorithm (messages with "an")', async () => {
  await assertRejectsCode(
    loadBundle(text(ecdsaSigned), hmacKey),
    "BUNDLE_SIGNATURE_ALGORITHM_MISMATCH",
  );
  const mismatch = await assertRejectsCode(
    loadBundle(text(hmacSigned), ecKey),
    "BUNDLE_SIGNATURE_ALGORITHM_MISMATCH",
  );
  assert.match(mismatch.message, /configure an HMAC_SHA256 key or re-sign/);
  const missing = await assertRejectsCode(loadBundle(text(example), ecKey), MISSING);
  assert.match(missing.message, /but an ECDSA_SHA_256 key is configured/);
});

Deno.test("loadBundle() refuses Ed25519 with BUNDLE_SIGNATURE_ALGORITHM_REMOVED, whatever the keys", async () => {
  for (const algorithm of ["Ed25519", "ED25519", "EdDSA", "eddsa"]) {
    const bundle = { ...example, signature: { algorithm, keyId: "old", value: "AAAA" } };
    for (const options of [{}, { allowUnsigned: true }, ecKey, hmacKey]) {
      const error = await assertRejectsCode(
        loadBundle(text(bundle), options),
        "BUNDLE_SIGNATURE_ALGORITHM_REMOVED",
      );
      assert.match(error.message, /no longer supported/);
      assert.match(error.message, /ECDSA_SHA_256/);
    }
  }
});

Deno.test("loadBundle() ignores formatting, key order and excluded fields of a signed bundle", async () => {
  const reordered = Object.fromEntries(Object.entries(ecdsaSigned).reverse());
  const changed = {
    ...reordered,
    generatedAt: "2031-01-01T00:00:00Z",
    bundleVersion: 42,
    etag: '"x"',
  };
  const loaded = await loadBundle(JSON.stringify(changed), ecKey);
  assert.equal(loaded.status.bundleVersion, 42);
  assert.equal(loaded.status.signature.status, "verified");
});

Deno.test("loadBundle() returns validation warnings of a bundle that loads", async () => {
  const withWildcard = structuredClone(example);
  withWildcard.policies[1]!.rules[0]!.target.resource = "*";
  const loaded = await loadBundle(text(withWildcard), { allowUnsigned: true });
  assert.deepEqual(loaded.warnings.map((w) => w.code), ["TARGET_WILDCARD_LITERAL"]);
});

Deno.test("loadBundle() gives the same result for a large bundle, which it loads in steps", async () => {
  // Over 256 KiB, loadBundle yields to the event loop between its steps.
  const policies = Array.from({ length: 600 }, (_, i) => ({
    ...example.policies[0]!,
    policyKey: `copy-${i}`,
    rules: example.policies[0]!.rules.map((rule) => ({
      ...rule,
      target: { ...rule.target, resource: `resource-${i}` },
    })),
  }));
  const large = { ...example, policies: [...example.policies, ...policies] };
  const signed = await signBundle(large, {
    algorithm: "ECDSA_SHA_256",
    key: ecPrivate,
    keyId: "l",
  });
  const body = text(signed);
  assert.ok(body.length > 256 * 1024, `${body.length} bytes`);
  const loaded = await loadBundle(body, ecKey);
  assert.equal(loaded.status.checksum, signed.checksum);
  assert.equal(loaded.status.signature.status, "verified");
  assert.equal(loaded.compiled.policyCount, large.policies.length);
  // The checksum is still reported before the signature (both fail here).
  await assertRejectsCode(
    loadBundle(body.replace('"copy-599"', '"copy-x"'), ecKey),
    "CHECKSUM_MISMATCH",
  );
});

Deno.test("inspectBundle() goes through loadBundle's pipeline and returns what a load would refuse, with the failure", async () => {
  // Checksum first: an altered signed bundle reports CHECKSUM_MISMATCH, not the signature.
  const altered = { ...ecdsaSigned, env: "dev" };
  const shown = await inspectBundle(text(altered), ecKey);
  assert.equal(shown.integrity?.code, "CHECKSUM_MISMATCH");
  assert.equal(shown.signature, null);
  assert.equal(shown.document.env, "dev");
  assert.equal(shown.compiled.scope.env, "dev");
  await assertRejectsCode(loadBundle(text(altered), ecKey), "CHECKSUM_MISMATCH");

  for (
    const [bundle, options, code] of [
      [ecdsaSigned, {}, "BUNDLE_SIGNATURE_UNVERIFIED"],
      [example, ecKey, "BUNDLE_SIGNATURE_MISSING"],
      [example, {}, "BUNDLE_UNSIGNED"],
      [hmacSigned, ecKey, "BUNDLE_SIGNATURE_ALGORITHM_MISMATCH"],
    ] as const
  ) {
    const seen = await inspectBundle(text(bundle), options);
    assert.equal(seen.integrity?.code, code);
    assert.equal(seen.signature, null);
    await assertRejectsCode(loadBundle(text(bundle), options), code);
  }
  const good = await inspectBundle(text(ecdsaSigned), ecKey);
  assert.equal(good.integrity, null);
  assert.equal(good.signature?.status, "verified");
  const loaded = await loadBundle(text(ecdsaSigned), ecKey);
  assert.deepEqual(
    { ...good.status, signature: good.signature, freshness: good.freshness },
    loaded.status,
  );

  // Size, JSON and structure are refused the same way.
  await assertRejectsCode(inspectBundle("{"), "BUNDLE_PARSE_ERROR");
  await assertRejectsCode(inspectBundle('{"schemaVersion":2}'), "BUNDLE_INVALID");
  await assertRejectsCode(inspectBundle("{}", { maxFileBytes: 1 }), "BUNDLE_TOO_LARGE");
});
