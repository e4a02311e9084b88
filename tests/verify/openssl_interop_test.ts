/**
 * Interoperability with the openssl command line, which README.md ("Keys and signatures") names
 * as the reference for both signature formats. These tests need openssl and
 * fail (they are not skipped) when it is missing.
 */
import assert from "node:assert/strict";
import { canonicalPayloadBytes } from "../../src/engine/canonical_payload.ts";
import type { RuntimeBundleV1 } from "../../src/engine/types.ts";
import { decodeBase64, encodeBase64 } from "../../src/_internal/encoding.ts";
import { signBundle } from "../../src/verify/sign_bundle.ts";
import {
  verifyBundleSignature,
  type VerifyKeyOptions,
} from "../../src/verify/verify_bundle_signature.ts";
import {
  generateHmacSecret,
  generatePkcs8Key,
  generateSec1Key,
  generateSec1KeyWithParameters,
  hmacWithOpenssl,
  publicKeyOf,
  signWithOpenssl,
  verifyWithOpenssl,
} from "../_openssl.ts";
import { assertRejectsCode } from "../_assert_policy_error.ts";

const BUNDLE: RuntimeBundleV1 = JSON.parse(
  await Deno.readTextFile(new URL("../testdata/verify/bundle.json", import.meta.url)),
);

const KEYS = {
  "SEC1 (openssl ecparam -genkey -noout)": await generateSec1Key(),
  "SEC1 with EC PARAMETERS (openssl ecparam -genkey)": await generateSec1KeyWithParameters(),
  "PKCS#8 (openssl genpkey)": await generatePkcs8Key(),
};

for (const [form, privateKey] of Object.entries(KEYS)) {
  Deno.test(`a bundle signed by openssl dgst -sha256 -sign with a ${form} key verifies here`, async () => {
    const verify: VerifyKeyOptions = {
      algorithm: "ECDSA_SHA_256",
      publicKey: await publicKeyOf(privateKey),
    };
    // openssl's signatures are random: several of them cover r and s with and without a high bit.
    for (let i = 0; i < 8; i++) {
      const bundle = { ...BUNDLE, bundleVersion: i + 1 };
      const der = await signWithOpenssl(privateKey, canonicalPayloadBytes(bundle));
      const signed = {
        ...bundle,
        signature: { algorithm: "ECDSA_SHA_256", keyId: "openssl", value: encodeBase64(der) },
      };
      assert.deepEqual(await verifyBundleSignature(signed, { verify }), {
        status: "verified",
        algorithm: "ECDSA_SHA_256",
        keyId: "openssl",
      });
    }
  });

  Deno.test(`a bundle signed here with a ${form} key verifies with openssl dgst -sha256 -verify`, async () => {
    const publicKey = await publicKeyOf(privateKey);
    for (let i = 0; i < 4; i++) {
      const signed = await signBundle(BUNDLE, {
        algorithm: "ECDSA_SHA_256",
        key: privateKey,
        keyId: "here",
      });
      const der = decodeBase64(signed.signature.value)!;
      assert.equal(await verifyWithOpenssl(publicKey, canonicalPayloadBytes(BUNDLE), der), true);
      const other = canonicalPayloadBytes({ ...BUNDLE, env: "dev" });
      assert.equal(await verifyWithOpenssl(publicKey, other, der), false);
    }
  });
}

Deno.test("an HMAC signature made here equals what openssl dgst -sha256 -mac HMAC prints", async () => {
  for (let i = 0; i < 4; i++) {
    const secret = await generateHmacSecret();
    const bundle = i % 2 === 0 ? BUNDLE : { ...BUNDLE, orgId: `org_${i}` };
    const expected = await hmacWithOpenssl(secret, canonicalPayloadBytes(bundle));
    for (const key of [secret, secret.toUpperCase()]) {
      const signed = await signBundle(bundle, { algorithm: "HMAC_SHA256", key, keyId: "ci" });
      assert.equal(signed.signature.value, expected);
    }
  }
});

Deno.test("an HMAC signature printed by openssl verifies here", async () => {
  const secret = await generateHmacSecret();
  const value = await hmacWithOpenssl(secret, canonicalPayloadBytes(BUNDLE));
  const signed = { ...BUNDLE, signature: { algorithm: "HMAC_SHA256", keyId: "openssl", value } };
  const result = await verifyBundleSignature(signed, {
    verify: { algorithm: "HMAC_SHA256", publicKey: secret },
  });
  assert.equal(result.status, "verified");
});

/** Changes to canonical fields: each must break the signature. */
const TAMPERING: [string, (bundle: RuntimeBundleV1) => void][] = [
  ["env", (b) => b.env = "dev"],
  ["orgId", (b) => b.orgId = "org_other"],
  ["projectId", (b) => b.projectId = "proj_other"],
  ["an orgId removed", (b) => delete b.orgId],
  ["a policy's activeVersion", (b) => b.policies[0]!.activeVersion = 5],
  ["a policy's policyKey", (b) => b.policies[1]!.policyKey = "search.other"],
  ["defaults", (b) => b.policies[0]!.defaults = { effect: "allow" }],
  ["defaults added", (b) => b.policies[1]!.defaults = { effect: "deny" }],
  ["a rule's priority", (b) => b.policies[0]!.rules[1]!.priority = 6],
  ["a rule's status", (b) => b.policies[1]!.rules[0]!.status = "active"],
  ["a rule's target", (b) => b.policies[0]!.rules[0]!.target.action = "delete"],
  ["a rule's description", (b) => b.policies[0]!.rules[0]!.description = "changed"],
  ["a throttle limit", (b) => b.policies[0]!.rules[1]!.effect.throttle!.limit = 1000],
  ["a condition value", (b) => {
    const when = b.policies[0]!.rules[0]!.when as { conditions: { value: unknown }[] };
    when.conditions[1]!.value = 5000;
  }],
  ["a condition value's type", (b) => {
    const when = b.policies[0]!.rules[0]!.when as { conditions: { value: unknown }[] };
    when.conditions[1]!.value = "500";
  }],
  ["the order of rules", (b) => b.policies[0]!.rules.reverse()],
  ["a rule removed", (b) => b.policies[0]!.rules.pop()],
  ["the order of policies", (b) => b.policies.reverse()],
];

/** Changes outside the canonical payload: none may break the signature. */
const REFORMATTING: [string, (bundle: RuntimeBundleV1) => RuntimeBundleV1][] = [
  ["the JSON reformatted", (b) => JSON.parse(JSON.stringify(b, null, "\t"))],
  ["every object's keys reordered", (b) => reverseKeys(b) as RuntimeBundleV1],
  ["generatedAt changed", (b) => ({ ...b, generatedAt: "2030-01-01T00:00:00Z" })],
  ["generatedAt removed", ({ generatedAt: _, ...b }) => b],
  ["bundleVersion changed", (b) => ({ ...b, bundleVersion: 42 })],
  ["etag changed", (b) => ({ ...b, etag: '"other"' })],
  ["checksum changed", (b) => ({ ...b, checksum: "sha256:" + "1".repeat(64) })],
];

function reverseKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reverseKeys);
  if (typeof value !== "object" || value === null) return value;
  return Object.fromEntries(
    Object.keys(value).reverse().map((key) => [
      key,
      reverseKeys((value as Record<string, unknown>)[key]),
    ]),
  );
}

const ecdsaKey = KEYS["SEC1 (openssl ecparam -genkey -noout)"];
const ecdsaPublicKey = await publicKeyOf(ecdsaKey);
const hmacSecret = await generateHmacSecret();
const SIGNERS = [
  {
    name: "ECDSA",
    signed: await signBundle(BUNDLE, { algorithm: "ECDSA_SHA_256", key: ecdsaKey, keyId: "e" }),
    verify: { algorithm: "ECDSA_SHA_256", publicKey: ecdsaPublicKey } as VerifyKeyOptions,
  },
  {
    name: "HMAC",
    signed: await signBundle(BUNDLE, { algorithm: "HMAC_SHA256", key: hmacSecret, keyId: "h" }),
    verify: { algorithm: "HMAC_SHA256", publicKey: hmacSecret } as VerifyKeyOptions,
  },
];

for (const { name, signed, verify } of SIGNERS) {
  for (const [what, tamper] of TAMPERING) {
    Deno.test(`an ${name}-signed bundle no longer verifies when ${what} changes`, async () => {
      const changed = structuredClone(signed);
      tamper(changed);
      await assertRejectsCode(
        verifyBundleSignature(changed, { verify }),
        "BUNDLE_SIGNATURE_INVALID",
      );
      if (name === "ECDSA") {
        // openssl agrees that the signature no longer covers the payload.
        const der = decodeBase64(signed.signature.value)!;
        assert.equal(
          await verifyWithOpenssl(ecdsaPublicKey, canonicalPayloadBytes(changed), der),
          false,
        );
      }
    });
  }
  for (const [what, reformat] of REFORMATTING) {
    Deno.test(`an ${name}-signed bundle still verifies with ${what}`, async () => {
      const changed = reformat(structuredClone(signed));
      assert.deepEqual(await verifyBundleSignature(changed, { verify }), {
        status: "verified",
        algorithm: signed.signature.algorithm,
        keyId: signed.signature.keyId,
      });
    });
  }
}
