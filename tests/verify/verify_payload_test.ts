import assert from "node:assert/strict";
import { ecdsaDerToRaw, ecdsaRawToDer } from "../../src/verify/_der.ts";
import { decodeBase64, encodeBase64 } from "../../src/_internal/encoding.ts";
import { signPayload } from "../../src/verify/sign_payload.ts";
import { verifyPayload } from "../../src/verify/verify_payload.ts";
import { assertRejectsCode } from "../_assert_policy_error.ts";

const SECRET = "a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90";
const OTHER_SECRET = "b1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90";
const DATA = new TextEncoder().encode("canonical payload");
const OTHER_DATA = new TextEncoder().encode("canonical payloaD");

const ecdsa = await crypto.subtle.generateKey(
  { name: "ECDSA", namedCurve: "P-256" },
  false,
  ["sign", "verify"],
);
const otherEcdsa = await crypto.subtle.generateKey(
  { name: "ECDSA", namedCurve: "P-256" },
  false,
  ["sign", "verify"],
);

Deno.test("verifyPayload() returns true for a matching ECDSA signature and false for other data or another key", async () => {
  const value = await signPayload("ECDSA_SHA_256", ecdsa.privateKey, DATA);
  assert.equal(await verifyPayload("ECDSA_SHA_256", ecdsa.publicKey, DATA, value), true);
  assert.equal(await verifyPayload("ECDSA_SHA_256", ecdsa.publicKey, OTHER_DATA, value), false);
  assert.equal(await verifyPayload("ECDSA_SHA_256", otherEcdsa.publicKey, DATA, value), false);
});

Deno.test("verifyPayload() accepts both the low-s and the high-s form of an ECDSA signature", async () => {
  // (r, s) and (r, n - s) are both valid ECDSA signatures; openssl may write either.
  const n = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n;
  const raw = ecdsaDerToRaw(
    decodeBase64(await signPayload("ECDSA_SHA_256", ecdsa.privateKey, DATA))!,
  );
  const s = BigInt(
    "0x" + [...raw.subarray(32)].map((b) => b.toString(16).padStart(2, "0")).join(""),
  );
  const flipped = raw.slice();
  flipped.set(
    (n - s).toString(16).padStart(64, "0").match(/../g)!.map((byte) => parseInt(byte, 16)),
    32,
  );
  const value = encodeBase64(ecdsaRawToDer(flipped));
  assert.equal(await verifyPayload("ECDSA_SHA_256", ecdsa.publicKey, DATA, value), true);
});

Deno.test("verifyPayload() throws BUNDLE_SIGNATURE_INVALID for a malformed ECDSA value", async () => {
  const value = await signPayload("ECDSA_SHA_256", ecdsa.privateKey, DATA);
  const raw64 = encodeBase64(ecdsaDerToRaw(decodeBase64(value)!));
  for (
    const bad of [
      "",
      "not base64!",
      value.replace(/=+$/, ""), // padding dropped (when there is any)
      `${value.slice(0, 12)}\n${value.slice(12)}`, // a line break
      ` ${value}`,
      raw64, // raw r‖s instead of DER
      encodeBase64(new Uint8Array([0x30, 0x00])),
    ]
  ) {
    if (bad === value) continue;
    await assertRejectsCode(
      verifyPayload("ECDSA_SHA_256", ecdsa.publicKey, DATA, bad),
      "BUNDLE_SIGNATURE_INVALID",
    );
  }
});

Deno.test("verifyPayload() returns true for a matching HMAC and false for other data or another secret", async () => {
  const value = await signPayload("HMAC_SHA256", SECRET, DATA);
  assert.equal(await verifyPayload("HMAC_SHA256", SECRET, DATA, value), true);
  assert.equal(await verifyPayload("HMAC_SHA256", SECRET, OTHER_DATA, value), false);
  assert.equal(await verifyPayload("HMAC_SHA256", OTHER_SECRET, DATA, value), false);
  const flipped = (value[0] === "0" ? "1" : "0") + value.slice(1);
  assert.equal(await verifyPayload("HMAC_SHA256", SECRET, DATA, flipped), false);
});

Deno.test("verifyPayload() throws BUNDLE_SIGNATURE_INVALID for an HMAC value that is not 64 lowercase hex", async () => {
  const value = await signPayload("HMAC_SHA256", SECRET, DATA);
  for (
    const bad of [
      value.toUpperCase(),
      value.slice(1),
      value + "0",
      `${value}\n`,
      encodeBase64(new Uint8Array(32)),
      "",
    ]
  ) {
    await assertRejectsCode(
      verifyPayload("HMAC_SHA256", SECRET, DATA, bad),
      "BUNDLE_SIGNATURE_INVALID",
    );
  }
});

Deno.test("verifyPayload() throws BUNDLE_SIGNATURE_INVALID for a value that is not a string", async () => {
  await assertRejectsCode(
    verifyPayload("HMAC_SHA256", SECRET, DATA, 42 as unknown as string),
    "BUNDLE_SIGNATURE_INVALID",
  );
});

Deno.test("verifyPayload() throws INVALID_KEY for a key that does not fit the algorithm", async () => {
  const value = await signPayload("HMAC_SHA256", SECRET, DATA);
  await assertRejectsCode(
    verifyPayload("HMAC_SHA256", ecdsa.publicKey, DATA, value),
    "INVALID_KEY",
  );
  await assertRejectsCode(verifyPayload("ECDSA_SHA_256", SECRET, DATA, value), "INVALID_KEY");
  await assertRejectsCode(
    verifyPayload("ECDSA_SHA_256", ecdsa.privateKey, DATA, value),
    "INVALID_KEY",
  );
});
