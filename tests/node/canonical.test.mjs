// The canonical payload vectors (computed by an independent Python
// implementation, tests/testdata/canonical/make_vectors.py) under Node:
// the same payload text, checksum and ETag as under Deno.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { test } from "node:test";
import { importPackage, testdata } from "./_package.mjs";

const { canonicalPayload, canonicalPayloadBytes, computeDigest, validateBundle } =
  await importPackage("./engine");
const data = testdata("canonical/vectors.json");
const base = data.vectors[0];

for (const v of data.vectors) {
  test(`canonicalPayload() matches the independent vector: ${v.name}`, async () => {
    assert.ok(validateBundle(v.bundle).valid, "vectors are valid bundles");
    assert.equal(canonicalPayload(v.bundle), v.payload);
    assert.deepEqual(await computeDigest(v.bundle), { checksum: v.checksum, etag: v.etag });
    // WebCrypto's digest agrees with node:crypto over the same bytes.
    const hex = createHash("sha256").update(canonicalPayloadBytes(v.bundle)).digest("hex");
    assert.equal(`sha256:${hex}`, v.checksum);
  });
}

test("computeDigest() ignores whitespace and key order of the file", async () => {
  assert.equal(data.baseTexts.length, 3);
  for (const text of data.baseTexts) {
    assert.equal((await computeDigest(JSON.parse(text))).checksum, base.checksum);
  }
});
