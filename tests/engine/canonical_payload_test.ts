import assert from "node:assert/strict";
import {
  canonicalJson,
  canonicalPayload,
  computeDigest,
  type RuntimeBundleV1,
  validateBundle,
} from "../../mod.ts";

// Vectors computed by an independent Python implementation; see make_vectors.py.
interface Vectors {
  vectors: {
    name: string;
    bundle: RuntimeBundleV1;
    sameAsBase: boolean;
    payload: string;
    checksum: string;
    etag: string;
  }[];
  baseTexts: string[];
}

const data: Vectors = JSON.parse(
  Deno.readTextFileSync(new URL("../testdata/canonical/vectors.json", import.meta.url)),
);
const base = data.vectors[0]!;

for (const v of data.vectors) {
  Deno.test(`canonicalPayload() matches the independent vector: ${v.name}`, async () => {
    assert.ok(validateBundle(v.bundle).valid, "vectors are valid bundles");
    assert.equal(canonicalPayload(v.bundle), v.payload);
    assert.deepEqual(await computeDigest(v.bundle), { checksum: v.checksum, etag: v.etag });
    if (v.sameAsBase) {
      assert.equal(v.checksum, base.checksum, "an excluded field must not change the checksum");
    } else {
      assert.notEqual(v.checksum, base.checksum, "an included field must change the checksum");
    }
  });
}

Deno.test("computeDigest() ignores whitespace and key order of the file", async () => {
  assert.equal(data.baseTexts.length, 3);
  for (const text of data.baseTexts) {
    assert.equal((await computeDigest(JSON.parse(text))).checksum, base.checksum);
  }
});

Deno.test("canonicalJson() serialises a JSON __proto__ key as an ordinary key", () => {
  const value = JSON.parse('{"b":1,"__proto__":{"x":1}}');
  assert.equal(canonicalJson(value), '{"__proto__":{"x":1},"b":1}');
});

Deno.test("canonicalJson() refuses absurd nesting with BUNDLE_INVALID instead of overflowing", () => {
  let deep: unknown = 1;
  for (let i = 0; i < 100_000; i++) deep = { a: deep };
  assert.throws(() => canonicalJson(deep), { name: "PolicyError", code: "BUNDLE_INVALID" });
});
