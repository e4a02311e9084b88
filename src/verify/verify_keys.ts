// This module is browser compatible.
// The trusted key set of `verify` (docs/operations.md "Rotating the signing
// key"): one key or a list, checked once, shared by verifyBundleSignature
// and the clients' option checker.
import { isRecord } from "../_internal/guards.ts";
import { isPolicyError, PolicyError } from "../public/policy_error.ts";
import type { SignatureAlgorithm } from "../engine/types.ts";
import { describeType } from "./_crypto_key.ts";
import { quote, unsupported } from "./import_key.ts";
import { isSignatureAlgorithm } from "./signature_algorithms.ts";
import {
  checkedByCaller,
  type Field,
  type Fields,
  fieldsProblem,
  UNKNOWN_OPTION,
} from "../_internal/check_options.ts";
import type { WebCryptoKey } from "./web_crypto_key.ts";

/** One trusted key of `verify`. */
export interface VerifyKeyOptions {
  /** The algorithm bundles signed with this key use. */
  algorithm: SignatureAlgorithm;
  /**
   * For `ECDSA_SHA_256`, SPKI PEM text (`-----BEGIN PUBLIC KEY-----`) or a
   * public `CryptoKey`; for `HMAC_SHA256`, the 64-hex secret or a `CryptoKey`.
   */
  publicKey: string | WebCryptoKey;
  /**
   * The key's identifier. A signature whose `keyId` equals it is tried with
   * this key first; it is a hint only (the `keyId` is not signed), never a
   * reason to trust. Unique within a key set.
   */
  keyId?: string;
}

/** `verify`: one trusted key, or a list of them (a key rotation). */
export type VerifyKeySet = VerifyKeyOptions | readonly VerifyKeyOptions[];

/**
 * The most keys a `verify` list may hold. A bundle that no key verifies is
 * tried with each key of its algorithm, so this bounds the work a bad
 * bundle can cause (16 ECDSA verifications take about 2 ms).
 */
export const MAX_VERIFY_KEYS = 16;

/** The fields of one key: each value is checked below, or when the key is imported. */
const KEY_FIELDS: Fields = {
  algorithm: checkedByCaller,
  publicKey: checkedByCaller,
  keyId: checkedByCaller,
};

function invalid(message: string): PolicyError {
  return new PolicyError("INVALID_OPTIONS", message);
}

/**
 * The keys of a `verify` option as a list, each checked for shape: an
 * object `{ algorithm, publicKey, keyId? }` or a non-empty list of at most
 * {@link MAX_VERIFY_KEYS} of them, with supported algorithms and distinct
 * key ids, and no other field (a misspelt `keyID` is refused with the
 * closest name). The key material itself is checked when it is imported.
 *
 * @throws {PolicyError} `INVALID_OPTIONS`.
 */
export function verifyKeyList(verify: unknown, name = "verify"): readonly VerifyKeyOptions[] {
  const list = Array.isArray(verify) ? verify as unknown[] : [verify];
  if (Array.isArray(verify)) {
    if (list.length === 0) {
      throw invalid(`${name} is an empty list, which trusts no key; give at least one key`);
    }
    if (list.length > MAX_VERIFY_KEYS) {
      throw invalid(
        `${name} lists ${list.length} keys; at most ${MAX_VERIFY_KEYS} are accepted (retire old keys after a rotation)`,
      );
    }
  }
  const ids = new Set<string>();
  list.forEach((key, index) => {
    const at = Array.isArray(verify) ? `${name}[${index}]` : name;
    if (!isRecord(key)) {
      throw invalid(
        `${at} must be an object { algorithm, publicKey, keyId? }; got ${describeType(key)}`,
      );
    }
    // A misspelt field (keyID) is refused like any option typo, not ignored.
    const unknown = fieldsProblem(key, KEY_FIELDS, `${at}.`);
    if (unknown !== undefined) throw invalid(unknown);
    if (!isSignatureAlgorithm(key.algorithm)) throw unsupported(key.algorithm);
    if (key.keyId !== undefined) {
      if (typeof key.keyId !== "string" || key.keyId === "") {
        throw invalid(`${at}.keyId must be a non-empty string; got ${quote(key.keyId)}`);
      }
      if (ids.has(key.keyId)) {
        throw invalid(`${name} lists key id ${quote(key.keyId)} twice; key ids must be unique`);
      }
      ids.add(key.keyId);
    }
  });
  return list as VerifyKeyOptions[];
}

/**
 * The keys to try for a signature of `algorithm` with key id `keyId`: the
 * keys of that algorithm, those whose `keyId` matches first, then the
 * others in the configured order.
 */
export function keysToTry(
  keys: readonly VerifyKeyOptions[],
  algorithm: SignatureAlgorithm,
  keyId: string,
): VerifyKeyOptions[] {
  const same = keys.filter((key) => key.algorithm === algorithm);
  return [
    ...same.filter((key) => key.keyId === keyId),
    ...same.filter((key) => key.keyId !== keyId),
  ];
}

/**
 * The key ids a verified signature or statement reports (`keyId`, the
 * identifier recorded at signing; docs/local-client.md "`status()`"):
 * when the configured key that verified it has an id, that id, and the id
 * the signature records apart, as `claimedKeyId`, when it differs (the
 * recorded id is not signed: the configured one is the one to go by); when
 * that key has none, the id recorded at signing.
 */
export function reportedKeyIds(
  key: VerifyKeyOptions,
  recorded: string,
): { keyId: string; claimedKeyId?: string } {
  const configured = key.keyId;
  if (configured === undefined || configured === recorded) return { keyId: recorded };
  return { keyId: configured, claimedKeyId: recorded };
}

/**
 * True when a signature with key id `keyId` that none of `tried` verifies
 * names no configured key: every key tried has a key id, and none is
 * `keyId`. (A key without an id could be the one named, so then it is a
 * bad signature, not an unknown key.)
 */
export function namesNoConfiguredKey(
  tried: readonly VerifyKeyOptions[],
  keyId: string,
): boolean {
  return tried.every((key) => key.keyId !== undefined && key.keyId !== keyId);
}

/** The trusted key or keys: `{ algorithm, publicKey, keyId? }` or a list of them. */
export const verifyField: Field = {
  check: (value, name) => {
    try {
      verifyKeyList(value, name);
      return undefined;
    } catch (error) {
      if (!isPolicyError(error, "INVALID_OPTIONS")) throw error;
      return error.message.startsWith(name) || error.message.startsWith(UNKNOWN_OPTION)
        ? error.message
        : `${name}: ${error.message}`;
    }
  },
};
