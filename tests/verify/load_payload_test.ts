/**
 * The canonical payload of the load pipeline: validation tells whether the
 * rules and defaults list their keys in canonical order (validateForLoad),
 * and the payload is then JSON.stringify's without a walk of its own
 * (canonicalPayloadBytesOfParsed). Whatever the key order, the checksum a
 * load computes must be the canonical one: the independent Python vectors,
 * and computeDigest on random bundles in every key order.
 */
import assert from "node:assert/strict";
import { inspectBundle, parseJson, type RuntimeBundleV1 } from "../../mod.ts";
import { canonicalPayloadBytes, computeDigest, sortBundleKeys } from "../../src/engine/mod.ts";
import { validateForLoad } from "../../src/engine/validate_bundle.ts";
import { canonicalPayloadBytesOfParsed } from "../../src/engine/canonical_payload.ts";
import { isCanonicallyOrdered } from "../../src/engine/_canonical_order.ts";
import { bundle, fc } from "../properties/_arbitraries.ts";
import { reverseKeys } from "../_reverse_keys.ts";

interface Vectors {
  vectors: { name: string; bundle: RuntimeBundleV1; checksum: string }[];
}
const data: Vectors = JSON.parse(
  Deno.readTextFileSync(new URL("../testdata/canonical/vectors.json", import.meta.url)),
);

/** The checksum a load computes for the bundle written as `text`. */
async function loadedChecksum(text: string): Promise<string> {
  return (await inspectBundle(text, { allowUnsigned: true })).status.checksum;
}

/** The text a bundle's file would hold, without the fields a load would check against. */
function file(value: RuntimeBundleV1): string {
  const { checksum: _checksum, signature: _signature, ...rest } = value;
  return JSON.stringify(rest);
}

Deno.test("a load computes the independent vectors' checksums, keys as written, sorted and reversed", async () => {
  for (const v of data.vectors) {
    for (const form of [v.bundle, sortBundleKeys(v.bundle), reverseKeys(v.bundle)]) {
      assert.equal(await loadedChecksum(file(form as RuntimeBundleV1)), v.checksum, v.name);
    }
  }
});

Deno.test("validateForLoad says the keys are in order exactly when the rules and defaults are", () => {
  let inOrder = 0;
  fc.assert(
    fc.property(bundle, fc.boolean(), (generated, sort) => {
      const document = parseJson(file(sort ? sortBundleKeys(generated) : generated));
      const parts = (document as RuntimeBundleV1).policies.map((
        p,
      ) => [p.rules, p.defaults ?? null]);
      const expected = isCanonicallyOrdered(parts);
      assert.equal(validateForLoad(document).keysInOrder, expected);
      if (expected) inOrder++;
      assert.deepEqual(
        canonicalPayloadBytesOfParsed(document as RuntimeBundleV1, 0, expected),
        canonicalPayloadBytes(document as RuntimeBundleV1),
      );
    }),
    { numRuns: 300 },
  );
  assert.ok(inOrder > 100, `keys in order in ${inOrder} of 300`);
});

Deno.test("a load's checksum is computeDigest's for random bundles in any key order", async () => {
  await fc.assert(
    fc.asyncProperty(
      bundle,
      fc.constantFrom("as generated", "sorted", "reversed"),
      async (b, how) => {
        const form = how === "sorted" ? sortBundleKeys(b) : how === "reversed" ? reverseKeys(b) : b;
        const text = file(form as RuntimeBundleV1);
        assert.equal(await loadedChecksum(text), (await computeDigest(JSON.parse(text))).checksum);
      },
    ),
    { numRuns: 200 },
  );
});

Deno.test("a load's checksum stays canonical when a prototype was given toJSON or an enumerable key", async () => {
  const v = data.vectors[0]!;
  const text = file(sortBundleKeys(v.bundle));
  const proto = Object.prototype as Record<string, unknown>;
  // Not enumerable: validation's walk does not see it, JSON.stringify would call it.
  for (const prototype of [Object.prototype, Array.prototype]) {
    try {
      Object.defineProperty(prototype, "toJSON", { value: () => "polluted", configurable: true });
      assert.equal(await loadedChecksum(text), v.checksum);
    } finally {
      delete (prototype as { toJSON?: unknown }).toJSON;
    }
  }
  try {
    Object.defineProperty(proto, "extra", { value: 1, enumerable: true, configurable: true });
    assert.equal(await loadedChecksum(text), v.checksum);
  } finally {
    delete proto.extra;
  }
});
