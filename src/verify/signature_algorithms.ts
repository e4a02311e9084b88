// This module is browser compatible.
/**
 * The signature algorithms a bundle can carry.
 *
 * @module
 */
import type { SignatureAlgorithm } from "../engine/types.ts";

/**
 * Every supported signature algorithm: ECDSA P-256 with SHA-256 (base64 DER
 * signature) and HMAC-SHA256 with a 256-bit secret (lowercase hex).
 *
 * @example Listing the algorithms
 * ```ts
 * import { SIGNATURE_ALGORITHMS } from "./signature_algorithms.ts";
 * import assert from "node:assert/strict";
 *
 * assert.deepEqual(SIGNATURE_ALGORITHMS, ["ECDSA_SHA_256", "HMAC_SHA256"]);
 * ```
 */
export const SIGNATURE_ALGORITHMS: readonly SignatureAlgorithm[] = Object.freeze([
  "ECDSA_SHA_256",
  "HMAC_SHA256",
]);

/**
 * True when `value` is one of {@link SIGNATURE_ALGORITHMS} (exact spelling).
 *
 * @example Checking an algorithm name
 * ```ts
 * import { isSignatureAlgorithm } from "./signature_algorithms.ts";
 * import assert from "node:assert/strict";
 *
 * assert.equal(isSignatureAlgorithm("HMAC_SHA256"), true);
 * assert.equal(isSignatureAlgorithm("hmac_sha256"), false);
 * assert.equal(isSignatureAlgorithm("Ed25519"), false);
 * ```
 */
export function isSignatureAlgorithm(value: unknown): value is SignatureAlgorithm {
  return value === "ECDSA_SHA_256" || value === "HMAC_SHA256";
}
