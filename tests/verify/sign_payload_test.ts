import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { ecdsaDerToRaw } from "../../src/verify/_der.ts";
import { decodeBase64 } from "../../src/_internal/encoding.ts";
import { signPayload } from "../../src/verify/sign_payload.ts";
import { assertRejectsCode } from "../_assert_policy_error.ts";

const SECRET = "0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0";
const DATA = new TextEncoder().encode('{"env":"prod","policies":[],"schemaVersion":1}');

Deno.test("signPayload() signs HMAC_SHA256 as the lowercase hex HMAC-SHA256 of the bytes", async () => {
  const expected = createHmac("sha256", Buffer.from(SECRET, "hex")).update(DATA).digest("hex");
  assert.equal(await signPayload("HMAC_SHA256", SECRET, DATA), expected);
  assert.equal(await signPayload("HMAC_SHA256", SECRET.toUpperCase(), DATA), expected);
});

Deno.test("signPayload() signs ECDSA_SHA_256 as base64 of a strict DER signature that WebCrypto verifies", async () => {
  const { privateKey, publicKey } = await crypto.subtle.generateKey(
    { name: "ECDSA", namedCurve: "P-256" },
    false,
    ["sign", "verify"],
  );
  for (let i = 0; i < 20; i++) {
    const value = await signPayload("ECDSA_SHA_256", privateKey, DATA);
    assert.match(value, /^[A-Za-z0-9+/]+={0,2}$/);
    const der = decodeBase64(value);
    assert.ok(der !== undefined && der.length >= 8 && der.length <= 72);
    const raw = ecdsaDerToRaw(der);
    assert.ok(
      await crypto.subtle.verify({ name: "ECDSA", hash: "SHA-256" }, publicKey, raw, DATA),
    );
  }
});

Deno.test("signPayload() rejects a key that does not fit the algorithm with INVALID_KEY", async () => {
  const { publicKey } = await crypto.subtle.generateKey(
    { name: "ECDSA", namedCurve: "P-256" },
    false,
    ["sign", "verify"],
  );
  await assertRejectsCode(signPayload("ECDSA_SHA_256", SECRET, DATA), "INVALID_KEY");
  await assertRejectsCode(signPayload("ECDSA_SHA_256", publicKey, DATA), "INVALID_KEY");
  await assertRejectsCode(signPayload("HMAC_SHA256", publicKey, DATA), "INVALID_KEY");
  await assertRejectsCode(signPayload("HMAC_SHA256", "-----BEGIN", DATA), "INVALID_KEY");
});

Deno.test("signPayload() rejects an unsupported algorithm with INVALID_OPTIONS", async () => {
  for (const algorithm of ["Ed25519", "RS256", "hmac_sha256"]) {
    const error = await assertRejectsCode(
      signPayload(algorithm as "HMAC_SHA256", SECRET, DATA),
      "INVALID_OPTIONS",
    );
    assert.match(error.message, /use ECDSA_SHA_256 \(P-256\) or HMAC_SHA256$/);
  }
});
