// This module is browser compatible.
/**
 * Importing the ECDSA P-256 public key that verifies `ECDSA_SHA_256` bundles.
 *
 * @module
 */
import { PolicyError } from "../public/policy_error.ts";
import { checkCryptoKey, describeType, ecdsaP256Problem, isCryptoKey } from "./_crypto_key.ts";
import { readChildren, readWhole, TAG } from "./_der.ts";
import { keyAlgorithmProblem, p256PointProblem } from "./_key_algorithm.ts";
import { describePemLabel, parsePem } from "./pem.ts";
import { subtleCrypto } from "../_internal/subtle_crypto.ts";
import type { WebCryptoKey } from "./web_crypto_key.ts";

const SUBJECT = "ECDSA public key";

function invalidKey(problem: string): PolicyError {
  return new PolicyError("INVALID_KEY", `${SUBJECT}: ${problem}`);
}

/**
 * Imports an ECDSA P-256 public key for verifying `ECDSA_SHA_256`
 * signatures: SPKI PEM text (`-----BEGIN PUBLIC KEY-----`, what
 * `openssl pkey -pubout` writes), or a `CryptoKey`, which is checked to be an
 * ECDSA P-256 public key that allows `verify`. PEM keys are imported
 * non-extractable with the `verify` usage only.
 *
 * @throws {PolicyError} `INVALID_KEY`, saying what is wrong: not PEM, another
 * PEM type (a private key, a certificate), another algorithm (RSA, Ed25519)
 * or another curve (P-384), or a CryptoKey of the wrong kind.
 *
 * @example Importing a PEM public key
 * ```ts
 * import { generateEcdsaKeyPair, importPublicKey } from "./mod.ts";
 * import assert from "node:assert/strict";
 *
 * const { privateKey, publicKey } = await generateEcdsaKeyPair();
 * const key = await importPublicKey(publicKey);
 * assert.deepEqual(key.usages, ["verify"]);
 * assert.equal(key.extractable, false);
 * await assert.rejects(importPublicKey("not a key"), { code: "INVALID_KEY" });
 * await assert.rejects(importPublicKey(privateKey), { code: "INVALID_KEY" });
 * ```
 */
export async function importPublicKey(key: string | WebCryptoKey): Promise<WebCryptoKey> {
  if (isCryptoKey(key)) {
    return checkCryptoKey(key, {
      subject: SUBJECT,
      type: "public",
      usage: "verify",
      algorithmProblem: ecdsaP256Problem,
    });
  }
  if (typeof key !== "string") {
    throw invalidKey(`expected SPKI PEM text or a CryptoKey, got ${describeType(key)}`);
  }
  const blocks = parsePem(key);
  if (blocks.length === 0) {
    throw invalidKey("expected SPKI PEM text (-----BEGIN PUBLIC KEY-----); found no PEM block");
  }
  if (blocks.length > 1) {
    throw invalidKey(`expected one PEM block (BEGIN PUBLIC KEY); found ${blocks.length}`);
  }
  const block = blocks[0]!;
  if (block.label !== "PUBLIC KEY") {
    const hint = block.label.includes("PRIVATE KEY")
      ? "; verification needs the public key only (openssl pkey -in key.pem -pubout)"
      : block.label === "CERTIFICATE"
      ? "; extract its public key with openssl x509 -in cert.pem -pubkey -noout"
      : "";
    throw invalidKey(
      `expected an SPKI public key (BEGIN PUBLIC KEY); found ${
        describePemLabel(block.label)
      }${hint}`,
    );
  }
  if (block.der === undefined) throw invalidKey("the PEM body is not valid base64");
  // SubjectPublicKeyInfo ::= SEQUENCE { AlgorithmIdentifier, BIT STRING }
  const spki = readWhole(block.der, TAG.SEQUENCE);
  const fields = spki === undefined ? undefined : readChildren(spki.contents);
  if (fields === undefined || fields.length !== 2 || fields[1]!.tag !== TAG.BIT_STRING) {
    throw invalidKey("the PEM body is not a DER SubjectPublicKeyInfo");
  }
  const problem = keyAlgorithmProblem(fields[0]) ?? p256PointProblem(fields[1]!.contents);
  if (problem !== undefined) throw invalidKey(problem);
  try {
    return await subtleCrypto().importKey(
      "spki",
      block.der,
      { name: "ECDSA", namedCurve: "P-256" },
      false,
      ["verify"],
    );
  } catch (cause) {
    throw new PolicyError("INVALID_KEY", `${SUBJECT}: the key is not a valid P-256 public key`, {
      cause,
    });
  }
}
