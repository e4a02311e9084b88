// This module is browser compatible.
/**
 * New HMAC-SHA256 secrets in the form the library reads.
 *
 * @module
 */
import { toHex } from "../_internal/encoding.ts";

/**
 * Generates a new 256-bit secret for `HMAC_SHA256` signatures from the
 * runtime's cryptographic random source, as 64 lowercase hex characters
 * (the form `openssl rand -hex 32` prints and `importHmacKey` reads). It is
 * a secret: keep it in an environment variable or a secret store, never in
 * a file of the repository or on a command line.
 *
 * @example A new secret signs and verifies
 * ```ts
 * import { generateHmacSecret, signBundle, verifyBundleSignature } from "./mod.ts";
 * import assert from "node:assert/strict";
 *
 * const secret = generateHmacSecret();
 * assert.match(secret, /^[0-9a-f]{64}$/);
 * assert.notEqual(generateHmacSecret(), secret);
 *
 * const bundle = { schemaVersion: 1 as const, env: "test" as const, policies: [] };
 * const signed = await signBundle(bundle, { algorithm: "HMAC_SHA256", key: secret, keyId: "ci" });
 * const verify = { algorithm: "HMAC_SHA256" as const, publicKey: secret };
 * assert.equal((await verifyBundleSignature(signed, { verify })).status, "verified");
 * ```
 */
export function generateHmacSecret(): string {
  return toHex(crypto.getRandomValues(new Uint8Array(32)));
}
