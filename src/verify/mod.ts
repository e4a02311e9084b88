// This module is browser compatible.
/**
 * Signing and verifying bundles with WebCrypto only: ECDSA P-256 with
 * SHA-256 (base64 DER signatures, interoperable with `openssl dgst -sha256
 * -sign`) and HMAC-SHA256 (lowercase hex, as `openssl dgst -sha256 -mac
 * HMAC` prints), over the canonical payload. Keys are PEM text (SPKI public
 * keys; PKCS#8 or SEC1 private keys), 64-hex HMAC secrets or `CryptoKey`s;
 * `generateEcdsaKeyPair` and `generateHmacSecret` make new ones. Touches no
 * file system and no network.
 *
 * @example Signing and verifying with an HMAC secret
 * ```ts
 * import { signBundle, verifyBundleSignature } from "./mod.ts";
 * import assert from "node:assert/strict";
 *
 * const secret = "8f1e0c2b9a7d6e5f4c3b2a1908f7e6d5c4b3a29180f7e6d5c4b3a2918f7e6d5c";
 * const bundle = { schemaVersion: 1 as const, env: "test" as const, policies: [] };
 * const signed = await signBundle(bundle, { algorithm: "HMAC_SHA256", key: secret, keyId: "ci" });
 *
 * const result = await verifyBundleSignature(signed, { verify: { algorithm: "HMAC_SHA256", publicKey: secret } });
 * assert.equal(result.status, "verified");
 * await assert.rejects(
 *   verifyBundleSignature({ ...signed, env: "prod" }, { verify: { algorithm: "HMAC_SHA256", publicKey: secret } }),
 *   { code: "BUNDLE_SIGNATURE_INVALID" },
 * );
 * ```
 *
 * @module
 */
export * from "./signature_algorithms.ts";
export * from "./web_crypto_key.ts";
export * from "./import_public_key.ts";
export * from "./import_private_key.ts";
export * from "./import_hmac_key.ts";
export * from "./generate_ecdsa_key_pair.ts";
export * from "./generate_hmac_secret.ts";
export * from "./sign_payload.ts";
export * from "./verify_payload.ts";
export * from "./sign_bundle.ts";
export * from "./sign_freshness.ts";
export {
  DEFAULT_CLOCK_SKEW_MS,
  type FreshnessStatus,
  MAX_CLOCK_SKEW_MS,
  verifyFreshness,
  type VerifyFreshnessOptions,
} from "./verify_freshness.ts";
export {
  type BundleSignatureStatus,
  MAX_VERIFY_KEYS,
  verifyBundleSignature,
  type VerifyBundleSignatureOptions,
  type VerifyKeyOptions,
  type VerifyKeySet,
} from "./verify_bundle_signature.ts";
export {
  type BundleStatus,
  DEFAULT_MAX_FILE_BYTES,
  inspectBundle,
  type InspectedBundle,
  loadBundle,
  type LoadBundleOptions,
  type LoadedBundle,
} from "./load_bundle.ts";
