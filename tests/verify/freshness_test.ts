// The signed freshness statement (docs/bundle-format.md "Freshness statement"):
// its format, what it leaves unchanged, and every check of the load pipeline.
import assert from "node:assert/strict";
import { canonicalPayload, computeDigest, freshnessSignedBytes } from "../../src/engine/mod.ts";
import {
  inspectBundle,
  loadBundle,
  type RuntimeBundleV1,
  signBundle,
  signFreshness,
  validateBundle,
  verifyBundleSignature,
  verifyFreshness,
} from "../../mod.ts";
import { FakeClock } from "../_fake_clock.ts";
import { assertRejectsCode } from "../_assert_policy_error.ts";

const clock = new FakeClock();
const NOW = clock.wallNow();
const DAY = 86_400_000;
const pair = await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, false, [
  "sign",
  "verify",
]);
const other = await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, false, [
  "sign",
  "verify",
]);
const KEY = { algorithm: "ECDSA_SHA_256" as const, key: pair.privateKey, keyId: "k2" };
const VERIFY = { algorithm: "ECDSA_SHA_256" as const, publicKey: pair.publicKey, keyId: "k2" };

function bundleOf(version: number, extra: Record<string, unknown> = {}): RuntimeBundleV1 {
  return {
    schemaVersion: 1,
    env: "prod",
    orgId: "acme",
    projectId: "storefront",
    bundleVersion: version,
    policies: [{
      policyKey: "p",
      activeVersion: 1,
      rules: [{
        id: `r${version}`,
        status: "active",
        priority: 1,
        target: { service: "s", resource: "r", action: "a" },
        effect: { type: version === 1 ? "allow" : "deny" },
      }],
    }],
    ...extra,
  };
}

/** A signed bundle with a statement issued now, valid for `lifetime`. */
async function fresh(version = 42, lifetime = 7 * DAY, extra: Record<string, unknown> = {}) {
  const signed = await signBundle(bundleOf(version, extra), KEY);
  const freshness = await signFreshness(signed, {
    ...KEY,
    issuedAt: NOW,
    expiresAt: NOW + lifetime,
  });
  return { ...signed, freshness };
}

const options = { verify: VERIFY, clock };

Deno.test("signFreshness() writes the statement of docs/bundle-format.md, signed over its canonical bytes", async () => {
  const bundle = await fresh();
  const { freshness } = bundle;
  assert.deepEqual(Object.keys(freshness), [
    "type",
    "checksum",
    "bundleVersion",
    "orgId",
    "projectId",
    "env",
    "issuedAt",
    "expiresAt",
    "signature",
  ]);
  assert.equal(freshness.type, "policy-bundle-freshness/v1");
  assert.equal(freshness.checksum, bundle.checksum);
  assert.equal(freshness.bundleVersion, 42);
  assert.equal(freshness.issuedAt, "2026-11-21T09:00:00Z");
  assert.equal(freshness.expiresAt, "2026-11-28T09:00:00Z");
  assert.deepEqual(Object.keys(freshness.signature), ["algorithm", "keyId", "value"]);
  // The signed bytes: the statement without its signature, keys sorted, no whitespace.
  const text = new TextDecoder().decode(freshnessSignedBytes(freshness));
  assert.equal(
    text,
    `{"bundleVersion":42,"checksum":"${bundle.checksum}","env":"prod","expiresAt":"2026-11-28T09:00:00Z","issuedAt":"2026-11-21T09:00:00Z","orgId":"acme","projectId":"storefront","type":"policy-bundle-freshness/v1"}`,
  );
  // Without orgId and projectId, the statement has none either.
  const bare = await fresh(3, DAY, { orgId: undefined, projectId: undefined });
  assert.equal("orgId" in bare.freshness, false);
  assert.equal("projectId" in bare.freshness, false);
});

Deno.test("the canonical payload, checksum and bundle signature do not change with a statement", async () => {
  const bundle = await fresh();
  const { freshness: _, ...without } = bundle;
  assert.equal(canonicalPayload(bundle), canonicalPayload(without));
  assert.equal((await computeDigest(bundle)).checksum, without.checksum);
  // The bundle signature of a runtime that knows nothing of freshness still verifies.
  assert.equal((await verifyBundleSignature(bundle, { verify: VERIFY })).status, "verified");
});

Deno.test("freshness is a known field: no UNKNOWN_FIELD warning; an unknown top-level field stays a warning, never an error", () => {
  const withStatement = validateBundle({
    ...bundleOf(1),
    freshness: {
      type: "policy-bundle-freshness/v1",
      checksum: `sha256:${"0".repeat(64)}`,
      bundleVersion: 1,
      env: "prod",
      issuedAt: "2026-11-21T09:00:00Z",
      expiresAt: "2026-11-22T09:00:00Z",
      signature: { algorithm: "ECDSA_SHA_256", keyId: "k", value: "AAAA" },
    },
  });
  assert.deepEqual(withStatement, { valid: true, errors: [], warnings: [] });
  // What a runtime that predates a field does with it: a warning (the bundle still loads).
  const unknown = validateBundle({ ...bundleOf(1), freshnessV2: { anything: 1 } });
  assert.equal(unknown.valid, true);
  assert.deepEqual(unknown.warnings.map((w) => [w.code, w.path]), [[
    "UNKNOWN_FIELD",
    "/freshnessV2",
  ]]);
});

Deno.test("a malformed statement is INVALID_FIELD at /freshness (BUNDLE_INVALID at load), naming what is wrong", async () => {
  const good = (await fresh()).freshness;
  const cases: [string, unknown, RegExp][] = [
    ["not an object", "tomorrow", /not an object/],
    ["another type", { ...good, type: "policy-bundle-freshness/v2" }, /type must be/],
    ["an unknown member", { ...good, notBefore: "x" }, /member "notBefore"/],
    ["a bad checksum", { ...good, checksum: "sha256:abc" }, /checksum/],
    ["a version 0", { ...good, bundleVersion: 0 }, /bundleVersion/],
    ["a version 1e16", { ...good, bundleVersion: 1e16 }, /bundleVersion/],
    ["a numeric orgId", { ...good, orgId: 5 }, /orgId/],
    ["no env", { ...good, env: undefined }, /env/],
    ["an offset time", { ...good, expiresAt: "2026-11-28T09:00:00+00:00" }, /expiresAt/],
    ["an impossible date", { ...good, issuedAt: "2026-02-30T09:00:00Z" }, /issuedAt/],
    ["microseconds", { ...good, issuedAt: "2026-11-21T09:00:00.000001Z" }, /issuedAt/],
    [
      "a numeric signature value",
      { ...good, signature: { ...good.signature, value: 1 } },
      /signature/,
    ],
    ["an extra signature member", {
      ...good,
      signature: { ...good.signature, x: 1 },
    }, /signature/],
  ];
  for (const [name, freshness, message] of cases) {
    const document = { ...bundleOf(42), freshness };
    const result = validateBundle(document);
    assert.equal(result.valid, false, name);
    assert.equal(result.errors[0]?.code, "INVALID_FIELD", name);
    assert.equal(result.errors[0]?.path, "/freshness", name);
    assert.match(result.errors[0]!.message, message, name);
    await assertRejectsCode(loadBundle(JSON.stringify(document), options), "BUNDLE_INVALID");
  }
});

Deno.test("loadBundle() verifies the statement with the bundle's key set and reports it in status", async () => {
  const loaded = await loadBundle(JSON.stringify(await fresh()), options);
  assert.deepEqual(loaded.status.freshness, {
    bundleVersion: 42,
    issuedAt: "2026-11-21T09:00:00Z",
    expiresAt: "2026-11-28T09:00:00Z",
    keyId: "k2",
    verified: true,
  });
  // Without a statement: null. With a key lacking an id: the id recorded at signing.
  const bare = await signBundle(bundleOf(42), KEY);
  assert.equal((await loadBundle(JSON.stringify(bare), options)).status.freshness, null);
  const anonymous = await loadBundle(JSON.stringify(await fresh()), {
    clock,
    verify: { algorithm: "ECDSA_SHA_256", publicKey: pair.publicKey },
  });
  assert.equal(anonymous.status.freshness?.keyId, "k2");
  assert.equal(anonymous.status.freshness?.claimedKeyId, undefined);
  assert.equal(
    anonymous.status.signature.status === "verified" && anonymous.status.signature.keyId,
    "k2",
  );
});

Deno.test("BUNDLE_FRESHNESS_INVALID names the reason: another bundle, another version or scope, times out of order, a bad or unknown signature", async () => {
  const bundle = await fresh();
  const otherBundle = await fresh(43);
  const resigned = async (changes: Record<string, unknown>) => {
    const statement = { ...bundle.freshness, ...changes };
    const { signature: _, ...unsigned } = statement;
    const { signPayload } = await import("../../src/verify/sign_payload.ts");
    const value = await signPayload(
      "ECDSA_SHA_256",
      pair.privateKey,
      freshnessSignedBytes(unsigned),
    );
    return { ...statement, signature: { ...statement.signature, value } };
  };
  const cases: [string, RuntimeBundleV1, RegExp][] = [
    [
      "copied from another bundle",
      { ...bundle, freshness: otherBundle.freshness },
      /names the bundle sha256:/,
    ],
    [
      "relabelled",
      { ...bundle, bundleVersion: 99 },
      /signs bundleVersion 42, but the bundle says 99/,
    ],
    ["version removed", { ...bundle, bundleVersion: undefined } as never, /the bundle says none/],
    ["another env", { ...bundle, freshness: await resigned({ env: "staging" }) }, /env "staging"/],
    ["another org", { ...bundle, freshness: await resigned({ orgId: "evil" }) }, /orgId "evil"/],
    [
      "no projectId",
      { ...bundle, freshness: await resigned({ projectId: undefined }) },
      /projectId null/,
    ],
    ["issued after it expires", {
      ...bundle,
      freshness: await resigned({ issuedAt: "2026-12-01T00:00:00Z" }),
    }, /issued at 2026-12-01T00:00:00Z, after it expires/],
    ["an extended expiry, not signed", {
      ...bundle,
      freshness: { ...bundle.freshness, expiresAt: "2027-11-28T09:00:00Z" },
    }, /does not verify/],
    ["a malformed value", {
      ...bundle,
      freshness: { ...bundle.freshness, signature: { ...bundle.freshness.signature, value: "!" } },
    }, /malformed/],
    ["an unsupported algorithm", {
      ...bundle,
      freshness: {
        ...bundle.freshness,
        signature: { ...bundle.freshness.signature, algorithm: "Ed25519" },
      },
    }, /not supported/],
    ["the bundle's signature as the statement's", {
      ...bundle,
      freshness: { ...bundle.freshness, signature: { ...bundle.signature } },
    }, /does not verify/],
  ];
  for (const [name, candidate, message] of cases) {
    const error = await assertRejectsCode(
      loadBundle(JSON.stringify(candidate), options),
      "BUNDLE_FRESHNESS_INVALID",
    );
    assert.match(error.message, message, name);
  }
  // Signed by a key that is not trusted, with an id no trusted key has; with an HMAC key only.
  const foreign = await signFreshness(bundle, {
    algorithm: "ECDSA_SHA_256",
    key: other.privateKey,
    keyId: "intruder",
    issuedAt: NOW,
    expiresAt: NOW + DAY,
  });
  const unknownKey = await assertRejectsCode(
    loadBundle(JSON.stringify({ ...bundle, freshness: foreign }), options),
    "BUNDLE_FRESHNESS_INVALID",
  );
  assert.match(unknownKey.message, /key id "intruder", which is not among the trusted keys/);
  const hmac = await signFreshness(bundle, {
    algorithm: "HMAC_SHA256",
    key: "ab".repeat(32),
    keyId: "h",
    issuedAt: NOW,
    expiresAt: NOW + DAY,
  });
  const mismatch = await assertRejectsCode(
    loadBundle(JSON.stringify({ ...bundle, freshness: hmac }), options),
    "BUNDLE_FRESHNESS_INVALID",
  );
  assert.match(mismatch.message, /no configured key is of that algorithm/);
  // An unsigned bundle with a statement and no key: nothing can verify it.
  const { signature: _s, checksum: _c, ...unsigned } = bundle;
  const noKey = await assertRejectsCode(
    loadBundle(JSON.stringify(unsigned), { allowUnsigned: true, clock }),
    "BUNDLE_FRESHNESS_INVALID",
  );
  assert.match(noKey.message, /no key is configured/);
});

Deno.test("requireFreshness: a bundle without a statement is BUNDLE_FRESHNESS_MISSING; without it, it loads", async () => {
  const bare = JSON.stringify(await signBundle(bundleOf(42), KEY));
  const error = await assertRejectsCode(
    loadBundle(bare, { ...options, requireFreshness: true }),
    "BUNDLE_FRESHNESS_MISSING",
  );
  assert.match(error.message, /requireFreshness/);
  assert.equal((await loadBundle(bare, options)).status.freshness, null);
  assert.equal(
    (await loadBundle(JSON.stringify(await fresh()), { ...options, requireFreshness: true }))
      .status.freshness?.bundleVersion,
    42,
  );
});

Deno.test("BUNDLE_EXPIRED at load once the wall clock reaches expiresAt plus clockSkewMs (default 60 s)", async () => {
  const text = JSON.stringify(await fresh(42, 1_000));
  const at = (offset: number) => ({ wallNow: () => NOW + offset });
  // Default skew: accepted until 61 s after issue (1 s lifetime + 60 s), refused from then on.
  assert.ok((await loadBundle(text, { verify: VERIFY, clock: at(60_999) })).status.freshness);
  const error = await assertRejectsCode(
    loadBundle(text, { verify: VERIFY, clock: at(61_000) }),
    "BUNDLE_EXPIRED",
  );
  assert.match(error.message, /expired at 2026-11-21T09:00:01Z \(clockSkewMs 60000\)/);
  // clockSkewMs 0: refused at expiresAt itself.
  assert.ok(await loadBundle(text, { verify: VERIFY, clock: at(999), clockSkewMs: 0 }));
  await assertRejectsCode(
    loadBundle(text, { verify: VERIFY, clock: at(1_000), clockSkewMs: 0 }),
    "BUNDLE_EXPIRED",
  );
  // verifyFreshness is the same check, on its own.
  const bundle = JSON.parse(text);
  assert.ok(await verifyFreshness(bundle, { verify: VERIFY, clock: at(0) }));
  await assertRejectsCode(
    verifyFreshness(bundle, { verify: VERIFY, clock: at(61_000) }),
    "BUNDLE_EXPIRED",
  );
});

Deno.test("requireFreshness and clockSkewMs are checked: INVALID_OPTIONS", async () => {
  const text = JSON.stringify(await fresh());
  for (
    const bad of [
      { requireFreshness: "yes" },
      { clockSkewMs: -1 },
      { clockSkewMs: 86_400_001 },
      { clockSkewMs: Number.NaN },
    ]
  ) {
    await assertRejectsCode(loadBundle(text, { ...options, ...bad } as never), "INVALID_OPTIONS");
  }
});

Deno.test("inspectBundle() reports an expired statement in integrity, with the bundle's signature and the statement's status", async () => {
  const text = JSON.stringify(await fresh(42, 1_000));
  const seen = await inspectBundle(text, { verify: VERIFY, clock: { wallNow: () => NOW + DAY } });
  assert.equal(seen.integrity?.code, "BUNDLE_EXPIRED");
  assert.equal(seen.signature?.status, "verified");
  assert.equal(seen.freshness?.expiresAt, "2026-11-21T09:00:01Z");
  const invalid = await inspectBundle(
    JSON.stringify({ ...JSON.parse(text), bundleVersion: 7 }),
    options,
  );
  assert.equal(invalid.integrity?.code, "BUNDLE_FRESHNESS_INVALID");
  assert.equal(invalid.signature?.status, "verified");
  assert.equal(invalid.freshness, null);
});

Deno.test("a renewed statement for the bundle in force reuses its compiled form (inForce); other policies are compiled", async () => {
  const first = await loadBundle(JSON.stringify(await fresh()), options);
  const renewed = await signBundle(bundleOf(42), KEY);
  const statement = await signFreshness(renewed, {
    ...KEY,
    issuedAt: NOW + DAY,
    expiresAt: NOW + 8 * DAY,
  });
  const again = await loadBundle(JSON.stringify({ ...renewed, freshness: statement }), {
    ...options,
    inForce: first,
  });
  assert.equal(again.compiled, first.compiled);
  assert.equal(again.status.freshness?.expiresAt, "2026-11-29T09:00:00Z");
  // Another bundle, or one that only claims the same checksum, is compiled afresh.
  const next = await loadBundle(JSON.stringify(await fresh(43)), { ...options, inForce: first });
  assert.notEqual(next.compiled, first.compiled);
  const liar = { ...(await fresh(43)), checksum: first.status.checksum };
  await assertRejectsCode(
    loadBundle(JSON.stringify(liar), { ...options, inForce: first }),
    "CHECKSUM_MISMATCH",
  );
});

Deno.test("signFreshness() refuses a bundle without bundleVersion, an altered bundle, and times out of order", async () => {
  const { bundleVersion: _, ...noVersion } = bundleOf(1);
  const times = { issuedAt: NOW, expiresAt: NOW + DAY };
  await assertRejectsCode(signFreshness(noVersion, { ...KEY, ...times }), "BUNDLE_INVALID");
  const signed = await signBundle(bundleOf(1), KEY);
  await assertRejectsCode(
    signFreshness({ ...signed, env: "dev" }, { ...KEY, ...times }),
    "CHECKSUM_MISMATCH",
  );
  await assertRejectsCode(
    signFreshness(signed, { ...KEY, issuedAt: NOW, expiresAt: NOW - 1 }),
    "INVALID_OPTIONS",
  );
  await assertRejectsCode(
    signFreshness(signed, { ...KEY, issuedAt: 1.5, expiresAt: NOW }),
    "INVALID_OPTIONS",
  );
  await assertRejectsCode(
    signFreshness(signed, { ...KEY, keyId: "", ...times }),
    "INVALID_OPTIONS",
  );
});
