// Signing and verifying with both algorithms under Node, through the npm
// build and Node's own WebCrypto (globalThis.crypto.subtle). node:crypto,
// an implementation independent of WebCrypto's API, cross-checks every
// signature in both directions.
import assert from "node:assert/strict";
import { createHmac, generateKeyPairSync, sign, verify } from "node:crypto";
import { test } from "node:test";
import { importPackage, testdata } from "./_package.mjs";

const { canonicalPayloadBytes } = await importPackage("./engine");
const { importPublicKey, loadBundle, signBundle, verifyBundleSignature } = await importPackage(
  "./verify",
);

const BUNDLE = testdata("verify/bundle.json");
const SECRET = "00ff11ee22dd33cc44bb55aa66997788aa55bb44cc33dd22ee11ff0000ff11ee";
const pair = generateKeyPairSync("ec", { namedCurve: "prime256v1" });
const PKCS8 = pair.privateKey.export({ type: "pkcs8", format: "pem" });
const SEC1 = pair.privateKey.export({ type: "sec1", format: "pem" });
const SPKI = pair.publicKey.export({ type: "spki", format: "pem" });

const tampered = (bundle) => {
  const copy = structuredClone(bundle);
  copy.policies[0].rules[0].priority += 1;
  return copy;
};

test("Node provides WebCrypto as globalThis.crypto.subtle (no polyfill)", () => {
  assert.equal(typeof globalThis.crypto?.subtle?.sign, "function");
});

test("HMAC_SHA256: signBundle() gives the MAC node:crypto computes, and it verifies", async () => {
  const signed = await signBundle(BUNDLE, { algorithm: "HMAC_SHA256", key: SECRET, keyId: "ci" });
  const mac = createHmac("sha256", Buffer.from(SECRET, "hex"))
    .update(canonicalPayloadBytes(BUNDLE)).digest("hex");
  assert.deepEqual(signed.signature, { algorithm: "HMAC_SHA256", keyId: "ci", value: mac });
  const options = { verify: { algorithm: "HMAC_SHA256", publicKey: SECRET } };
  // The key is configured without a key id: the one the signature records is only claimed.
  assert.deepEqual(await verifyBundleSignature(signed, options), {
    status: "verified",
    algorithm: "HMAC_SHA256",
    keyId: "ci",
  });
  await assert.rejects(verifyBundleSignature(tampered(signed), options), {
    code: "BUNDLE_SIGNATURE_INVALID",
  });
  const loaded = await loadBundle(JSON.stringify(signed), options);
  assert.equal(loaded.status.signature.status, "verified");
  assert.equal(loaded.status.checksum, signed.checksum);
});

for (const [name, privateKey] of [["PKCS#8", PKCS8], ["SEC1", SEC1]]) {
  test(`ECDSA_SHA_256: a ${name} PEM key signs in DER that node:crypto verifies`, async () => {
    const signed = await signBundle(BUNDLE, {
      algorithm: "ECDSA_SHA_256",
      key: privateKey,
      keyId: "release",
    });
    const der = Buffer.from(signed.signature.value, "base64");
    assert.equal(der[0], 0x30, "a DER SEQUENCE");
    assert.ok(
      verify("sha256", canonicalPayloadBytes(BUNDLE), pair.publicKey, der),
      "node:crypto verifies the signature",
    );
    const options = { verify: { algorithm: "ECDSA_SHA_256", publicKey: SPKI } };
    assert.equal((await verifyBundleSignature(signed, options)).status, "verified");
    await assert.rejects(verifyBundleSignature(tampered(signed), options), {
      code: "BUNDLE_SIGNATURE_INVALID",
    });
  });
}

test("ECDSA_SHA_256: a DER signature made by node:crypto verifies with the SPKI PEM key", async () => {
  const value = sign("sha256", canonicalPayloadBytes(BUNDLE), pair.privateKey).toString("base64");
  const signed = { ...BUNDLE, signature: { algorithm: "ECDSA_SHA_256", keyId: "node", value } };
  const options = { verify: { algorithm: "ECDSA_SHA_256", publicKey: SPKI } };
  assert.deepEqual(await verifyBundleSignature(signed, options), {
    status: "verified",
    algorithm: "ECDSA_SHA_256",
    keyId: "node",
  });
  const loaded = await loadBundle(JSON.stringify(signed), options);
  assert.equal(loaded.status.signature.status, "verified");
  assert.equal(loaded.compiled.policyCount, BUNDLE.policies.length);
});

test("ECDSA_SHA_256: CryptoKeys from Node's WebCrypto sign and verify", async () => {
  const keys = await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, false, [
    "sign",
    "verify",
  ]);
  const signed = await signBundle(BUNDLE, {
    algorithm: "ECDSA_SHA_256",
    key: keys.privateKey,
    keyId: "k",
  });
  const options = { verify: { algorithm: "ECDSA_SHA_256", publicKey: keys.publicKey } };
  assert.equal((await verifyBundleSignature(signed, options)).status, "verified");
  const imported = await importPublicKey(SPKI);
  assert.equal(imported.type, "public");
  assert.equal(imported.extractable, false);
});

test("the algorithm of the configured key decides: a mismatch and Ed25519 are refused", async () => {
  const signed = await signBundle(BUNDLE, { algorithm: "HMAC_SHA256", key: SECRET, keyId: "ci" });
  await assert.rejects(
    verifyBundleSignature(signed, { verify: { algorithm: "ECDSA_SHA_256", publicKey: SPKI } }),
    { code: "BUNDLE_SIGNATURE_ALGORITHM_MISMATCH" },
  );
  const ed25519 = { ...BUNDLE, signature: { algorithm: "Ed25519", keyId: "old", value: "AAAA" } };
  await assert.rejects(
    verifyBundleSignature(ed25519, { verify: { algorithm: "HMAC_SHA256", publicKey: SECRET } }),
    { code: "BUNDLE_SIGNATURE_ALGORITHM_REMOVED" },
  );
});
