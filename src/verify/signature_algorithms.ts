// This module is browser compatible.
/**
 * The signature algorithms a bundle can carry.
 *
 * @module
 */
import { SIGNATURE_ALGORITHMS, type SignatureAlgorithm } from "../public/vocabulary.ts";

// Declared once with the rest of the vocabulary (src/public/vocabulary.ts).
export { SIGNATURE_ALGORITHMS };

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
  return (SIGNATURE_ALGORITHMS as readonly unknown[]).includes(value);
}
