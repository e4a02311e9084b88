// This module is browser compatible.
/**
 * Picks the key importer for a signature algorithm.
 *
 * @module
 */
import { PolicyError } from "../public/policy_error.ts";
import type { SignatureAlgorithm } from "../engine/types.ts";
import { importHmacKey } from "./import_hmac_key.ts";
import { importPrivateKey } from "./import_private_key.ts";
import { importPublicKey } from "./import_public_key.ts";
import type { WebCryptoKey } from "./web_crypto_key.ts";

/** The key that verifies `algorithm` signatures: an ECDSA P-256 public key or an HMAC secret. */
export function importVerifyKey(
  algorithm: SignatureAlgorithm,
  key: string | WebCryptoKey,
): Promise<WebCryptoKey> {
  switch (algorithm) {
    case "ECDSA_SHA_256":
      return importPublicKey(key);
    case "HMAC_SHA256":
      return importHmacKey(key, "verify");
    default:
      return Promise.reject(unsupported(algorithm));
  }
}

/** The key that makes `algorithm` signatures: an ECDSA P-256 private key or an HMAC secret. */
export function importSignKey(
  algorithm: SignatureAlgorithm,
  key: string | WebCryptoKey,
): Promise<WebCryptoKey> {
  switch (algorithm) {
    case "ECDSA_SHA_256":
      return importPrivateKey(key);
    case "HMAC_SHA256":
      return importHmacKey(key, "sign");
    default:
      return Promise.reject(unsupported(algorithm));
  }
}

/** The error for an algorithm a caller asked for that is not supported. */
export function unsupported(algorithm: unknown): PolicyError {
  const removed = typeof algorithm === "string" && /^(ed25519|eddsa)$/i.test(algorithm)
    ? " (Ed25519 is no longer supported)"
    : "";
  return new PolicyError(
    "INVALID_OPTIONS",
    `unsupported signature algorithm ${
      quote(algorithm)
    }${removed}; use ECDSA_SHA_256 (P-256) or HMAC_SHA256`,
  );
}

/** A value quoted for a message, cut short so that a hostile document cannot flood logs. */
export function quote(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
