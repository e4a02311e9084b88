import assert from "node:assert/strict";
import { toHex } from "../../src/_internal/encoding.ts";
import { importHmacKey } from "../../src/verify/import_hmac_key.ts";
import { assertRejectsCode } from "../_assert_policy_error.ts";

const SECRET = "4f2d8c1a9b7e6f5d3c2b1a0f9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d";
const DATA = new TextEncoder().encode("payload");

Deno.test("importHmacKey() imports 64 hex characters as a non-extractable 256-bit key with one usage", async () => {
  const verifyKey = await importHmacKey(SECRET);
  assert.equal(verifyKey.extractable, false);
  assert.deepEqual(verifyKey.usages, ["verify"]);
  assert.deepEqual(verifyKey.algorithm, { name: "HMAC", hash: { name: "SHA-256" }, length: 256 });
  assert.deepEqual((await importHmacKey(SECRET, "sign")).usages, ["sign"]);
});

Deno.test("importHmacKey() reads upper-case hex as the same secret", async () => {
  const lower = await crypto.subtle.sign("HMAC", await importHmacKey(SECRET, "sign"), DATA);
  const upper = await crypto.subtle.sign(
    "HMAC",
    await importHmacKey(SECRET.toUpperCase(), "sign"),
    DATA,
  );
  assert.equal(toHex(upper), toHex(lower));
});

Deno.test("importHmacKey() rejects a secret that is not 64 characters, giving the length found", async () => {
  for (const secret of ["", SECRET.slice(0, 63), SECRET + "a", SECRET + SECRET]) {
    const error = await assertRejectsCode(importHmacKey(secret), "INVALID_KEY");
    assert.equal(
      error.message,
      `HMAC secret: expected 64 hex characters (256 bits); found ${secret.length} characters`,
    );
  }
});

Deno.test("importHmacKey() points at whitespace around a secret", async () => {
  const error = await assertRejectsCode(importHmacKey(`${SECRET}\n`), "INVALID_KEY");
  assert.match(error.message, /found 65 characters; remove the surrounding whitespace$/);
});

Deno.test("importHmacKey() rejects a non-hex character, giving its position", async () => {
  const secret = SECRET.slice(0, 9) + "g" + SECRET.slice(10);
  const error = await assertRejectsCode(importHmacKey(secret), "INVALID_KEY");
  assert.equal(
    error.message,
    "HMAC secret: expected 64 hex characters (256 bits); the character at position 10 is not a hex digit",
  );
});

Deno.test("importHmacKey() never puts an invalid secret, or any part of it, in the error", async () => {
  const secrets = [
    "9f8e7d6c5b4a39281706f5e4d3c2b1a0", // too short
    "9f8e7d6c5b4a39281706f5e4d3c2b1a0Zf8e7d6c5b4a39281706f5e4d3c2b1a0", // non-hex at 33
    "correct-horse-battery-staple-correct-horse-battery-staple-correc", // not hex at all
    `  ${SECRET}  `,
  ];
  for (const secret of secrets) {
    const error = await assertRejectsCode(importHmacKey(secret), "INVALID_KEY");
    const exposed = `${error.message}\n${error.stack}\n${JSON.stringify(error)}\n${
      String(error.cause)
    }`;
    assert.equal(error.cause, undefined);
    for (let i = 0; i + 6 <= secret.trim().length; i++) {
      const part = secret.trim().slice(i, i + 6);
      assert.ok(!exposed.includes(part), `the error shows "${part}" of the secret`);
    }
  }
});

Deno.test("importHmacKey() accepts a 256-bit HMAC SHA-256 CryptoKey with the needed usage", async () => {
  const key = await crypto.subtle.generateKey(
    { name: "HMAC", hash: "SHA-256", length: 256 },
    false,
    ["sign", "verify"],
  );
  assert.equal(await importHmacKey(key), key);
  assert.equal(await importHmacKey(key, "sign"), key);
});

Deno.test("importHmacKey() rejects CryptoKeys of the wrong kind with INVALID_KEY", async () => {
  const cases: [CryptoKey, RegExp][] = [
    // WebCrypto's default HMAC length is the hash block size, 512 bits.
    [
      await crypto.subtle.generateKey({ name: "HMAC", hash: "SHA-256" }, false, ["verify"]),
      /512 bits/,
    ],
    [
      await crypto.subtle.generateKey({ name: "HMAC", hash: "SHA-384", length: 256 }, false, [
        "verify",
      ]),
      /SHA-384/,
    ],
    [
      await crypto.subtle.generateKey({ name: "HMAC", hash: "SHA-256", length: 256 }, false, [
        "sign",
      ]),
      /does not allow "verify"/,
    ],
    [
      (await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, false, [
        "sign",
        "verify",
      ]))
        .publicKey,
      /ECDSA/,
    ],
  ];
  for (const [key, message] of cases) {
    assert.match((await assertRejectsCode(importHmacKey(key), "INVALID_KEY")).message, message);
  }
});

Deno.test("importHmacKey() rejects values that are neither text nor a CryptoKey", async () => {
  for (const value of [undefined, null, 42, new Uint8Array(32)]) {
    await assertRejectsCode(importHmacKey(value as unknown as string), "INVALID_KEY");
  }
});
