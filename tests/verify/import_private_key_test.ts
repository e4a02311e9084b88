import assert from "node:assert/strict";
import { importPrivateKey } from "../../src/verify/import_private_key.ts";
import {
  convertPrivateKey,
  generatePkcs8Key,
  generateSec1Key,
  generateSec1KeyWithParameters,
  openssl,
  publicKeyOf,
} from "../_openssl.ts";
import { assertRejectsCode } from "../_assert_policy_error.ts";

const SIGN = { name: "ECDSA", hash: "SHA-256" } as const;
const DATA = new TextEncoder().encode("payload");

/** Signs with the imported key and checks the signature with the key's public half from openssl. */
async function assertSignsFor(privateKeyPem: string): Promise<void> {
  const key = await importPrivateKey(privateKeyPem);
  assert.equal(key.type, "private");
  assert.equal(key.extractable, false);
  assert.deepEqual(key.usages, ["sign"]);
  assert.deepEqual(key.algorithm, { name: "ECDSA", namedCurve: "P-256" });
  const publicKey = await crypto.subtle.importKey(
    "spki",
    spkiDer(await publicKeyOf(privateKeyPem)),
    { name: "ECDSA", namedCurve: "P-256" },
    false,
    ["verify"],
  );
  const signature = await crypto.subtle.sign(SIGN, key, DATA);
  assert.ok(await crypto.subtle.verify(SIGN, publicKey, signature, DATA));
}

function spkiDer(pem: string): Uint8Array<ArrayBuffer> {
  const body = pem.replace(/-----[A-Z ]+-----/g, "").replace(/\s+/g, "");
  return Uint8Array.from(atob(body), (c) => c.charCodeAt(0));
}

function bodyLines(pem: string): string[] {
  return pem.split("\n").filter((line) => line !== "" && !line.startsWith("-----"));
}

Deno.test("importPrivateKey() imports a PKCS#8 P-256 key from openssl genpkey", async () => {
  await assertSignsFor(await generatePkcs8Key());
});

Deno.test("importPrivateKey() imports a SEC1 P-256 key from openssl ecparam -noout", async () => {
  const pem = await generateSec1Key();
  assert.match(pem, /^-----BEGIN EC PRIVATE KEY-----\n/);
  await assertSignsFor(pem);
});

Deno.test("importPrivateKey() imports a SEC1 key preceded by its EC PARAMETERS block", async () => {
  const pem = await generateSec1KeyWithParameters();
  assert.match(pem, /^-----BEGIN EC PARAMETERS-----\n/);
  await assertSignsFor(pem);
});

Deno.test("importPrivateKey() imports a SEC1 key with CRLF line ends and text around it", async () => {
  const pem = await generateSec1KeyWithParameters();
  await assertSignsFor(`Test key\r\n${pem.replaceAll("\n", "\r\n")}\r\n`);
});

Deno.test("importPrivateKey() imports a SEC1 key without its public key", async () => {
  const pem = (await openssl(["ec", "-no_public"], await generateSec1Key())).text;
  await assertSignsFor(pem);
});

Deno.test("importPrivateKey() imports the SEC1 and PKCS#8 forms of one key as the same key", async () => {
  const sec1 = await generateSec1Key();
  const pkcs8 = await convertPrivateKey(sec1, "pkcs8");
  assert.match(pkcs8, /BEGIN PRIVATE KEY/);
  const publicKey = await crypto.subtle.importKey(
    "spki",
    spkiDer(await publicKeyOf(sec1)),
    { name: "ECDSA", namedCurve: "P-256" },
    false,
    ["verify"],
  );
  for (const pem of [sec1, pkcs8]) {
    const signature = await crypto.subtle.sign(SIGN, await importPrivateKey(pem), DATA);
    assert.ok(await crypto.subtle.verify(SIGN, publicKey, signature, DATA));
  }
});

Deno.test("importPrivateKey() accepts an ECDSA P-256 private CryptoKey as it is", async () => {
  const { privateKey } = await crypto.subtle.generateKey(
    { name: "ECDSA", namedCurve: "P-256" },
    true,
    ["sign", "verify"],
  );
  assert.equal(await importPrivateKey(privateKey), privateKey);
});

Deno.test("importPrivateKey() rejects CryptoKeys of the wrong kind with INVALID_KEY", async () => {
  const p256 = await crypto.subtle.generateKey(
    { name: "ECDSA", namedCurve: "P-256" },
    false,
    ["sign", "verify"],
  );
  const p384 = await crypto.subtle.generateKey(
    { name: "ECDSA", namedCurve: "P-384" },
    false,
    ["sign", "verify"],
  );
  const hmac = await crypto.subtle.generateKey({ name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const publicError = await assertRejectsCode(importPrivateKey(p256.publicKey), "INVALID_KEY");
  assert.match(publicError.message, /public key, not a private key/);
  const curveError = await assertRejectsCode(importPrivateKey(p384.privateKey), "INVALID_KEY");
  assert.match(curveError.message, /P-384/);
  const hmacError = await assertRejectsCode(importPrivateKey(hmac), "INVALID_KEY");
  assert.match(hmacError.message, /HMAC/);
});

Deno.test("importPrivateKey() rejects a P-384 key, in PKCS#8 or SEC1, naming the curve", async () => {
  const pkcs8 = await generatePkcs8Key("P-384");
  const sec1 = (await openssl(["ecparam", "-genkey", "-name", "secp384r1", "-noout"])).text;
  const sec1WithParameters = (await openssl(["ecparam", "-genkey", "-name", "secp384r1"])).text;
  for (const pem of [pkcs8, sec1, sec1WithParameters]) {
    const error = await assertRejectsCode(importPrivateKey(pem), "INVALID_KEY");
    assert.match(error.message, /secp384r1 \(P-384\).*prime256v1 \(P-256\)/);
    for (const line of bodyLines(pem)) assert.ok(!error.message.includes(line));
  }
});

Deno.test("importPrivateKey() rejects RSA and Ed25519 keys, naming the algorithm", async () => {
  const rsa = await generatePkcs8Key("RSA");
  const rsaTraditional = (await openssl(["rsa", "-traditional"], rsa)).text;
  assert.match(rsaTraditional, /BEGIN RSA PRIVATE KEY/);
  assert.match((await assertRejectsCode(importPrivateKey(rsa), "INVALID_KEY")).message, /RSA key/);
  assert.match(
    (await assertRejectsCode(importPrivateKey(rsaTraditional), "INVALID_KEY")).message,
    /RSA private key/,
  );
  const ed25519 = await generatePkcs8Key("ED25519");
  assert.match(
    (await assertRejectsCode(importPrivateKey(ed25519), "INVALID_KEY")).message,
    /Ed25519 key/,
  );
});

Deno.test("importPrivateKey() rejects encrypted keys, saying they are encrypted", async () => {
  const sec1 = await generateSec1Key();
  const encryptedPkcs8 = (await openssl(
    ["pkcs8", "-topk8", "-v2", "aes-256-cbc", "-passout", "pass:test-only"],
    sec1,
  )).text;
  const encryptedSec1 = (await openssl(["ec", "-aes256", "-passout", "pass:test-only"], sec1))
    .text;
  assert.match(encryptedSec1, /Proc-Type: 4,ENCRYPTED/);
  for (const pem of [encryptedPkcs8, encryptedSec1]) {
    const error = await assertRejectsCode(importPrivateKey(pem), "INVALID_KEY");
    assert.match(error.message, /encrypted/);
  }
});

Deno.test("importPrivateKey() rejects a public key, pointing at the private key", async () => {
  const pem = await publicKeyOf(await generateSec1Key());
  const error = await assertRejectsCode(importPrivateKey(pem), "INVALID_KEY");
  assert.match(error.message, /signing needs the private key/);
});

Deno.test("importPrivateKey() rejects text that is not a usable PEM private key", async () => {
  const sec1 = await generateSec1Key();
  const body = bodyLines(sec1).join("");
  const cases: [string, unknown, RegExp][] = [
    ["empty text", "", /found no private key block/],
    ["text without PEM", "not a key", /found no private key block/],
    ["an HMAC secret", "ab".repeat(32), /found no private key block/],
    [
      "a body that is not base64",
      "-----BEGIN EC PRIVATE KEY-----\n@@@@\n-----END EC PRIVATE KEY-----\n",
      /not valid base64/,
    ],
    [
      "base64 that is not DER",
      "-----BEGIN PRIVATE KEY-----\nAQIDBA==\n-----END PRIVATE KEY-----\n",
      /not a DER PKCS#8/,
    ],
    [
      "a SEC1 body in a PKCS#8 block",
      `-----BEGIN PRIVATE KEY-----\n${body}\n-----END PRIVATE KEY-----\n`,
      /not a DER PKCS#8|algorithm identifier/,
    ],
    [
      "a truncated SEC1 key",
      `-----BEGIN EC PRIVATE KEY-----\n${body.slice(0, 40)}\n-----END EC PRIVATE KEY-----\n`,
      /not a DER SEC1/,
    ],
    ["mismatched BEGIN and END labels", sec1.replace("END EC PRIVATE", "END"), /no private key/],
    ["two private keys", sec1 + sec1, /found 2 blocks/],
    ["a certificate label", sec1.replaceAll("EC PRIVATE KEY", "CERTIFICATE"), /certificate/],
    ["a number", 42, /got a number/],
    ["undefined", undefined, /got undefined/],
  ];
  for (const [name, input, message] of cases) {
    const error = await assertRejectsCode(importPrivateKey(input as string), "INVALID_KEY");
    assert.match(error.message, message, name);
    assert.ok(!error.message.includes(body.slice(8, 24)), name);
  }
});
