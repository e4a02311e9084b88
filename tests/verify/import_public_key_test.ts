import assert from "node:assert/strict";
import { importPublicKey } from "../../src/verify/import_public_key.ts";
import { generatePkcs8Key, generateSec1Key, openssl, publicKeyOf } from "../_openssl.ts";
import { assertRejectsCode } from "../_assert_policy_error.ts";

function der(pem: string): Uint8Array<ArrayBuffer> {
  const body = pem.replace(/-----[A-Z ]+-----/g, "").replace(/\s+/g, "");
  return Uint8Array.from(atob(body), (c) => c.charCodeAt(0));
}

function pem(label: string, bytes: Uint8Array): string {
  return `-----BEGIN ${label}-----\n${
    btoa(String.fromCharCode(...bytes))
  }\n-----END ${label}-----\n`;
}

Deno.test("importPublicKey() imports an SPKI P-256 key as a non-extractable verify-only key", async () => {
  const key = await importPublicKey(await publicKeyOf(await generateSec1Key()));
  assert.equal(key.type, "public");
  assert.equal(key.extractable, false);
  assert.deepEqual(key.usages, ["verify"]);
  assert.deepEqual(key.algorithm, { name: "ECDSA", namedCurve: "P-256" });
});

Deno.test("importPublicKey() accepts an ECDSA P-256 public CryptoKey as it is", async () => {
  const { publicKey } = await crypto.subtle.generateKey(
    { name: "ECDSA", namedCurve: "P-256" },
    true,
    ["sign", "verify"],
  );
  assert.equal(await importPublicKey(publicKey), publicKey);
});

Deno.test("importPublicKey() rejects CryptoKeys of the wrong kind with INVALID_KEY", async () => {
  const p256 = await crypto.subtle.generateKey(
    { name: "ECDSA", namedCurve: "P-256" },
    true,
    ["sign", "verify"],
  );
  const p384 = await crypto.subtle.generateKey(
    { name: "ECDSA", namedCurve: "P-384" },
    false,
    ["sign", "verify"],
  );
  const hmac = await crypto.subtle.generateKey({ name: "HMAC", hash: "SHA-256" }, false, [
    "verify",
  ]);
  const noUsage = await crypto.subtle.importKey(
    "spki",
    await crypto.subtle.exportKey("spki", p256.publicKey),
    { name: "ECDSA", namedCurve: "P-256" },
    false,
    [],
  );
  const cases: [CryptoKey, RegExp][] = [
    [p256.privateKey, /private key, not a public key/],
    [p384.publicKey, /P-384/],
    [hmac, /HMAC/],
    [noUsage, /does not allow "verify"/],
  ];
  for (const [key, message] of cases) {
    assert.match((await assertRejectsCode(importPublicKey(key), "INVALID_KEY")).message, message);
  }
});

Deno.test("importPublicKey() rejects P-384, RSA and Ed25519 public keys, naming what they are", async () => {
  const cases: [string, RegExp][] = [
    [await publicKeyOf(await generatePkcs8Key("P-384")), /secp384r1 \(P-384\)/],
    [await publicKeyOf(await generatePkcs8Key("RSA")), /RSA key/],
    [await publicKeyOf(await generatePkcs8Key("ED25519")), /Ed25519 key/],
  ];
  for (const [input, message] of cases) {
    const error = await assertRejectsCode(importPublicKey(input), "INVALID_KEY");
    assert.match(error.message, message);
    assert.match(error.message, /ECDSA_SHA_256 needs/);
  }
});

Deno.test("importPublicKey() rejects a private key without repeating it, and says how to get the public key", async () => {
  for (const privateKey of [await generateSec1Key(), await generatePkcs8Key()]) {
    const error = await assertRejectsCode(importPublicKey(privateKey), "INVALID_KEY");
    assert.match(error.message, /-pubout/);
    const body = privateKey.split("\n").filter((line) => !line.startsWith("-----"));
    for (const line of body) if (line !== "") assert.ok(!error.message.includes(line));
  }
});

Deno.test("importPublicKey() rejects a certificate, saying how to extract its key", async () => {
  const key = await generatePkcs8Key();
  const certificate = (await openssl(
    ["req", "-x509", "-new", "-key", "/dev/stdin", "-subj", "/CN=test-only", "-days", "1"],
    key,
  )).text;
  assert.match(certificate, /BEGIN CERTIFICATE/);
  const error = await assertRejectsCode(importPublicKey(certificate), "INVALID_KEY");
  assert.match(error.message, /x509 .*-pubkey/);
});

Deno.test("importPublicKey() rejects text that is not one SPKI P-256 key", async () => {
  const spki = await publicKeyOf(await generateSec1Key());
  const bytes = der(spki);
  const badPoint = bytes.slice();
  badPoint[bytes.length - 1] = badPoint[bytes.length - 1]! ^ 1;
  const cases: [string, unknown, RegExp][] = [
    ["empty text", "", /found no PEM block/],
    ["an HMAC secret", "ab".repeat(32), /found no PEM block/],
    ["two keys", spki + spki, /found 2/],
    [
      "a body that is not base64",
      pem("PUBLIC KEY", new Uint8Array()).replace("\n\n", "\n%%\n"),
      /base64/,
    ],
    [
      "a body that is not DER",
      pem("PUBLIC KEY", new Uint8Array([1, 2, 3])),
      /SubjectPublicKeyInfo/,
    ],
    [
      "a DER body with trailing bytes",
      pem("PUBLIC KEY", new Uint8Array([...bytes, 0])),
      /SubjectPublicKeyInfo/,
    ],
    ["a point not on the curve", pem("PUBLIC KEY", badPoint), /not a point on the P-256 curve/],
    ["an RSA PUBLIC KEY label", spki.replaceAll("PUBLIC KEY", "RSA PUBLIC KEY"), /RSA public key/],
    ["null", null, /got null/],
    ["an object", { kty: "EC" }, /got an object/],
  ];
  for (const [name, input, message] of cases) {
    const error = await assertRejectsCode(importPublicKey(input as string), "INVALID_KEY");
    assert.match(error.message, message, name);
  }
});
