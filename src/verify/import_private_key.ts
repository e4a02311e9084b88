// This module is browser compatible.
/**
 * Importing the ECDSA P-256 private key that signs `ECDSA_SHA_256` bundles.
 *
 * @module
 */
import { PolicyError } from "../public/policy_error.ts";
import { checkCryptoKey, describeType, ecdsaP256Problem, isCryptoKey } from "./_crypto_key.ts";
import {
  type DerElement,
  encodeElement,
  readChildren,
  readElement,
  readWhole,
  TAG,
} from "./_der.ts";
import {
  curveProblem,
  keyAlgorithmProblem,
  OID_EC_PUBLIC_KEY,
  OID_P256,
} from "./_key_algorithm.ts";
import { describePemLabel, parsePem, type PemBlock } from "./pem.ts";
import { subtleCrypto } from "../_internal/subtle_crypto.ts";
import type { WebCryptoKey } from "./web_crypto_key.ts";

const SUBJECT = "ECDSA private key";

function invalidKey(problem: string): PolicyError {
  return new PolicyError("INVALID_KEY", `${SUBJECT}: ${problem}`);
}

/**
 * Imports an ECDSA P-256 private key for signing `ECDSA_SHA_256` bundles:
 * unencrypted PEM text, either PKCS#8 (`-----BEGIN PRIVATE KEY-----`, what
 * `openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256` writes)
 * or SEC1 (`-----BEGIN EC PRIVATE KEY-----`, what
 * `openssl ecparam -genkey -name prime256v1` writes, with or without its
 * leading `EC PARAMETERS` block); or a `CryptoKey`, which is checked to be
 * an ECDSA P-256 private key that allows `sign`. PEM keys are imported
 * non-extractable with the `sign` usage only.
 *
 * Error messages never contain key material.
 *
 * @throws {PolicyError} `INVALID_KEY`, saying what is wrong: not PEM, an
 * encrypted key, a public key, another algorithm (RSA, Ed25519) or curve
 * (P-384), or a CryptoKey of the wrong kind.
 *
 * @example Importing a PKCS#8 PEM private key
 * ```ts
 * import { generateEcdsaKeyPair, importPrivateKey } from "./mod.ts";
 * import assert from "node:assert/strict";
 *
 * const { privateKey, publicKey } = await generateEcdsaKeyPair();
 * const key = await importPrivateKey(privateKey);
 * assert.deepEqual(key.usages, ["sign"]);
 * assert.equal(key.extractable, false);
 * await assert.rejects(importPrivateKey(publicKey), { code: "INVALID_KEY" });
 * ```
 */
export async function importPrivateKey(key: string | WebCryptoKey): Promise<WebCryptoKey> {
  if (isCryptoKey(key)) {
    return checkCryptoKey(key, {
      subject: SUBJECT,
      type: "private",
      usage: "sign",
      algorithmProblem: ecdsaP256Problem,
    });
  }
  if (typeof key !== "string") {
    throw invalidKey(`expected PEM text or a CryptoKey, got ${describeType(key)}`);
  }
  const pkcs8 = pkcs8FromPem(key);
  try {
    return await subtleCrypto().importKey(
      "pkcs8",
      pkcs8,
      { name: "ECDSA", namedCurve: "P-256" },
      false,
      ["sign"],
    );
  } catch {
    // No cause: keep the key material out of anything that gets logged.
    throw invalidKey("the key is not a valid P-256 private key");
  }
}

/** The PKCS#8 DER of the private key in `text`, after checking its type, algorithm and curve. */
function pkcs8FromPem(text: string): Uint8Array<ArrayBuffer> {
  const blocks = parsePem(text);
  const parameters = blocks.filter((block) => block.label === "EC PARAMETERS");
  const keys = blocks.filter((block) => block.label !== "EC PARAMETERS");
  if (keys.length === 0) {
    throw invalidKey(
      "expected PEM text (-----BEGIN PRIVATE KEY----- or -----BEGIN EC PRIVATE KEY-----); found no private key block",
    );
  }
  if (keys.length > 1 || parameters.length > 1) {
    throw invalidKey(`expected one private key PEM block; found ${blocks.length} blocks`);
  }
  const block = keys[0]!;
  if (block.hasHeaders || block.label === "ENCRYPTED PRIVATE KEY") {
    throw invalidKey(
      "the key is encrypted; write it unencrypted (openssl pkey -in key.pem -out plain.pem)",
    );
  }
  if (block.label === "PRIVATE KEY") {
    if (parameters.length > 0) {
      throw invalidKey("an EC PARAMETERS block can only accompany a BEGIN EC PRIVATE KEY block");
    }
    return checkPkcs8(decoded(block));
  }
  if (block.label === "EC PRIVATE KEY") {
    return wrapSec1(decoded(block), parameters[0] && decoded(parameters[0]));
  }
  const hint = block.label === "PUBLIC KEY" ? "; signing needs the private key" : "";
  throw invalidKey(
    `expected a PKCS#8 (BEGIN PRIVATE KEY) or SEC1 (BEGIN EC PRIVATE KEY) private key; found ${
      describePemLabel(block.label)
    }${hint}`,
  );
}

function decoded(block: PemBlock): Uint8Array<ArrayBuffer> {
  if (block.der === undefined) {
    throw invalidKey(`the body of the ${block.label} PEM block is not valid base64`);
  }
  return block.der;
}

/** Checks a PKCS#8 `PrivateKeyInfo` holds an EC P-256 key and returns it. */
function checkPkcs8(der: Uint8Array<ArrayBuffer>): Uint8Array<ArrayBuffer> {
  // PrivateKeyInfo ::= SEQUENCE { INTEGER version, AlgorithmIdentifier, OCTET STRING, ... }
  const info = readWhole(der, TAG.SEQUENCE);
  const fields = info === undefined ? undefined : readChildren(info.contents);
  if (
    fields === undefined || fields.length < 3 || fields[0]!.tag !== TAG.INTEGER ||
    fields[2]!.tag !== TAG.OCTET_STRING
  ) {
    throw invalidKey("the PEM body is not a DER PKCS#8 PrivateKeyInfo");
  }
  const problem = keyAlgorithmProblem(fields[1]);
  if (problem !== undefined) throw invalidKey(problem);
  return der;
}

/**
 * Wraps a SEC1 `ECPrivateKey` into PKCS#8, the form WebCrypto imports, the
 * way `openssl pkey` does: the curve moves to the AlgorithmIdentifier and the
 * inner key keeps its scalar and public point.
 */
function wrapSec1(
  der: Uint8Array<ArrayBuffer>,
  parametersBlock: Uint8Array<ArrayBuffer> | undefined,
): Uint8Array<ArrayBuffer> {
  if (parametersBlock !== undefined) {
    const element = readElement(parametersBlock, 0);
    const problem = element?.end === parametersBlock.length
      ? curveProblem(element)
      : "it is not DER";
    if (problem !== undefined) throw invalidKey(`EC PARAMETERS block: ${problem}`);
  }
  // ECPrivateKey ::= SEQUENCE { INTEGER 1, OCTET STRING privateKey,
  //   [0] ECParameters OPTIONAL, [1] BIT STRING publicKey OPTIONAL }
  const sequence = readWhole(der, TAG.SEQUENCE);
  const fields = sequence === undefined ? undefined : readChildren(sequence.contents);
  const [version, privateKey, ...optional] = fields ?? [];
  if (
    version?.tag !== TAG.INTEGER || version.contents.length !== 1 || version.contents[0] !== 1 ||
    privateKey?.tag !== TAG.OCTET_STRING
  ) {
    throw invalidKey("the PEM body is not a DER SEC1 ECPrivateKey");
  }
  let parameters: DerElement | undefined;
  let publicKey: DerElement | undefined;
  for (const field of optional) {
    if (field.tag === TAG.CONTEXT_0 && parameters === undefined && publicKey === undefined) {
      parameters = field;
    } else if (field.tag === TAG.CONTEXT_1 && publicKey === undefined) {
      publicKey = field;
    } else {
      throw invalidKey("the SEC1 ECPrivateKey has unexpected fields");
    }
  }
  if (parameters !== undefined) {
    const inner = readChildren(parameters.contents);
    const problem = curveProblem(inner?.length === 1 ? inner[0] : undefined);
    if (problem !== undefined) throw invalidKey(problem);
  }
  if (privateKey.contents.length === 0 || privateKey.contents.length > 32) {
    throw invalidKey(
      `the private key is ${privateKey.contents.length} bytes long; a P-256 private key is 32 bytes`,
    );
  }
  // RFC 5915 fixes the scalar at 32 bytes; some encoders drop leading zeros.
  const scalar = new Uint8Array(32);
  scalar.set(privateKey.contents, 32 - privateKey.contents.length);
  const inner = encodeElement(
    TAG.SEQUENCE,
    encodeElement(TAG.INTEGER, new Uint8Array([1])),
    encodeElement(TAG.OCTET_STRING, scalar),
    ...(publicKey === undefined ? [] : [encodeElement(TAG.CONTEXT_1, publicKey.contents)]),
  );
  return encodeElement(
    TAG.SEQUENCE,
    encodeElement(TAG.INTEGER, new Uint8Array([0])),
    encodeElement(
      TAG.SEQUENCE,
      encodeElement(TAG.OID, OID_EC_PUBLIC_KEY),
      encodeElement(TAG.OID, OID_P256),
    ),
    encodeElement(TAG.OCTET_STRING, inner),
  );
}
