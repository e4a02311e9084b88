// This module is browser compatible.
/**
 * The signature step of loading a bundle (`docs/errors.md`, "Loading a
 * bundle": the checks and the verification states).
 *
 * @module
 */
import { canonicalPayloadBytes } from "../engine/canonical_payload.ts";
import { isRecord } from "../_internal/guards.ts";
import { PolicyError } from "../public/policy_error.ts";
import type { RuntimeBundleV1, SignatureAlgorithm } from "../engine/types.ts";
import { importVerifyKey, quote } from "./import_key.ts";
import {
  keysToTry,
  namesNoConfiguredKey,
  reportedKeyIds,
  verifyField,
  verifyKeyList,
  type VerifyKeyOptions,
  type VerifyKeySet,
} from "./verify_keys.ts";
import { isSignatureAlgorithm, SIGNATURE_ALGORITHMS } from "./signature_algorithms.ts";
import { verifyPayload } from "./verify_payload.ts";
import { checkedByCaller, checkOptions } from "../_internal/check_options.ts";
import type { WebCryptoKey } from "./web_crypto_key.ts";

export type { VerifyKeyOptions, VerifyKeySet } from "./verify_keys.ts";
export { MAX_VERIFY_KEYS } from "./verify_keys.ts";

/** Options of {@link verifyBundleSignature}. */
export interface VerifyBundleSignatureOptions {
  /**
   * The trusted key, or a list of trusted keys (at most `MAX_VERIFY_KEYS` (16)).
   * When set, every bundle must carry a signature that one of them verifies.
   */
  verify?: VerifyKeySet;
  /** Accept bundles without a signature when no key is configured. Default `false`. */
  allowUnsigned?: boolean;
}

/**
 * The signature state of a bundle that passed {@link verifyBundleSignature}:
 * `verified` (a configured key checked the signature) with its algorithm and
 * key id, or `unsigned` (no signature, and allowed). The other two states of
 * `docs/errors.md` ("Loading a bundle"), `missing` and `unverified`, are load
 * failures.
 */
export type BundleSignatureStatus =
  | {
    /** A configured key checked the signature. */
    status: "verified";
    /** The signature's algorithm. */
    algorithm: SignatureAlgorithm;
    /**
     * The `keyId` of the configured key that verified the signature, the
     * key to go by (docs/operations.md "Rotating the signing key"); when
     * that key was configured without one, the id recorded at signing
     * (the signature's `keyId`).
     */
    keyId: string;
    /**
     * The key id the signature records, present only when the configured
     * key that verified it has another one: it is a label, not signed, and
     * anyone can change it.
     */
    claimedKeyId?: string;
  }
  | {
    /** No signature, and `allowUnsigned` was set. */
    status: "unsigned";
  };

/** Message of `BUNDLE_SIGNATURE_ALGORITHM_REMOVED`. */
const REMOVED_MESSAGE =
  "Ed25519 signatures are no longer supported; re-sign with ECDSA_SHA_256 (P-256) or HMAC_SHA256";

/** Imported keys per `verify` object, so that reloads do not import again. */
const keyCache = new WeakMap<
  VerifyKeyOptions,
  { algorithm: string; publicKey: string | WebCryptoKey; key: Promise<WebCryptoKey> }
>();

/**
 * Checks the signature of a bundle against the trusted key (or keys) and
 * returns its state, or throws the load error. In order:
 *
 * 1. A signature algorithm of `Ed25519` or `EdDSA` (any case):
 *    `BUNDLE_SIGNATURE_ALGORITHM_REMOVED`, whatever key is configured.
 * 2. `verify` that is not a key object or a list of 1 to
 *    `MAX_VERIFY_KEYS` (16) of them, names an unsupported algorithm or
 *    repeats a key id, or `allowUnsigned` that is not a boolean:
 *    `INVALID_OPTIONS`.
 * 3. No signature: with a key, `BUNDLE_SIGNATURE_MISSING` (even with
 *    `allowUnsigned`); without a key, `{ status: "unsigned" }` when
 *    `allowUnsigned` is true, else `BUNDLE_UNSIGNED`.
 * 4. A signature that is not an object with string `algorithm`, `keyId` and
 *    `value`, or whose algorithm is not supported: `BUNDLE_SIGNATURE_INVALID`.
 * 5. No key: `BUNDLE_SIGNATURE_UNVERIFIED` (even with `allowUnsigned`).
 * 6. No key for the signature's algorithm: `BUNDLE_SIGNATURE_ALGORITHM_MISMATCH`.
 * 7. An unusable key: `INVALID_KEY`.
 * 8. The keys of that algorithm are tried, the one whose `keyId` equals the
 *    signature's first (a hint: the signature's `keyId` is not signed, so
 *    it never makes a key trusted). The first that verifies gives
 *    `{ status: "verified", algorithm, keyId }`, `keyId` being that
 *    configured key's id, with `claimedKeyId`, the id the signature
 *    records, when the two differ; the recorded id when that key has none. A malformed value is
 *    `BUNDLE_SIGNATURE_INVALID`. When none verifies:
 *    `BUNDLE_SIGNATURE_KEY_UNKNOWN` if the signature's `keyId` names no
 *    configured key (every key tried has a `keyId`, none equal), else
 *    `BUNDLE_SIGNATURE_INVALID`.
 *
 * Each try is one WebCrypto `verify` (constant time for HMAC). It reads
 * nothing and changes nothing; the key imported for a `verify` object is
 * kept (weakly) with it, so later calls with the same object skip the
 * import. The checksum is not checked here.
 *
 * @throws {PolicyError} With the codes above.
 *
 * @example Unsigned bundles need `allowUnsigned`
 * ```ts
 * import { verifyBundleSignature } from "./verify_bundle_signature.ts";
 * import assert from "node:assert/strict";
 *
 * const bundle = { schemaVersion: 1 as const, env: "dev" as const, policies: [] };
 * assert.deepEqual(await verifyBundleSignature(bundle, { allowUnsigned: true }), { status: "unsigned" });
 * await assert.rejects(verifyBundleSignature(bundle), { code: "BUNDLE_UNSIGNED" });
 * ```
 *
 * @example A key set during a rotation
 * ```ts
 * import { signBundle, verifyBundleSignature } from "./mod.ts";
 * import assert from "node:assert/strict";
 *
 * const oldSecret = "11".repeat(32), newSecret = "22".repeat(32);
 * const bundle = { schemaVersion: 1 as const, env: "dev" as const, policies: [] };
 * const signed = await signBundle(bundle, { algorithm: "HMAC_SHA256", key: newSecret, keyId: "k2" });
 * const verify = [
 *   { algorithm: "HMAC_SHA256" as const, publicKey: oldSecret, keyId: "k1" },
 *   { algorithm: "HMAC_SHA256" as const, publicKey: newSecret, keyId: "k2" },
 * ];
 * assert.equal((await verifyBundleSignature(signed, { verify })).status, "verified");
 * await assert.rejects(verifyBundleSignature(signed, { verify: [verify[0]!] }), {
 *   code: "BUNDLE_SIGNATURE_KEY_UNKNOWN",
 * });
 * ```
 */
export function verifyBundleSignature(
  bundle: RuntimeBundleV1,
  options: VerifyBundleSignatureOptions = {},
): Promise<BundleSignatureStatus> {
  try {
    // Its own checks below say what is wrong with allowUnsigned; this refuses unknown keys,
    // at the top level and in each key of verify.
    checkOptions(options, { verify: verifyField, allowUnsigned: checkedByCaller }, CALLER);
  } catch (error) {
    return Promise.reject(error);
  }
  return checkSignature(bundle, () => canonicalPayloadBytes(bundle), options);
}

const CALLER = "verifyBundleSignature";

/**
 * {@link verifyBundleSignature} with the canonical payload supplied by the
 * caller (the load pipeline has it already). Internal: not re-exported.
 */
export async function checkSignature(
  bundle: RuntimeBundleV1,
  payload: () => Uint8Array<ArrayBuffer>,
  options: VerifyBundleSignatureOptions,
): Promise<BundleSignatureStatus> {
  const signature: unknown = bundle.signature;
  const signatureAlgorithm = isRecord(signature) ? signature.algorithm : undefined;
  if (typeof signatureAlgorithm === "string" && /^(ed25519|eddsa)$/i.test(signatureAlgorithm)) {
    throw new PolicyError("BUNDLE_SIGNATURE_ALGORITHM_REMOVED", REMOVED_MESSAGE);
  }
  const { verify, allowUnsigned = false } = options;
  if (typeof allowUnsigned !== "boolean") {
    throw new PolicyError(
      "INVALID_OPTIONS",
      `allowUnsigned must be a boolean; got ${quote(allowUnsigned)}`,
    );
  }
  const keys = verify === undefined ? [] : verifyKeyList(verify);

  if (signature === undefined) {
    if (keys.length > 0) {
      throw new PolicyError(
        "BUNDLE_SIGNATURE_MISSING",
        `the bundle has no signature but ${describeKeys(keys)} configured; sign the bundle`,
      );
    }
    if (allowUnsigned) return { status: "unsigned" };
    throw new PolicyError(
      "BUNDLE_UNSIGNED",
      "the bundle has no signature; sign it and configure verify: { algorithm, publicKey }, or set allowUnsigned: true to accept unsigned bundles",
    );
  }

  const problem = !isRecord(signature)
    ? "it is not an object"
    : typeof signature.algorithm !== "string"
    ? "algorithm is not a string"
    : typeof signature.keyId !== "string"
    ? "keyId is not a string"
    : typeof signature.value !== "string"
    ? "value is not a string"
    : undefined;
  if (problem !== undefined) {
    throw new PolicyError(
      "BUNDLE_SIGNATURE_INVALID",
      `the bundle's signature is malformed: ${problem}`,
    );
  }
  const { algorithm, keyId, value } = signature as {
    algorithm: string;
    keyId: string;
    value: string;
  };
  if (!isSignatureAlgorithm(algorithm)) {
    throw new PolicyError(
      "BUNDLE_SIGNATURE_INVALID",
      `the bundle's signature algorithm ${
        quote(algorithm)
      } is not supported; supported algorithms: ${SIGNATURE_ALGORITHMS.join(", ")}`,
    );
  }
  const signedWith = `${algorithm}, key id ${quote(keyId)}`;
  if (keys.length === 0) {
    throw new PolicyError(
      "BUNDLE_SIGNATURE_UNVERIFIED",
      `the bundle is signed (${signedWith}) but no key is configured to verify it; set verify: { algorithm: "${algorithm}", publicKey }`,
    );
  }
  const candidates = keysToTry(keys, algorithm, keyId);
  if (candidates.length === 0) {
    throw new PolicyError(
      "BUNDLE_SIGNATURE_ALGORITHM_MISMATCH",
      `the bundle is signed with ${algorithm} but ${
        describeKeys(keys)
      } configured; configure an ${algorithm} key or re-sign the bundle with ${keys[0]!.algorithm}`,
    );
  }
  const key = await firstVerifyingKey(candidates, algorithm, payload(), value);
  if (key !== null) return verifiedBy(key, algorithm, keyId);
  if (namesNoConfiguredKey(candidates, keyId)) {
    throw new PolicyError(
      "BUNDLE_SIGNATURE_KEY_UNKNOWN",
      `the bundle is signed with key id ${quote(keyId)}, which is not among the trusted keys (${
        candidates.map((key) => quote(key.keyId)).join(", ")
      }), and no trusted key verifies it; add that key to verify if it is a new signing key`,
    );
  }
  throw new PolicyError(
    "BUNDLE_SIGNATURE_INVALID",
    `the bundle's signature (${signedWith}) does not match ${
      candidates.length === 1 ? "the trusted key" : `any of the ${candidates.length} trusted keys`
    }: the bundle changed after signing, or it was signed with another key`,
  );
}

/**
 * The `verified` state, with the key ids of {@link reportedKeyIds}
 * (docs/local-client.md "`status()`").
 */
export function verifiedBy(
  key: VerifyKeyOptions,
  algorithm: SignatureAlgorithm,
  claimed: string,
): BundleSignatureStatus & { status: "verified" } {
  return { status: "verified", algorithm, ...reportedKeyIds(key, claimed) };
}

/** "an HMAC_SHA256 key is" / "3 keys (ECDSA_SHA_256) are", for messages. */
function describeKeys(keys: readonly VerifyKeyOptions[]): string {
  const algorithms = [...new Set(keys.map((key) => key.algorithm))].join(", ");
  return keys.length === 1 ? `an ${algorithms} key is` : `${keys.length} keys (${algorithms}) are`;
}

/**
 * The first of `candidates` whose key verifies `value` over `data`, or null:
 * one WebCrypto `verify` each, with the keys imported once per `verify`
 * object. Shared by the bundle signature and the freshness statement.
 *
 * @throws {PolicyError} `BUNDLE_SIGNATURE_INVALID` for a malformed value, `INVALID_KEY`.
 */
export async function firstVerifyingKey(
  candidates: readonly VerifyKeyOptions[],
  algorithm: SignatureAlgorithm,
  data: Uint8Array<ArrayBuffer>,
  value: string,
): Promise<VerifyKeyOptions | null> {
  for (const key of candidates) {
    if (await verifyPayload(algorithm, await cachedKey(key), data, value)) return key;
  }
  return null;
}

function cachedKey(verify: VerifyKeyOptions): Promise<WebCryptoKey> {
  const hit = keyCache.get(verify);
  if (hit?.algorithm === verify.algorithm && hit.publicKey === verify.publicKey) return hit.key;
  const key = importVerifyKey(verify.algorithm, verify.publicKey);
  keyCache.set(verify, { algorithm: verify.algorithm, publicKey: verify.publicKey, key });
  return key;
}
