import assert from "node:assert/strict";
import type { ErrorCode } from "../../src/public/policy_error.ts";
import type { RuntimeBundleV1 } from "../../src/engine/types.ts";
import { signBundle } from "../../src/verify/sign_bundle.ts";
import {
  verifyBundleSignature,
  type VerifyBundleSignatureOptions,
  type VerifyKeyOptions,
} from "../../src/verify/verify_bundle_signature.ts";
import { assertRejectsCode } from "../_assert_policy_error.ts";

const SECRET = "7c3a9e1f5b2d8c4a6e0f9b3d7a1c5e8f2b6d0a4c8e1f3b5d7a9c0e2f4b6d8a1c";
const BUNDLE: RuntimeBundleV1 = JSON.parse(
  await Deno.readTextFile(new URL("../testdata/verify/bundle.json", import.meta.url)),
);
const ecdsa = await crypto.subtle.generateKey(
  { name: "ECDSA", namedCurve: "P-256" },
  true,
  ["sign", "verify"],
);
const spkiPem = `-----BEGIN PUBLIC KEY-----\n${
  btoa(
    String.fromCharCode(...new Uint8Array(await crypto.subtle.exportKey("spki", ecdsa.publicKey))),
  )
}\n-----END PUBLIC KEY-----\n`;

const ecdsaSigned = await signBundle(BUNDLE, {
  algorithm: "ECDSA_SHA_256",
  key: ecdsa.privateKey,
  keyId: "ecdsa-1",
});
const hmacSigned = await signBundle(BUNDLE, {
  algorithm: "HMAC_SHA256",
  key: SECRET,
  keyId: "hmac-1",
});

/** The bundles of the table below, by the signature they carry. */
const BUNDLES: Record<string, RuntimeBundleV1> = {
  "no signature": BUNDLE,
  "a valid ECDSA signature": ecdsaSigned,
  "an ECDSA signature of other contents": { ...ecdsaSigned, env: "staging" },
  "a valid HMAC signature": hmacSigned,
  "an HMAC signature of other contents": { ...hmacSigned, env: "staging" },
  "an unknown algorithm": {
    ...ecdsaSigned,
    signature: { ...ecdsaSigned.signature, algorithm: "RS256" },
  },
  "an Ed25519 signature": {
    ...ecdsaSigned,
    signature: { ...ecdsaSigned.signature, algorithm: "Ed25519" },
  },
  "an eddsa signature": {
    ...ecdsaSigned,
    signature: { ...ecdsaSigned.signature, algorithm: "eddsa" },
  },
  "an ED25519 signature": {
    ...ecdsaSigned,
    signature: { ...ecdsaSigned.signature, algorithm: "ED25519" },
  },
};

/** The configured keys of the table below. */
const KEYS: Record<string, VerifyKeyOptions | undefined> = {
  "no key": undefined,
  "an ECDSA key": { algorithm: "ECDSA_SHA_256", publicKey: spkiPem },
  "an HMAC key": { algorithm: "HMAC_SHA256", publicKey: SECRET },
};

const VERIFIED = "verified";
const UNSIGNED = "unsigned";
const MISSING = "BUNDLE_SIGNATURE_MISSING";
const UNVERIFIED = "BUNDLE_SIGNATURE_UNVERIFIED";
const INVALID = "BUNDLE_SIGNATURE_INVALID";
const MISMATCH = "BUNDLE_SIGNATURE_ALGORITHM_MISMATCH";
const REMOVED = "BUNDLE_SIGNATURE_ALGORITHM_REMOVED";

/**
 * Expected outcome for each signature, by key and allowUnsigned:
 * [no key, no key + allowUnsigned, ECDSA key, ECDSA key + allowUnsigned, HMAC key, HMAC key + allowUnsigned].
 */
const TABLE: Record<string, string[]> = {
  "no signature": ["BUNDLE_UNSIGNED", UNSIGNED, MISSING, MISSING, MISSING, MISSING],
  "a valid ECDSA signature": [UNVERIFIED, UNVERIFIED, VERIFIED, VERIFIED, MISMATCH, MISMATCH],
  "an ECDSA signature of other contents": [
    UNVERIFIED,
    UNVERIFIED,
    INVALID,
    INVALID,
    MISMATCH,
    MISMATCH,
  ],
  "a valid HMAC signature": [UNVERIFIED, UNVERIFIED, MISMATCH, MISMATCH, VERIFIED, VERIFIED],
  "an HMAC signature of other contents": [
    UNVERIFIED,
    UNVERIFIED,
    MISMATCH,
    MISMATCH,
    INVALID,
    INVALID,
  ],
  "an unknown algorithm": [INVALID, INVALID, INVALID, INVALID, INVALID, INVALID],
  "an Ed25519 signature": [REMOVED, REMOVED, REMOVED, REMOVED, REMOVED, REMOVED],
  "an eddsa signature": [REMOVED, REMOVED, REMOVED, REMOVED, REMOVED, REMOVED],
  "an ED25519 signature": [REMOVED, REMOVED, REMOVED, REMOVED, REMOVED, REMOVED],
};

for (const [signature, outcomes] of Object.entries(TABLE)) {
  let column = 0;
  for (const [keyName, verify] of Object.entries(KEYS)) {
    for (const allowUnsigned of [false, true]) {
      const want = outcomes[column++]!;
      const options: VerifyBundleSignatureOptions = verify === undefined
        ? { allowUnsigned }
        : { verify, allowUnsigned };
      Deno.test(`verifyBundleSignature() with ${signature}, ${keyName}, allowUnsigned ${allowUnsigned}: ${want}`, async () => {
        const bundle = BUNDLES[signature]!;
        if (want === VERIFIED) {
          // The configured keys of the table carry no key id: the one recorded is only claimed.
          assert.deepEqual(await verifyBundleSignature(bundle, options), {
            status: "verified",
            algorithm: bundle.signature!.algorithm,
            keyId: bundle.signature!.keyId,
          });
        } else if (want === UNSIGNED) {
          assert.deepEqual(await verifyBundleSignature(bundle, options), { status: "unsigned" });
        } else {
          await assertRejectsCode(verifyBundleSignature(bundle, options), want as ErrorCode);
        }
      });
    }
  }
}

Deno.test("verifyBundleSignature() treats absent options as no key and allowUnsigned false", async () => {
  await assertRejectsCode(verifyBundleSignature(BUNDLE), "BUNDLE_UNSIGNED");
  await assertRejectsCode(verifyBundleSignature(ecdsaSigned), "BUNDLE_SIGNATURE_UNVERIFIED");
});

Deno.test("verifyBundleSignature() returns results without undefined fields", async () => {
  const unsigned = await verifyBundleSignature(BUNDLE, { allowUnsigned: true });
  assert.deepEqual(Object.keys(unsigned), ["status"]);
  const verified = await verifyBundleSignature(hmacSigned, {
    verify: { algorithm: "HMAC_SHA256", publicKey: SECRET },
  });
  assert.deepEqual(Object.entries(verified), [
    ["status", "verified"],
    ["algorithm", "HMAC_SHA256"],
    ["keyId", "hmac-1"],
  ]);
  const named = await verifyBundleSignature(hmacSigned, {
    verify: { algorithm: "HMAC_SHA256", publicKey: SECRET, keyId: "hmac-1" },
  });
  assert.deepEqual(Object.entries(named), [
    ["status", "verified"],
    ["algorithm", "HMAC_SHA256"],
    ["keyId", "hmac-1"],
  ]);
});

Deno.test("verifyBundleSignature() reports the configured key that verified, not the key id the bundle claims", async () => {
  // Signed with the key configured as "k-old", but labelled "k-new": the label is not signed.
  const relabelled = {
    ...ecdsaSigned,
    signature: { ...ecdsaSigned.signature, keyId: "k-new" },
  };
  const other = await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, [
    "sign",
    "verify",
  ]);
  const verify: VerifyKeyOptions[] = [
    { algorithm: "ECDSA_SHA_256", publicKey: spkiPem, keyId: "k-old" },
    { algorithm: "ECDSA_SHA_256", publicKey: other.publicKey, keyId: "k-new" },
  ];
  assert.deepEqual(await verifyBundleSignature(relabelled, { verify }), {
    status: "verified",
    algorithm: "ECDSA_SHA_256",
    keyId: "k-old",
    claimedKeyId: "k-new",
  });
});

Deno.test("verifyBundleSignature() reports the id recorded at signing as keyId when the configured key has none", async () => {
  // keyId is the identifier recorded at signing (docs/local-client.md "`status()`").
  for (const verify of [{ algorithm: "HMAC_SHA256" as const, publicKey: SECRET }]) {
    assert.deepEqual(await verifyBundleSignature(hmacSigned, { verify }), {
      status: "verified",
      algorithm: "HMAC_SHA256",
      keyId: "hmac-1",
    });
  }
  // A key set in which the verifying key has no id: the same.
  const other = await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, [
    "sign",
    "verify",
  ]);
  const mixed: VerifyKeyOptions[] = [
    { algorithm: "ECDSA_SHA_256", publicKey: other.publicKey, keyId: "k-other" },
    { algorithm: "ECDSA_SHA_256", publicKey: spkiPem },
  ];
  assert.deepEqual(await verifyBundleSignature(ecdsaSigned, { verify: mixed }), {
    status: "verified",
    algorithm: "ECDSA_SHA_256",
    keyId: ecdsaSigned.signature!.keyId,
  });
});

Deno.test("verifyBundleSignature() says Ed25519 is no longer supported and how to re-sign", async () => {
  const error = await assertRejectsCode(
    verifyBundleSignature(BUNDLES["an Ed25519 signature"]!, { allowUnsigned: true }),
    "BUNDLE_SIGNATURE_ALGORITHM_REMOVED",
  );
  assert.equal(
    error.message,
    "Ed25519 signatures are no longer supported; re-sign with ECDSA_SHA_256 (P-256) or HMAC_SHA256",
  );
});

Deno.test("verifyBundleSignature() names the supported algorithms for an unknown one", async () => {
  const error = await assertRejectsCode(
    verifyBundleSignature(BUNDLES["an unknown algorithm"]!),
    "BUNDLE_SIGNATURE_INVALID",
  );
  assert.match(
    error.message,
    /"RS256" is not supported; supported algorithms: ECDSA_SHA_256, HMAC_SHA256/,
  );
});

Deno.test("verifyBundleSignature() rejects a malformed signature object with BUNDLE_SIGNATURE_INVALID", async () => {
  const good = hmacSigned.signature;
  const malformed: [string, unknown][] = [
    ["a string", "abc"],
    ["null", null],
    ["an array", [good]],
    ["no algorithm", { keyId: good.keyId, value: good.value }],
    ["a numeric keyId", { ...good, keyId: 1 }],
    ["no keyId", { algorithm: good.algorithm, value: good.value }],
    ["a numeric value", { ...good, value: 1 }],
    ["no value", { algorithm: good.algorithm, keyId: good.keyId }],
    ["an upper-case HMAC value", { ...good, value: good.value.toUpperCase() }],
    ["an ECDSA value that is not base64", { ...ecdsaSigned.signature, value: "@@@@" }],
  ];
  for (const [name, signature] of malformed) {
    const bundle = { ...BUNDLE, signature } as RuntimeBundleV1;
    for (const verify of Object.values(KEYS)) {
      const options = verify === undefined ? {} : { verify };
      if (name.includes("ECDSA") && verify?.algorithm !== "ECDSA_SHA_256") continue;
      if (name.includes("HMAC") && verify?.algorithm !== "HMAC_SHA256") continue;
      const error = await assertRejectsCode(
        verifyBundleSignature(bundle, options),
        "BUNDLE_SIGNATURE_INVALID",
      );
      assert.match(error.message, /malformed/, name);
    }
  }
});

Deno.test("verifyBundleSignature() checks the signature, not the checksum", async () => {
  const wrongChecksum = { ...hmacSigned, checksum: "sha256:" + "0".repeat(64) };
  const result = await verifyBundleSignature(wrongChecksum, {
    verify: { algorithm: "HMAC_SHA256", publicKey: SECRET },
  });
  assert.equal(result.status, "verified");
});

Deno.test("verifyBundleSignature() reports an unusable configured key as INVALID_KEY", async () => {
  await assertRejectsCode(
    verifyBundleSignature(ecdsaSigned, {
      verify: { algorithm: "ECDSA_SHA_256", publicKey: "-----BEGIN PUBLIC KEY-----" },
    }),
    "INVALID_KEY",
  );
  await assertRejectsCode(
    verifyBundleSignature(hmacSigned, {
      verify: { algorithm: "HMAC_SHA256", publicKey: SECRET.slice(1) },
    }),
    "INVALID_KEY",
  );
});

Deno.test("verifyBundleSignature() rejects unusable options with INVALID_OPTIONS", async () => {
  const cases: unknown[] = [
    { verify: { algorithm: "RS256", publicKey: SECRET } },
    { verify: { algorithm: "Ed25519", publicKey: SECRET } },
    { verify: null },
    { verify: "HMAC_SHA256" },
    { allowUnsigned: "yes" },
  ];
  for (const options of cases) {
    await assertRejectsCode(
      verifyBundleSignature(hmacSigned, options as VerifyBundleSignatureOptions),
      "INVALID_OPTIONS",
    );
  }
});

Deno.test("verifyBundleSignature() imports the key once per verify object", async () => {
  const subtle = crypto.subtle;
  const importKey = subtle.importKey;
  let imports = 0;
  subtle.importKey = function (...args: Parameters<SubtleCrypto["importKey"]>) {
    imports++;
    return importKey.apply(subtle, args);
  } as SubtleCrypto["importKey"];
  try {
    const verify: VerifyKeyOptions = { algorithm: "ECDSA_SHA_256", publicKey: spkiPem };
    for (let i = 0; i < 3; i++) await verifyBundleSignature(ecdsaSigned, { verify });
    assert.equal(imports, 1);
    await verifyBundleSignature(ecdsaSigned, { verify: { ...verify } });
    assert.equal(imports, 2);
    // A verify object whose key changed is imported again.
    verify.algorithm = "HMAC_SHA256";
    verify.publicKey = SECRET;
    await verifyBundleSignature(hmacSigned, { verify });
    assert.equal(imports, 3);
    await verifyBundleSignature(hmacSigned, { verify });
    assert.equal(imports, 3);
  } finally {
    subtle.importKey = importKey;
  }
});
