import assert from "node:assert/strict";
import * as path from "node:path";
import { importPrivateKey, importPublicKey } from "../../../src/verify/mod.ts";
import { openssl } from "../../_openssl.ts";
import { assertError, assertShape, scratch } from "../_helpers.ts";

const SHAPE = {
  formatVersion: "number",
  algorithm: "string",
  secret: "string|null",
  privateKeyPath: "string|null",
  publicKeyPath: "string|null",
  warnings: "array",
};

Deno.test("keys generate ECDSA_SHA_256 writes a PKCS#8 private key (mode 0600) and an SPKI public key", async () => {
  await using s = await scratch();
  const r = await s.json(["keys", "generate", "--algorithm", "ECDSA_SHA_256", "--out-dir", "keys"]);
  assert.equal(r.code, 0, r.stderr);
  assertShape(r.doc, SHAPE);
  const privateKeyPath = path.join(s.wf, "keys", "private-key.pem");
  const publicKeyPath = path.join(s.wf, "keys", "public-key.pem");
  assert.deepEqual(r.doc, {
    formatVersion: 1,
    algorithm: "ECDSA_SHA_256",
    secret: null,
    privateKeyPath,
    publicKeyPath,
    warnings: [],
  });
  const privatePem = await Deno.readTextFile(privateKeyPath);
  const publicPem = await Deno.readTextFile(publicKeyPath);
  assert.match(
    privatePem,
    /^-----BEGIN PRIVATE KEY-----\n[A-Za-z0-9+/=\n]+-----END PRIVATE KEY-----\n$/,
  );
  assert.match(
    publicPem,
    /^-----BEGIN PUBLIC KEY-----\n[A-Za-z0-9+/=\n]+-----END PUBLIC KEY-----\n$/,
  );
  if (Deno.build.os !== "windows") {
    assert.equal((await Deno.stat(privateKeyPath)).mode! & 0o777, 0o600);
  }
  await importPrivateKey(privatePem);
  await importPublicKey(publicPem);
  // openssl reads both, and agrees the public key belongs to the private key.
  const derived = await openssl(["pkey", "-pubout"], privatePem);
  assert.equal(derived.text, publicPem);
  // The private key is never printed.
  assert.doesNotMatch(r.stdout + r.stderr, /PRIVATE KEY-----/);
});

Deno.test("keys generate refuses to replace existing key files", async () => {
  await using s = await scratch();
  await s.run(["keys", "generate", "--algorithm", "ECDSA_SHA_256", "--out-dir", "keys"]);
  const before = await s.read("keys/private-key.pem");
  const r = await s.run(["keys", "generate", "--algorithm", "ECDSA_SHA_256", "--out-dir", "keys"]);
  assertError(r, 1, "KEY_EXISTS");
  assert.equal(await s.read("keys/private-key.pem"), before);
  assert.deepEqual([...Deno.readDirSync(path.join(s.wf, "keys"))].map((e) => e.name).sort(), [
    "private-key.pem",
    "public-key.pem",
  ]);
});

Deno.test("keys generate HMAC_SHA256 prints a new 64-hex secret each time", async () => {
  await using s = await scratch();
  const a = await s.run(["keys", "generate", "--algorithm", "HMAC_SHA256"]);
  const b = await s.json(["keys", "generate", "--algorithm", "hmac_sha256"]);
  assert.equal(a.code, 0);
  assert.match(a.stdout, /^[0-9a-f]{64}\n$/);
  assertShape(b.doc, SHAPE);
  assert.match(b.doc.secret as string, /^[0-9a-f]{64}$/);
  assert.notEqual(a.stdout.trim(), b.doc.secret);
  const quiet = await s.run(["keys", "generate", "--algorithm", "HMAC_SHA256", "--quiet"]);
  assert.match(quiet.stdout, /^[0-9a-f]{64}\n$/);
  assert.equal(quiet.stderr, "");
});

Deno.test("keys generate needs --algorithm, and --out-dir for ECDSA only", async () => {
  await using s = await scratch();
  assertError(await s.run(["keys", "generate"]), 2, "USAGE_ERROR");
  assertError(await s.run(["keys", "generate", "--algorithm", "RSA"]), 2, "USAGE_ERROR");
  assertError(await s.run(["keys", "generate", "--algorithm", "ECDSA_SHA_256"]), 2, "USAGE_ERROR");
  assertError(
    await s.run(["keys", "generate", "--algorithm", "HMAC_SHA256", "--out-dir", "k"]),
    2,
    "USAGE_ERROR",
  );
  assertError(await s.run(["keys"]), 2, "USAGE_ERROR");
});
