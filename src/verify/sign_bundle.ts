// This module is browser compatible.
/**
 * Signing a bundle: checksum and detached signature over its canonical payload.
 *
 * @module
 */
import { canonicalPayloadBytes, sortBundleKeys } from "../engine/canonical_payload.ts";
import { toHex } from "../_internal/encoding.ts";
import { PolicyError } from "../public/policy_error.ts";
import type { RuntimeBundleV1, Signature, SignatureAlgorithm } from "../engine/types.ts";
import { quote, unsupported } from "./import_key.ts";
import { signPayload } from "./sign_payload.ts";
import { isSignatureAlgorithm } from "./signature_algorithms.ts";
import { subtleCrypto } from "../_internal/subtle_crypto.ts";
import { describeThrown } from "../_internal/describe_thrown.ts";
import { checkedByCaller, checkOptions } from "../_internal/check_options.ts";
import { assertSignable } from "./_signable.ts";
import type { WebCryptoKey } from "./web_crypto_key.ts";

/** Options of {@link signBundle}. */
export interface SignBundleOptions {
  /** The signature algorithm. */
  algorithm: SignatureAlgorithm;
  /**
   * For `ECDSA_SHA_256`, PKCS#8 or SEC1 PEM text of a P-256 private key, or
   * a private `CryptoKey`; for `HMAC_SHA256`, the 64-hex secret or a `CryptoKey`.
   */
  key: string | WebCryptoKey;
  /** The identifier recorded in `signature.keyId` (not empty). */
  keyId: string;
}

/** The options of {@link signBundle}: each value is checked by the function itself. */
const SIGN_FIELDS = { algorithm: checkedByCaller, key: checkedByCaller, keyId: checkedByCaller };

/**
 * Returns a copy of `bundle` with `checksum` (`sha256:` of the canonical
 * payload) and `signature: { algorithm, keyId, value }` set. The input is
 * not modified, and the copy shares no objects with it. Its rules and
 * defaults list their keys in canonical order (see `sortBundleKeys`), so
 * the file written from it loads on the faster path.
 *
 * @throws {PolicyError} `INVALID_KEY` for an unusable key, `INVALID_OPTIONS`
 * for an unsupported algorithm or an empty `keyId`, `BUNDLE_INVALID` (with
 * the validation issues) for a bundle that `validateBundle` finds invalid,
 * that is not plain data or that the canonical payload cannot represent
 * (nested too deep, a number that is not finite): what is signed loads.
 *
 * @example Signing with an ECDSA P-256 key
 * ```ts
 * import { signBundle } from "./sign_bundle.ts";
 * import { verifyBundleSignature } from "./verify_bundle_signature.ts";
 * import assert from "node:assert/strict";
 *
 * const pair = await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, false, ["sign", "verify"]);
 * const bundle = { schemaVersion: 1 as const, env: "prod" as const, policies: [] };
 *
 * const signed = await signBundle(bundle, { algorithm: "ECDSA_SHA_256", key: pair.privateKey, keyId: "release-1" });
 * assert.match(signed.checksum, /^sha256:[0-9a-f]{64}$/);
 * assert.equal(signed.signature.keyId, "release-1");
 * assert.equal("signature" in bundle, false);
 *
 * const result = await verifyBundleSignature(signed, {
 *   verify: { algorithm: "ECDSA_SHA_256", publicKey: pair.publicKey },
 * });
 * // The configured key has no key id: the one recorded at signing is reported.
 * assert.deepEqual(result, { status: "verified", algorithm: "ECDSA_SHA_256", keyId: "release-1" });
 * ```
 */
export async function signBundle<T extends RuntimeBundleV1>(
  bundle: T,
  options: SignBundleOptions,
): Promise<T & { checksum: string; signature: Signature }> {
  // The checks below say what is wrong with each value; this refuses unknown keys.
  checkOptions(options, SIGN_FIELDS, "signBundle");
  const { algorithm, key, keyId } = options;
  if (!isSignatureAlgorithm(algorithm)) throw unsupported(algorithm);
  if (typeof keyId !== "string" || keyId === "") {
    throw new PolicyError(
      "INVALID_OPTIONS",
      `keyId must be a non-empty string naming the signing key; got ${quote(keyId)}`,
    );
  }
  let copy: T;
  try {
    copy = structuredClone(bundle);
  } catch (error) {
    throw new PolicyError(
      "BUNDLE_INVALID",
      `the bundle cannot be copied for signing (${
        describeThrown(error)
      }); it must be plain JSON data, not nested too deep`,
      { cause: error },
    );
  }
  // What no client would load is not signed (docs/errors.md BUNDLE_INVALID, with the issues).
  assertSignable(copy);
  // Rules and defaults in canonical key order: the payload below, and every
  // later load of the file written from the result, take the faster path. A
  // payload the canonical form refuses (nested too deep, a number that is not
  // finite) throws here, before any crypto work starts.
  copy = sortBundleKeys(copy);
  const payload = canonicalPayloadBytes(copy);
  // One after the other over the same bytes: a key that fails leaves no hashing behind.
  const checksum = `sha256:${toHex(await subtleCrypto().digest("SHA-256", payload))}`;
  const value = await signPayload(algorithm, key, payload);
  return { ...copy, checksum, signature: { algorithm, keyId, value } };
}
