// This module is browser compatible.
/**
 * Signing bytes with either bundle signature algorithm.
 *
 * @module
 */
import { toHex } from "../_internal/encoding.ts";
import type { SignatureAlgorithm } from "../engine/types.ts";
import { ecdsaRawToDer } from "./_der.ts";
import { encodeBase64 } from "../_internal/encoding.ts";
import { importSignKey } from "./import_key.ts";
import { subtleCrypto } from "../_internal/subtle_crypto.ts";
import type { WebCryptoKey } from "./web_crypto_key.ts";

/**
 * Signs `data` and returns the signature value as a bundle carries it:
 * for `ECDSA_SHA_256`, the standard base64 of the DER signature (what
 * `openssl dgst -sha256 -sign key.pem` writes, base64-encoded); for
 * `HMAC_SHA256`, the lowercase hex MAC (what
 * `openssl dgst -sha256 -mac HMAC -macopt hexkey:<secret>` prints).
 *
 * @param algorithm The signature algorithm.
 * @param key For ECDSA, PKCS#8 or SEC1 PEM text or a private `CryptoKey`; for
 * HMAC, the 64-hex secret or a `CryptoKey` (see {@link importPrivateKey} and
 * {@link importHmacKey}).
 * @param data The bytes to sign, normally a bundle's canonical payload.
 * @throws {PolicyError} `INVALID_KEY` for an unusable key, `INVALID_OPTIONS`
 * for an unsupported algorithm.
 *
 * @example Signing with an HMAC secret
 * ```ts
 * import { signPayload } from "./sign_payload.ts";
 * import assert from "node:assert/strict";
 *
 * const secret = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";
 * const value = await signPayload("HMAC_SHA256", secret, new TextEncoder().encode("hello"));
 * assert.match(value, /^[0-9a-f]{64}$/);
 * ```
 */
export async function signPayload(
  algorithm: SignatureAlgorithm,
  key: string | WebCryptoKey,
  data: ArrayBuffer | ArrayBufferView<ArrayBuffer>,
): Promise<string> {
  const cryptoKey = await importSignKey(algorithm, key);
  if (algorithm === "HMAC_SHA256") {
    return toHex(await subtleCrypto().sign("HMAC", cryptoKey, data));
  }
  const raw = await subtleCrypto().sign({ name: "ECDSA", hash: "SHA-256" }, cryptoKey, data);
  return encodeBase64(ecdsaRawToDer(new Uint8Array(raw)));
}
