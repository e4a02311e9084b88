// This module is browser compatible.
/**
 * The signature step of loading a bundle (SPEC.md "Signature verification
 * state", CONTRACT.md §3).
 *
 * @module
 */
import { canonicalPayloadBytes } from "../engine/canonical_payload.ts";
import { isRecord } from "../engine/_guards.ts";
import { PolicyError } from "../engine/policy_error.ts";
import type { RuntimeBundleV1, SignatureAlgorithm } from "../engine/types.ts";
import { describeType } from "./_crypto_key.ts";
import { importVerifyKey, quote, unsupported } from "./_import_key.ts";
import { isSignatureAlgorithm, SIGNATURE_ALGORITHMS } from "./signature_algorithms.ts";
import { verifyPayload } from "./verify_payload.ts";

/** The key that verifies bundles: `verify` of the client options. */
export interface VerifyKeyOptions {
  /** The algorithm bundles must be signed with. */
  algorithm: SignatureAlgorithm;
  /**
   * For `ECDSA_SHA_256`, SPKI PEM text (`-----BEGIN PUBLIC KEY-----`) or a
   * public `CryptoKey`; for `HMAC_SHA256`, the 64-hex secret or a `CryptoKey`.
   */
  publicKey: string | CryptoKey;
}

/** Options of {@link verifyBundleSignature}. */
export interface VerifyBundleSignatureOptions {
  /** The verification key. When set, every bundle must carry a signature it verifies. */
  verify?: VerifyKeyOptions;
  /** Accept bundles without a signature when no key is configured. Default `false`. */
  allowUnsigned?: boolean;
}

/** The signature state of a bundle that passed {@link verifyBundleSignature}. */
export interface BundleSignatureStatus {
  /** `verified`: the configured key checked the signature; `unsigned`: no signature, and allowed. */
  status: "verified" | "unsigned";
  /** The signature algorithm (when verified). */
  algorithm?: SignatureAlgorithm;
  /** The signature's key id (when verified). */
  keyId?: string;
}

/** Message of `BUNDLE_SIGNATURE_ALGORITHM_REMOVED`. */
const REMOVED_MESSAGE =
  "Ed25519 signatures are no longer supported; re-sign with ECDSA_SHA_256 (P-256) or HMAC_SHA256";

/** Imported keys per `verify` object, so that reloads do not import again. */
const keyCache = new WeakMap<
  VerifyKeyOptions,
  { algorithm: string; publicKey: string | CryptoKey; key: Promise<CryptoKey> }
>();

/**
 * Checks the signature of a bundle against the configured key and returns
 * its state, or throws the load error. In order:
 *
 * 1. A signature algorithm of `Ed25519` or `EdDSA` (any case):
 *    `BUNDLE_SIGNATURE_ALGORITHM_REMOVED`, whatever key is configured.
 * 2. `verify` that is not an object or names an unsupported algorithm, or
 *    `allowUnsigned` that is not a boolean: `INVALID_OPTIONS`.
 * 3. No signature: with a key, `BUNDLE_SIGNATURE_MISSING` (even with
 *    `allowUnsigned`); without a key, `{ status: "unsigned" }` when
 *    `allowUnsigned` is true, else `BUNDLE_UNSIGNED`.
 * 4. A signature that is not an object with string `algorithm`, `keyId` and
 *    `value`, or whose algorithm is not supported: `BUNDLE_SIGNATURE_INVALID`.
 * 5. No key: `BUNDLE_SIGNATURE_UNVERIFIED` (even with `allowUnsigned`).
 * 6. A key for the other algorithm: `BUNDLE_SIGNATURE_ALGORITHM_MISMATCH`.
 * 7. An unusable key: `INVALID_KEY`.
 * 8. A malformed signature value, or one that does not match the canonical
 *    payload: `BUNDLE_SIGNATURE_INVALID`. Otherwise `{ status: "verified", algorithm, keyId }`.
 *
 * It reads nothing and changes nothing; the key imported for a `verify`
 * object is kept (weakly) with it, so later calls with the same object skip
 * the import. The checksum is not checked here.
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
 */
export function verifyBundleSignature(
  bundle: RuntimeBundleV1,
  options: VerifyBundleSignatureOptions = {},
): Promise<BundleSignatureStatus> {
  return checkSignature(bundle, () => canonicalPayloadBytes(bundle), options);
}

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
  if (verify !== undefined) {
    if (!isRecord(verify)) {
      throw new PolicyError(
        "INVALID_OPTIONS",
        `verify must be an object { algorithm, publicKey }; got ${describeType(verify)}`,
      );
    }
    if (!isSignatureAlgorithm(verify.algorithm)) throw unsupported(verify.algorithm);
  }

  if (signature === undefined) {
    if (verify !== undefined) {
      throw new PolicyError(
        "BUNDLE_SIGNATURE_MISSING",
        `the bundle has no signature but an ${verify.algorithm} key is configured; sign the bundle`,
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
  if (verify === undefined) {
    throw new PolicyError(
      "BUNDLE_SIGNATURE_UNVERIFIED",
      `the bundle is signed (${signedWith}) but no key is configured to verify it; set verify: { algorithm: "${algorithm}", publicKey }`,
    );
  }
  if (verify.algorithm !== algorithm) {
    throw new PolicyError(
      "BUNDLE_SIGNATURE_ALGORITHM_MISMATCH",
      `the bundle is signed with ${algorithm} but the configured key is for ${verify.algorithm}; configure an ${algorithm} key or re-sign the bundle with ${verify.algorithm}`,
    );
  }
  const key = await cachedKey(verify);
  if (!await verifyPayload(algorithm, key, payload(), value)) {
    throw new PolicyError(
      "BUNDLE_SIGNATURE_INVALID",
      `the bundle's signature (${signedWith}) does not match: the bundle changed after signing, or it was signed with another key`,
    );
  }
  return { status: "verified", algorithm, keyId };
}

function cachedKey(verify: VerifyKeyOptions): Promise<CryptoKey> {
  const hit = keyCache.get(verify);
  if (hit?.algorithm === verify.algorithm && hit.publicKey === verify.publicKey) return hit.key;
  const key = importVerifyKey(verify.algorithm, verify.publicKey);
  keyCache.set(verify, { algorithm: verify.algorithm, publicKey: verify.publicKey, key });
  return key;
}
