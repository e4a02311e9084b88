import assert from "node:assert/strict";
import { toHex } from "../../src/_internal/encoding.ts";
import { PolicyError } from "../../src/public/policy_error.ts";
import {
  ecdsaDerToRaw,
  ecdsaRawToDer,
  encodeElement,
  readChildren,
  readElement,
} from "../../src/verify/_der.ts";
import { decodeHex } from "../../src/_internal/encoding.ts";
import { assertThrowsCode } from "../_assert_policy_error.ts";

interface Vectors {
  valid: { name: string; der: string; raw: string }[];
  invalid: { name: string; der: string }[];
}

const vectors: Vectors = JSON.parse(
  await Deno.readTextFile(new URL("../testdata/verify/ecdsa_der_signatures.json", import.meta.url)),
);

function hex(text: string): Uint8Array<ArrayBuffer> {
  const bytes = decodeHex(text);
  assert.ok(bytes !== undefined, `bad hex in the test data: ${text}`);
  return bytes;
}

for (const { name, der, raw } of vectors.valid) {
  Deno.test(`ecdsaDerToRaw() accepts ${name}`, () => {
    assert.equal(toHex(ecdsaDerToRaw(hex(der))), raw);
  });
  Deno.test(`ecdsaRawToDer() writes minimal DER for ${name}`, () => {
    assert.equal(toHex(ecdsaRawToDer(hex(raw))), der);
  });
}

for (const { name, der } of vectors.invalid) {
  Deno.test(`ecdsaDerToRaw() rejects ${name} with BUNDLE_SIGNATURE_INVALID`, () => {
    assertThrowsCode(() => ecdsaDerToRaw(hex(der)), "BUNDLE_SIGNATURE_INVALID");
  });
}

Deno.test("ecdsaDerToRaw() throws only BUNDLE_SIGNATURE_INVALID for random and mutated input", () => {
  const valid = hex(vectors.valid[0]!.der);
  for (let i = 0; i < 5000; i++) {
    let input: Uint8Array<ArrayBuffer>;
    if (i % 2 === 0) {
      input = crypto.getRandomValues(new Uint8Array(i % 80));
    } else {
      input = valid.slice(0, valid.length - (i % 5 === 0 ? i % 7 : 0));
      const at = i % input.length;
      input[at] = input[at]! ^ (1 << (i % 8));
    }
    try {
      assert.equal(ecdsaDerToRaw(input).length, 64);
    } catch (error) {
      assert.ok(error instanceof PolicyError, `not a PolicyError for ${toHex(input)}: ${error}`);
      assert.equal(error.code, "BUNDLE_SIGNATURE_INVALID");
    }
  }
});

Deno.test("ecdsaRawToDer() and ecdsaDerToRaw() round-trip real signatures", async () => {
  const { privateKey } = await crypto.subtle.generateKey(
    { name: "ECDSA", namedCurve: "P-256" },
    false,
    ["sign"],
  );
  for (let i = 0; i < 50; i++) {
    const raw = new Uint8Array(
      await crypto.subtle.sign({ name: "ECDSA", hash: "SHA-256" }, privateKey, new Uint8Array([i])),
    );
    assert.deepEqual(ecdsaDerToRaw(ecdsaRawToDer(raw)), raw);
  }
});

Deno.test("ecdsaRawToDer() rejects a raw signature that is not 64 bytes or has a zero half", () => {
  assertThrowsCode(() => ecdsaRawToDer(new Uint8Array(63)), "BUNDLE_SIGNATURE_INVALID");
  const zeroR = new Uint8Array(64);
  zeroR[63] = 1;
  assertThrowsCode(() => ecdsaRawToDer(zeroR), "BUNDLE_SIGNATURE_INVALID");
});

Deno.test("readElement() reads long-form lengths and refuses non-minimal or truncated ones", () => {
  const long = encodeElement(0x04, new Uint8Array(300));
  assert.deepEqual([...long.subarray(0, 4)], [0x04, 0x82, 0x01, 0x2c]);
  const element = readElement(long, 0);
  assert.equal(element?.contents.length, 300);
  assert.equal(element?.end, long.length);

  assert.equal(readElement(new Uint8Array([0x04, 0x81, 0x05, 1, 2, 3, 4, 5]), 0), undefined);
  assert.equal(readElement(new Uint8Array([0x04, 0x82, 0x00, 0x90]), 0), undefined);
  assert.equal(readElement(new Uint8Array([0x04, 0x80, 0x00, 0x00]), 0), undefined);
  assert.equal(readElement(long.subarray(0, 100), 0), undefined);
  assert.equal(readElement(new Uint8Array([0x1f, 0x01, 0x00]), 0), undefined);
});

Deno.test("readChildren() requires the children to fill their parent exactly", () => {
  const two = new Uint8Array([0x02, 0x01, 0x01, 0x05, 0x00]);
  assert.deepEqual(readChildren(two)?.map((child) => child.tag), [0x02, 0x05]);
  assert.equal(readChildren(new Uint8Array([0x02, 0x01, 0x01, 0x05])), undefined);
});
