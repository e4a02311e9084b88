import assert from "node:assert/strict";
import {
  decodeBase64,
  decodeHex,
  encodeBase64,
  firstNonHexIndex,
  isLowerHex64,
} from "../../src/_internal/encoding.ts";

Deno.test("encodeBase64() matches btoa for every length up to 64", () => {
  for (let length = 0; length <= 64; length++) {
    const bytes = crypto.getRandomValues(new Uint8Array(length));
    const expected = btoa(String.fromCharCode(...bytes));
    assert.equal(encodeBase64(bytes), expected);
    assert.deepEqual(decodeBase64(expected), bytes);
  }
});

Deno.test("decodeBase64() accepts canonical standard base64 only", () => {
  assert.deepEqual(decodeBase64(""), new Uint8Array());
  assert.deepEqual(decodeBase64("AQID"), new Uint8Array([1, 2, 3]));
  assert.deepEqual(decodeBase64("+/8="), new Uint8Array([0xfb, 0xff]));
  for (
    const bad of [
      "AQI", // missing padding
      "AQ=", // wrong padding
      "AQ==AQ==", // padding in the middle
      "A===", // too much padding
      "====",
      "AQ\nID", // whitespace
      " AQID",
      "AQID ",
      "-_8=", // URL-safe alphabet
      "AQ!D",
      "AR==", // non-zero unused bits
      "AQJ=", // non-zero unused bits
      "AQIDé===",
    ]
  ) {
    assert.equal(decodeBase64(bad), undefined, JSON.stringify(bad));
  }
});

Deno.test("isLowerHex64() accepts exactly 64 lowercase hex characters", () => {
  assert.equal(isLowerHex64("0123456789abcdef".repeat(4)), true);
  assert.equal(isLowerHex64("0123456789ABCDEF".repeat(4)), false);
  assert.equal(isLowerHex64("0123456789abcdef".repeat(4) + "0"), false);
  assert.equal(isLowerHex64("0123456789abcdef".repeat(4).slice(1)), false);
  assert.equal(isLowerHex64("0123456789abcdef".repeat(4) + "\n"), false);
  assert.equal(isLowerHex64("g123456789abcdef".repeat(4)), false);
});

Deno.test("decodeHex() decodes either case and refuses odd lengths and non-hex characters", () => {
  assert.deepEqual(decodeHex("00ffAb"), new Uint8Array([0, 255, 0xab]));
  assert.equal(decodeHex("abc"), undefined);
  assert.equal(decodeHex("zz"), undefined);
  assert.equal(firstNonHexIndex("abcdefABCDEF0129"), -1);
  assert.equal(firstNonHexIndex("abcx"), 3);
});
