// This module is browser compatible.
/**
 * Verifying a signature value over bytes with either bundle signature algorithm.
 *
 * @module
 */
import { PolicyError } from "../public/policy_error.ts";
import type { SignatureAlgorithm } from "../engine/types.ts";
import { ecdsaDerToRaw } from "./_der.ts";
import { decodeBase64, decodeHex, isLowerHex64 } from "../_internal/encoding.ts";
import { importVerifyKey } from "./import_key.ts";
import { subtleCrypto } from "../_internal/subtle_crypto.ts";
import type { WebCryptoKey } from "./web_crypto_key.ts";

/**
 * Checks a signature value over `data` with WebCrypto's `verify` (for HMAC
 * too, so the comparison is constant time).
 *
 * A well-formed value that does not match gives `false`. A malformed value
 * throws instead, so that the caller can say what is wrong with it: an
 * `ECDSA_SHA_256` value must be canonical standard base64 of a strict DER
 * P-256 signature, an `HMAC_SHA256` value exactly 64 lowercase hex characters.
 *
 * @param algorithm The signature algorithm.
 * @param key For ECDSA, SPKI PEM text or a public `CryptoKey`; for HMAC, the
 * 64-hex secret or a `CryptoKey` (see {@link importPublicKey} and
 * {@link importHmacKey}).
 * @param data The signed bytes, normally a bundle's canonical payload.
 * @param value The signature value.
 * @returns Whether the signature matches.
 * @throws {PolicyError} `BUNDLE_SIGNATURE_INVALID` for a malformed value,
 * `INVALID_KEY` for an unusable key, `INVALID_OPTIONS` for an unsupported
 * algorithm.
 *
 * @example Verifying an HMAC signature
 * ```ts
 * import { signPayload } from "./sign_payload.ts";
 * import { verifyPayload } from "./verify_payload.ts";
 * import assert from "node:assert/strict";
 *
 * const secret = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";
 * const data = new TextEncoder().encode("hello");
 * const value = await signPayload("HMAC_SHA256", secret, data);
 *
 * assert.equal(await verifyPayload("HMAC_SHA256", secret, data, value), true);
 * assert.equal(await verifyPayload("HMAC_SHA256", secret, new TextEncoder().encode("hellO"), value), false);
 * await assert.rejects(verifyPayload("HMAC_SHA256", secret, data, value.toUpperCase()), {
 *   code: "BUNDLE_SIGNATURE_INVALID",
 * });
 * ```
 */
export async function verifyPayload(
  algorithm: SignatureAlgorithm,
  key: string | WebCryptoKey,
  data: ArrayBuffer | ArrayBufferView<ArrayBuffer>,
  value: string,
): Promise<boolean> {
  const cryptoKey = await importVerifyKey(algorithm, key);
  if (typeof value !== "string") throw malformed("the signature value is not a string");
  if (algorithm === "HMAC_SHA256") {
    if (!isLowerHex64(value)) {
      throw malformed("an HMAC_SHA256 signature value is 64 lowercase hex characters");
    }
    return await subtleCrypto().verify("HMAC", cryptoKey, decodeHex(value)!, data);
  }
  const der = decodeBase64(value);
  if (der === undefined) {
    throw malformed("an ECDSA_SHA_256 signature value is standard base64 with padding");
  }
  return await subtleCrypto().verify(
    { name: "ECDSA", hash: "SHA-256" },
    cryptoKey,
    ecdsaDerToRaw(der),
    data,
  );
}

function malformed(reason: string): PolicyError {
  return new PolicyError("BUNDLE_SIGNATURE_INVALID", `the signature value is malformed: ${reason}`);
}
