// This module is browser compatible.
/**
 * Importing the 256-bit shared secret of `HMAC_SHA256` bundles.
 *
 * @module
 */
import { PolicyError } from "../public/policy_error.ts";
import { checkCryptoKey, describeType, hmacSha256Problem, isCryptoKey } from "./_crypto_key.ts";
import { decodeHex, firstNonHexIndex } from "../_internal/encoding.ts";
import { subtleCrypto } from "../_internal/subtle_crypto.ts";
import type { WebCryptoKey } from "./web_crypto_key.ts";
import { describeValue } from "../_internal/describe_value.ts";
import { suggest } from "../_internal/suggest.ts";

const SUBJECT = "HMAC secret";
const USAGES = ["sign", "verify"] as const;
const SECRET_HEX_LENGTH = 64;

/**
 * Imports an HMAC-SHA256 secret for signing or verifying `HMAC_SHA256`
 * bundles: exactly 64 hex characters (either case, 256 bits, the form
 * `openssl rand -hex 32` prints), or a `CryptoKey`, which is checked to be a
 * 256-bit HMAC SHA-256 key that allows `usage`. Hex secrets are imported
 * non-extractable with `usage` only.
 *
 * Error messages name the problem (length found, position of the first
 * non-hex character) and never contain the secret or any part of it.
 *
 * @param secret The secret as hex text, or a `CryptoKey`.
 * @param usage What the key is for: `"verify"` (the default) or `"sign"`.
 * @throws {PolicyError} `INVALID_KEY` when the secret is not 64 hex characters
 * or the CryptoKey does not fit; `INVALID_OPTIONS` for a `usage` that is not
 * `"sign"` or `"verify"`.
 *
 * @example Importing a hex secret
 * ```ts
 * import { importHmacKey } from "./import_hmac_key.ts";
 * import assert from "node:assert/strict";
 *
 * const key = await importHmacKey("00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff", "sign");
 * assert.deepEqual(key.usages, ["sign"]);
 * await assert.rejects(importHmacKey("abc"), {
 *   code: "INVALID_KEY",
 *   message: "HMAC secret: expected 64 hex characters (256 bits); found 3 characters",
 * });
 * ```
 */
export async function importHmacKey(
  secret: string | WebCryptoKey,
  usage: "sign" | "verify" = "verify",
): Promise<WebCryptoKey> {
  if (usage !== "sign" && usage !== "verify") {
    const match = typeof usage === "string" ? suggest(usage, USAGES) : undefined;
    throw new PolicyError(
      "INVALID_OPTIONS",
      `importHmacKey: usage must be "sign" or "verify"; got ${describeValue(usage)}${
        match === undefined ? "" : `; did you mean ${JSON.stringify(match)}?`
      }`,
    );
  }
  if (isCryptoKey(secret)) {
    return checkCryptoKey(secret, {
      subject: SUBJECT,
      type: "secret",
      usage,
      algorithmProblem: hmacSha256Problem,
    });
  }
  if (typeof secret !== "string") {
    throw new PolicyError(
      "INVALID_KEY",
      `${SUBJECT}: expected 64 hex characters or a CryptoKey, got ${describeType(secret)}`,
    );
  }
  const bytes = secret.length === SECRET_HEX_LENGTH ? decodeHex(secret) : undefined;
  if (bytes === undefined) throw new PolicyError("INVALID_KEY", secretProblem(secret));
  return await subtleCrypto().importKey(
    "raw",
    bytes,
    { name: "HMAC", hash: "SHA-256", length: 256 },
    false,
    [usage],
  );
}

/** Describes what is wrong with a secret without quoting any of it. */
function secretProblem(secret: string): string {
  if (secret.length !== SECRET_HEX_LENGTH) {
    const trimmed = secret.trim();
    const hint = trimmed.length !== secret.length
      ? trimmed.length === SECRET_HEX_LENGTH
        ? "; remove the surrounding whitespace"
        : ", including surrounding whitespace"
      : "";
    return `${SUBJECT}: expected ${SECRET_HEX_LENGTH} hex characters (256 bits); found ${secret.length} characters${hint}`;
  }
  const position = firstNonHexIndex(secret) + 1;
  return `${SUBJECT}: expected ${SECRET_HEX_LENGTH} hex characters (256 bits); the character at position ${position} is not a hex digit`;
}
