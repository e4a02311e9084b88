import assert from "node:assert/strict";
import {
  canonicalPayloadBytes,
  computeDigest,
  sortBundleKeys,
} from "../../src/engine/canonical_payload.ts";
import type { RuntimeBundleV1 } from "../../src/engine/types.ts";
import { validateBundle } from "../../src/engine/validate_bundle.ts";
import { PolicyError } from "../../src/public/policy_error.ts";
import { signBundle } from "../../src/verify/sign_bundle.ts";
import { signFreshness } from "../../src/verify/sign_freshness.ts";
import { loadBundle } from "../../src/verify/load_bundle.ts";
import { verifyPayload } from "../../src/verify/verify_payload.ts";
import { assertRejectsCode, assertThrowsCode } from "../_assert_policy_error.ts";
import fc from "../_fast_check.ts";

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

/** Bundles whose shape is wrong where signing reads it (issue 36 item 4), and their like. */
const MALFORMED: [string, unknown][] = [
  ["null", null],
  ["undefined", undefined],
  ["a string", "bundle"],
  ["a number", 7],
  ["an array", []],
  ["no policies", { schemaVersion: 1, env: "prod" }],
  ["policies: '*'", { schemaVersion: 1, env: "prod", policies: "*" }],
  ["policies: [null]", { schemaVersion: 1, env: "prod", policies: [null] }],
  ["policies: ['*']", { schemaVersion: 1, env: "prod", policies: ["*"] }],
  ["rules: '*'", {
    schemaVersion: 1,
    env: "prod",
    bundleVersion: 2,
    policies: [{ policyKey: "p", activeVersion: 1, rules: "*" }],
  }],
  ["rules: [null]", {
    schemaVersion: 1,
    env: "prod",
    bundleVersion: 2,
    policies: [{ policyKey: "p", activeVersion: 1, rules: [null] }],
  }],
  ["rules missing", {
    schemaVersion: 1,
    env: "prod",
    bundleVersion: 2,
    policies: [{ policyKey: "p", activeVersion: 1 }],
  }],
  ["defaults: null", {
    schemaVersion: 1,
    env: "prod",
    bundleVersion: 2,
    policies: [{ policyKey: "p", activeVersion: 1, rules: [], defaults: null }],
  }],
  ["schemaVersion 2", { schemaVersion: 2, env: "prod", bundleVersion: 2, policies: [] }],
  // Not JSON data at all: an object whose field throws when read.
  ["a throwing getter", {
    schemaVersion: 1,
    env: "prod",
    bundleVersion: 2,
    get policies() {
      throw new Error("boom");
    },
  }],
];

const TIMES = { issuedAt: 0, expiresAt: 86_400_000 };

Deno.test("signBundle() and signFreshness() refuse a structurally invalid bundle with BUNDLE_INVALID, never a TypeError", async () => {
  const key = { algorithm: "HMAC_SHA256" as const, key: SECRET, keyId: "ci" };
  for (const [name, bundle] of MALFORMED) {
    const signing = await assertRejectsCode(
      signBundle(bundle as RuntimeBundleV1, key),
      "BUNDLE_INVALID",
    ).catch((error) => assert.fail(`signBundle(${name}): ${error}`));
    assert.doesNotMatch(signing.message, /Cannot read|is not a function/, name);
    const issuing = await assertRejectsCode(
      signFreshness(bundle as RuntimeBundleV1, { ...key, ...TIMES }),
      "BUNDLE_INVALID",
    ).catch((error) => assert.fail(`signFreshness(${name}): ${error}`));
    assert.doesNotMatch(issuing.message, /Cannot read|is not a function/, name);
  }
  // The functions that hash a bundle's payload say the same, rather than a TypeError.
  for (const [name, bundle] of MALFORMED.slice(0, 9)) {
    await assertRejectsCode(computeDigest(bundle as RuntimeBundleV1), "BUNDLE_INVALID")
      .catch((error) => assert.fail(`computeDigest(${name}): ${error}`));
    assertThrowsCode(() => sortBundleKeys(bundle as RuntimeBundleV1), "BUNDLE_INVALID");
  }
});

/** Paths into a signable bundle where a fuzzed value replaces what is there. */
const PATHS: (string | number)[][] = [
  [],
  ["schemaVersion"],
  ["env"],
  ["bundleVersion"],
  ["policies"],
  ["policies", 0],
  ["policies", 0, "policyKey"],
  ["policies", 0, "activeVersion"],
  ["policies", 0, "defaults"],
  ["policies", 0, "rules"],
  ["policies", 0, "rules", 0],
  ["policies", 0, "rules", 0, "id"],
  ["policies", 0, "rules", 0, "target"],
  ["policies", 0, "rules", 0, "target", "service"],
  ["policies", 0, "rules", 0, "effect"],
  ["policies", 0, "rules", 0, "when"],
  ["policies", 0, "rules", 0, "when", "conditions"],
  ["policies", 0, "rules", 0, "when", "conditions", 0],
  ["policies", 0, "rules", 0, "thenEffect"],
];

function replaced(bundle: unknown, path: (string | number)[], value: unknown): unknown {
  if (path.length === 0) return value;
  const [head, ...rest] = path;
  if (typeof bundle !== "object" || bundle === null) return bundle;
  const copy = Array.isArray(bundle) ? [...bundle] : { ...bundle };
  (copy as Record<string | number, unknown>)[head!] = replaced(
    (bundle as Record<string | number, unknown>)[head!],
    rest,
    value,
  );
  return copy;
}

Deno.test("signBundle() and signFreshness() on fuzzed shapes: signed exactly when valid, else BUNDLE_INVALID", async () => {
  const key = { algorithm: "HMAC_SHA256" as const, key: SECRET, keyId: "ci" };
  const verify = { algorithm: "HMAC_SHA256" as const, publicKey: SECRET, keyId: "ci" };
  const shapes = fc.oneof(
    fc.constantFrom(null, undefined, "*", "", 0, -1, true, [], {}, [null], ["*"], [{}]),
    fc.jsonValue({ maxDepth: 3 }),
  );
  await fc.assert(
    fc.asyncProperty(fc.constantFrom(...PATHS), shapes, async (path, value) => {
      const bundle = replaced(BUNDLE, path, value) as RuntimeBundleV1;
      const valid = validateBundle(bundle).valid;
      for (
        const sign of [
          () => signBundle(bundle, key),
          () => signFreshness(bundle, { ...key, ...TIMES }),
        ]
      ) {
        let outcome: unknown;
        try {
          outcome = await sign();
        } catch (error) {
          assert.ok(error instanceof PolicyError, `${JSON.stringify(path)}: ${error}`);
          // A valid bundle can still be refused by signFreshness: no bundleVersion to sign.
          assert.ok(!valid || error.code === "BUNDLE_INVALID", error.message);
          assert.equal(error.code, "BUNDLE_INVALID", error.message);
          if (valid) assert.match(error.message, /bundleVersion/);
          continue;
        }
        assert.ok(valid, `signed an invalid bundle (${JSON.stringify(path)})`);
        if ((outcome as { type?: string }).type === undefined) {
          await loadBundle(JSON.stringify(outcome), { verify });
        }
      }
    }),
    { numRuns: 200 },
  );
});
