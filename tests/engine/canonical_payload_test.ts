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

/** The canonical form, spelled out with JSON.stringify for every primitive and key. */
function referenceCanonical(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return `[${value.map(referenceCanonical).join(",")}]`;
  const entries = Object.keys(value).sort()
    .map((key) => [key, (value as Record<string, unknown>)[key]] as const)
    .filter(([, v]) => v !== undefined && typeof v !== "function" && typeof v !== "symbol");
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${referenceCanonical(v)}`).join(",")}}`;
}

Deno.test("canonicalJson() writes JSON.stringify's escaping and numbers, UTF-8 encoded", () => {
  const strings = [
    "",
    "plain",
    'quote " backslash \\ slash /',
    "\b\f\n\r\t\u0000\u0001\u001f\u007f",
    "é ü ß € 中文 \u2028 \u2029 \uffff",
    "😀 pair \ud83d\ude00",
    "lone high \ud800 end",
    "lone low \udc00 end",
    "reversed \ude00\ud83d",
    "high at end \udbff",
  ];
  const numbers = [0, -0, 1, -1.5, 5.5, 1e21, 1e-7, 123456789012345680000, 0.1, Number.MAX_VALUE];
  const value = {
    strings,
    numbers,
    keys: Object.fromEntries(strings.map((s, i) => [s, i])),
    ordering: { b: 1, a: 2, B: 3, "10": 4, "9": 5, "-": 6, é: 7, "😀": 8, "\uffff": 9 },
    skipped: { u: undefined, f: () => 1, kept: true },
    array: [undefined, () => 1, null, true, false, [], {}],
    big: Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`k${(i * 7) % 40}`, i])),
  };
  const want = referenceCanonical(value);
  assert.equal(canonicalJson(value), want);
  for (const s of strings) assert.equal(canonicalJson(s), JSON.stringify(s));
  for (const n of numbers) assert.equal(canonicalJson(n), JSON.stringify(n));
  // JSON.stringify writes null for these; the canonical form refuses them instead, so a
  // signature can never cover a value that JSON cannot hold (1e400 parses to Infinity).
  for (const n of [NaN, Infinity, -Infinity]) {
    assert.throws(() => canonicalJson({ n }), { name: "PolicyError", code: "BUNDLE_INVALID" });
  }
  assert.throws(() => canonicalJson({ n: 1n }), TypeError);
});
