import assert from "node:assert/strict";
import { type RuntimeBundleV1, validateBundle } from "../../mod.ts";
import {
  canonicalJson,
  canonicalJsonBytes,
  canonicalPayload,
  computeDigest,
  sortBundleKeys,
} from "../../src/engine/mod.ts";
import fc from "../_fast_check.ts";
import { isCanonicallyOrdered } from "../../src/engine/_canonical_order.ts";
import { Utf8Writer } from "../../src/engine/_utf8_writer.ts";

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

// The fast path: a document whose keys are already in order is serialised by
// JSON.stringify. It must give the same bytes as the writer on everything.

Deno.test("canonicalPayload() of the vectors with sorted keys (the fast path) matches them too", async () => {
  for (const v of data.vectors) {
    const sorted = sortBundleKeys(v.bundle);
    for (const { rules, defaults } of sorted.policies) {
      assert.ok(isCanonicallyOrdered([rules, defaults ?? null]), v.name);
    }
    assert.equal(canonicalPayload(sorted), v.payload, v.name);
    assert.equal((await computeDigest(sorted)).checksum, v.checksum, v.name);
  }
  // The fast path is taken for a sorted bundle, and only then.
  const stringify = JSON.stringify;
  let calls = 0;
  JSON.stringify = ((value: unknown) => (calls++, stringify(value))) as typeof stringify;
  try {
    canonicalPayload(sortBundleKeys(base.bundle));
    assert.equal(calls, 1);
    canonicalPayload(base.bundle);
    assert.equal(calls, 1, "the vectors' rules are not sorted: the writer serialises them");
  } finally {
    JSON.stringify = stringify;
  }
});

Deno.test("canonicalJson() of any JSON value: the fast path and the writer agree", () => {
  let fast = 0;
  fc.assert(
    fc.property(fc.jsonValue(), (value) => {
      const writer = new Utf8Writer();
      writer.value(value, 0);
      // Sorted, unless an integer-like key enumerates first (then the writer runs).
      const sorted = sortedDeep(value);
      if (isCanonicallyOrdered(sorted)) fast++;
      assert.deepEqual(canonicalJsonBytes(sorted), writer.bytes());
    }),
    { numRuns: 500 },
  );
  assert.ok(fast > 250, `the fast path ran ${fast} times in 500`);
});

/** A copy with every object's keys in order (a "__proto__" key kept as data). */
function sortedDeep(value: unknown): unknown {
  if (typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) return value.map(sortedDeep);
  const entries = Object.keys(value).sort().map((
    k,
  ) => [k, sortedDeep((value as Record<string, unknown>)[k])]);
  return JSON.parse(JSON.stringify(Object.fromEntries(entries)));
}

Deno.test("canonicalJson() takes the fast path only when JSON.stringify gives the same text", () => {
  const tricky = {
    "": ["", 'quote " backslash \\', "\b\f\n\r\t\u0000\u001f\u007f", "é € 中文 \u2028 😀"],
    "-": [0, -0, -1.5, 1e21, 1e-7, 0.1, Number.MAX_VALUE, true, false, null],
    "A": { "lone high \ud800": "lone low \udc00", "z": [[], {}] },
    "__proto__": { "a": 1 },
    "a": { "b": { "c": "\uffff" } },
  };
  const value = JSON.parse(JSON.stringify(tricky)); // __proto__ as data, as parsed bundles have it
  assert.ok(isCanonicallyOrdered(value));
  assert.equal(canonicalJson(value), referenceCanonical(value));
  assert.ok(isCanonicallyOrdered(Object.assign(Object.create(null), { a: 1, b: 2 })));

  class Point {
    x = 1;
  }
  let deep: unknown = 1;
  for (let i = 0; i < 600; i++) deep = [deep];
  const declined: [string, unknown][] = [
    ["keys out of order", { b: 1, a: 2 }],
    ["nested keys out of order", [{ a: { y: 1, x: 2 } }]],
    // Integer-like keys enumerate in numeric order, which is not string order.
    ["integer-like keys", { "9": 1, "10": 2 }],
    ["a Date (JSON.stringify calls its toJSON)", { a: new Date(0) }],
    ["a class instance", { a: new Point() }],
    ["an own toJSON function", { toJSON: () => "x" }],
    ["a boxed string", { a: new String("x") }],
    ["undefined", { a: undefined }],
    ["a function in an array", [() => 1]],
    ["not finite", { a: Infinity }],
    ["NaN", [NaN]],
    ["too deep for the writer", deep],
  ];
  for (const [why, input] of declined) {
    assert.equal(isCanonicallyOrdered(input), false, why);
  }
  assert.equal(canonicalJson({ "9": 1, "10": 2 }), '{"10":2,"9":1}');
  assert.equal(canonicalJson({ a: new Date(0) }), '{"a":{}}', "the writer's reading of a Date");
});

Deno.test("canonicalJson() declines the fast path when a prototype was given toJSON or an enumerable key", () => {
  const value = { a: { b: 1 } };
  const proto = Object.prototype as Record<string, unknown>;
  try {
    proto.toJSON = function () {
      return "polluted";
    };
    assert.equal(isCanonicallyOrdered(value), false);
    assert.equal(canonicalJson(value), '{"a":{"b":1}}');
  } finally {
    delete proto.toJSON;
  }
  try {
    proto.extra = 1; // enumerable: for-in would list it
    assert.equal(isCanonicallyOrdered(value), false);
  } finally {
    delete proto.extra;
  }
  assert.equal(isCanonicallyOrdered(value), true);
});

Deno.test("sortBundleKeys() orders rules and defaults only, and keeps a __proto__ key as data", () => {
  const bundle = JSON.parse(
    '{"schemaVersion":1,"env":"dev","policies":[{"policyKey":"p","activeVersion":1,' +
      '"defaults":{"effect":"throttle","throttle":{"limit":1,"windowSeconds":2,"key":"k"}},' +
      '"rules":[{"id":"r","status":"active","priority":1,"__proto__":{"z":1,"y":2},' +
      '"target":{"service":"s","resource":"r","action":"a"},"effect":{"type":"allow"}}]}]}',
  );
  const sorted = sortBundleKeys(bundle);
  assert.deepEqual(Object.keys(sorted), ["schemaVersion", "env", "policies"]);
  assert.deepEqual(Object.keys(sorted.policies[0]!), [
    "policyKey",
    "activeVersion",
    "defaults",
    "rules",
  ]);
  const rule = sorted.policies[0]!.rules[0]! as unknown as Record<string, unknown>;
  assert.deepEqual(Object.keys(rule), [
    "__proto__",
    "effect",
    "id",
    "priority",
    "status",
    "target",
  ]);
  assert.equal(Object.getPrototypeOf(rule), Object.prototype);
  assert.deepEqual(Object.keys(rule["__proto__"] as object), ["y", "z"]);
  assert.deepEqual(Object.keys(sorted.policies[0]!.defaults!.throttle!), [
    "key",
    "limit",
    "windowSeconds",
  ]);
  assert.equal(canonicalPayload(sorted), canonicalPayload(bundle));
  assert.notEqual(sorted.policies[0]!.rules[0], bundle.policies[0].rules[0], "a copy");
});

Deno.test("the writer writes long strings as JSON.stringify and TextEncoder do, whether or not they need escapes", () => {
  const encoder = new TextEncoder();
  const unit = fc.oneof(
    fc.constantFrom("a", "é", "中", "\u2028", "\u007f", '"', "\\", "\n", "\u0001", "\ud83d\ude00"),
    fc.constantFrom("\ud800", "\udfff"), // lone surrogates: escaped
    fc.string({ unit: "binary", maxLength: 3 }),
  );
  fc.assert(
    fc.property(fc.array(unit, { minLength: 20, maxLength: 200 }), fc.nat(200), (parts, pad) => {
      const text = "x".repeat(pad) + parts.join("");
      const writer = new Utf8Writer();
      writer.value(text, 0);
      assert.deepEqual(writer.bytes(), encoder.encode(JSON.stringify(text)));
    }),
    { numRuns: 1000, seed: 0x5731 },
  );
});
