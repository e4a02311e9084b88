// This module is browser compatible.
/**
 * Checks that a caller-supplied `CryptoKey` fits the use it is given for.
 *
 * @module
 */
import { PolicyError } from "../public/policy_error.ts";
import type { WebCryptoKey } from "./web_crypto_key.ts";

/** What a key must be. */
export interface KeyRequirement {
  /** How the key is named in messages, for example `ECDSA public key`. */
  subject: string;
  type: KeyType;
  usage: KeyUsage;
  /** Returns what is wrong with the key's algorithm, or `undefined`. */
  algorithmProblem: (algorithm: KeyAlgorithm) => string | undefined;
}

/** True when `value` is a WebCrypto `CryptoKey`. */
export function isCryptoKey(value: unknown): value is WebCryptoKey {
  return typeof CryptoKey === "function" && value instanceof CryptoKey;
}

/** Returns `key` when it meets `requirement`, else throws `INVALID_KEY`. */
export function checkCryptoKey(key: WebCryptoKey, requirement: KeyRequirement): WebCryptoKey {
  const problem = keyProblem(key, requirement);
  if (problem !== undefined) {
    throw new PolicyError("INVALID_KEY", `${requirement.subject}: ${problem}`);
  }
  return key;
}

function keyProblem(key: WebCryptoKey, requirement: KeyRequirement): string | undefined {
  const algorithmProblem = requirement.algorithmProblem(key.algorithm);
  if (algorithmProblem !== undefined) return algorithmProblem;
  if (key.type !== requirement.type) {
    return `the CryptoKey is a ${key.type} key, not a ${requirement.type} key`;
  }
  if (!key.usages.includes(requirement.usage)) {
    const usages = key.usages.join(", ") || "none";
    return `the CryptoKey does not allow "${requirement.usage}" (its usages: ${usages})`;
  }
  return undefined;
}

/** Problem of a CryptoKey algorithm for ECDSA P-256, or `undefined`. */
export function ecdsaP256Problem(algorithm: KeyAlgorithm): string | undefined {
  if (algorithm.name !== "ECDSA") {
    return `the CryptoKey is for ${algorithm.name}; ECDSA_SHA_256 needs an ECDSA P-256 key`;
  }
  const curve = (algorithm as EcKeyAlgorithm).namedCurve;
  return curve === "P-256"
    ? undefined
    : `the CryptoKey is on curve ${curve}; ECDSA_SHA_256 needs an ECDSA P-256 key`;
}

/** Problem of a CryptoKey algorithm for HMAC-SHA256 with a 256-bit key, or `undefined`. */
export function hmacSha256Problem(algorithm: KeyAlgorithm): string | undefined {
  if (algorithm.name !== "HMAC") {
    return `the CryptoKey is for ${algorithm.name}; HMAC_SHA256 needs an HMAC SHA-256 key`;
  }
  const { hash, length } = algorithm as HmacKeyAlgorithm;
  if (hash.name !== "SHA-256") {
    return `the CryptoKey is an HMAC ${hash.name} key; HMAC_SHA256 needs an HMAC SHA-256 key`;
  }
  return length === 256
    ? undefined
    : `the CryptoKey is ${length} bits long; HMAC_SHA256 keys are 256 bits (generate one with { name: "HMAC", hash: "SHA-256", length: 256 })`;
}

/** Describes a value that is neither text nor a CryptoKey, for messages. */
export function describeType(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (Array.isArray(value)) return "an array";
  const type = typeof value;
  return type === "object" ? "an object" : `a ${type}`;
}
