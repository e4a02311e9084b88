/**
 * The key helpers against the openssl command line: the PEM text of
 * generateEcdsaKeyPair is what openssl reads and writes for a P-256 pair
 * (PKCS#8 private key, SPKI public key, the same bytes and line breaks), and
 * signatures cross both ways; a generateHmacSecret secret gives the HMAC
 * openssl computes with it. Needs openssl (the tests fail without it).
 */
import assert from "node:assert/strict";
import { generateEcdsaKeyPair, generateHmacSecret } from "../../src/verify/mod.ts";
import { signPayload } from "../../src/verify/sign_payload.ts";
import { verifyPayload } from "../../src/verify/verify_payload.ts";
import { decodeBase64, encodeBase64 } from "../../src/_internal/encoding.ts";
import {
  hmacWithOpenssl,
  openssl,
  publicKeyOf,
  signWithOpenssl,
  verifyWithOpenssl,
} from "../_openssl.ts";

const DATA = new TextEncoder().encode('{"schemaVersion":1,"env":"test","policies":[]}');

Deno.test("generateEcdsaKeyPair() gives a P-256 PKCS#8 private key and its SPKI public key, as openssl writes them", async () => {
  const { privateKey, publicKey } = await generateEcdsaKeyPair();
  // openssl parses the private key as PKCS#8 (it rewrites it identically) on the P-256 curve.
  assert.equal((await openssl(["pkey"], privateKey)).text, privateKey);
  const text = (await openssl(["pkey", "-noout", "-text"], privateKey)).text;
  assert.match(text, /Private-Key: \(256 bit/);
  assert.match(text, /NIST CURVE: P-256/);
  // The public key is the private key's, byte for byte as openssl derives it.
  assert.equal(await publicKeyOf(privateKey), publicKey);
  assert.equal((await openssl(["pkey", "-pubin", "-pubout"], publicKey)).text, publicKey);
});

Deno.test("signatures cross between openssl and a generated pair, both ways", async () => {
  const { privateKey, publicKey } = await generateEcdsaKeyPair();
  const ours = decodeBase64(await signPayload("ECDSA_SHA_256", privateKey, DATA))!;
  assert.equal(await verifyWithOpenssl(publicKey, DATA, ours), true);
  const theirs = await signWithOpenssl(privateKey, DATA);
  assert.equal(await verifyPayload("ECDSA_SHA_256", publicKey, DATA, encodeBase64(theirs)), true);
  // And a pair is new each time: the other pair's key does not verify.
  const other = await generateEcdsaKeyPair();
  assert.notEqual(other.privateKey, privateKey);
  assert.equal(await verifyWithOpenssl(other.publicKey, DATA, ours), false);
});

Deno.test("generateHmacSecret() gives 64 lowercase hex characters that openssl takes as the HMAC key", async () => {
  const secrets = new Set(Array.from({ length: 100 }, () => generateHmacSecret()));
  assert.equal(secrets.size, 100);
  for (const secret of secrets) assert.match(secret, /^[0-9a-f]{64}$/);
  const secret = [...secrets][0]!;
  assert.equal(await signPayload("HMAC_SHA256", secret, DATA), await hmacWithOpenssl(secret, DATA));
});
