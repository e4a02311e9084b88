// This module is browser compatible.
/**
 * New ECDSA P-256 signing keys as PEM text, the forms the rest of the
 * library, `policy` and openssl read.
 *
 * @module
 */
import { subtleCrypto } from "../_internal/subtle_crypto.ts";
import { encodePem } from "./pem.ts";

/** An ECDSA P-256 key pair as PEM text. */
export interface PemKeyPair {
  /**
   * The private key, PKCS#8 PEM (`-----BEGIN PRIVATE KEY-----`): for
   * `signBundle` and `policy build --ecdsa-private-key`. Keep it secret.
   */
  privateKey: string;
  /**
   * The public key, SPKI PEM (`-----BEGIN PUBLIC KEY-----`): for `verify`
   * options and `--public-key`. Not secret.
   */
  publicKey: string;
}

/**
 * Generates a new ECDSA P-256 key pair for `ECDSA_SHA_256` signatures, with
 * WebCrypto, and returns it as PEM text: the private key PKCS#8, the public
 * key SPKI (what `openssl genpkey -algorithm EC -pkeyopt
 * ec_paramgen_curve:P-256` and `openssl pkey -pubout` write). No key
 * material leaves the process; storing the private key safely is the
 * caller's job (`policy keys generate` writes it with mode 0600).
 *
 * @throws {PolicyError} `WEBCRYPTO_UNAVAILABLE` where WebCrypto is missing.
 *
 * @example Signing and verifying with a new pair
 * ```ts
 * import { generateEcdsaKeyPair, signBundle, verifyBundleSignature } from "./mod.ts";
 * import assert from "node:assert/strict";
 *
 * const { privateKey, publicKey } = await generateEcdsaKeyPair();
 * assert.match(privateKey, /^-----BEGIN PRIVATE KEY-----\n/);
 * assert.match(publicKey, /^-----BEGIN PUBLIC KEY-----\n/);
 *
 * const bundle = { schemaVersion: 1 as const, env: "test" as const, policies: [] };
 * const signed = await signBundle(bundle, { algorithm: "ECDSA_SHA_256", key: privateKey, keyId: "k1" });
 * const verify = { algorithm: "ECDSA_SHA_256" as const, publicKey };
 * assert.equal((await verifyBundleSignature(signed, { verify })).status, "verified");
 * ```
 */
export async function generateEcdsaKeyPair(): Promise<PemKeyPair> {
  const subtle = subtleCrypto();
  const pair = await subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, [
    "sign",
    "verify",
  ]);
  const [pkcs8, spki] = await Promise.all([
    subtle.exportKey("pkcs8", pair.privateKey),
    subtle.exportKey("spki", pair.publicKey),
  ]);
  return {
    privateKey: encodePem("PRIVATE KEY", new Uint8Array(pkcs8)),
    publicKey: encodePem("PUBLIC KEY", new Uint8Array(spki)),
  };
}
