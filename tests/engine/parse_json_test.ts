/**
 * parseJson(): the value the text means, whatever the process parsed
 * before (docs/security.md, "JSON exactly as written"). The property tests
 * write random values as text with random escapes in keys and strings, after
 * poisoning V8's transition cache with keys that hold literal backslashes,
 * and check that the text reads back as the value it was written from.
 */
import assert from "node:assert/strict";
import { hasEscapedKey, JsonParseError, parseJson } from "../../src/engine/parse_json.ts";
import { fc } from "../properties/_arbitraries.ts";
import { testSeed } from "../_random.ts";

const SEED = testSeed(0x5eed_0014);

/** The trigger and the victim of the V8 bug, as the issue found them. */
const TRIGGER = '{"id":"r","status":"active","\\\\u0065lseE":1}';
const VICTIM = '{"id":"r","status":"active","\\u0065lseEffect":{"type":"deny"}}';

Deno.test("the V8 JSON.parse bug docs/security.md describes is present in this runtime (Deno 2.9.6)", () => {
  // If this fails, the runtime no longer has the bug: update the table in
  // docs/security.md. parseJson must be right either way (tests below).
  JSON.parse(TRIGGER);
  assert.deepEqual(Object.keys(JSON.parse(VICTIM)), ["id", "status", "\\u0065lseE"]);
});

Deno.test("parseJson() reads an escaped key as its own key after the trigger was parsed", () => {
  JSON.parse(TRIGGER);
  parseJson(TRIGGER);
  assert.deepEqual(parseJson(VICTIM), { id: "r", status: "active", elseEffect: { type: "deny" } });
  // Both objects in one document, the trigger first.
  const both = `{"notes":${TRIGGER},"rule":${VICTIM}}`;
  assert.deepEqual(parseJson(both), {
    notes: { id: "r", status: "active", "\\u0065lseE": 1 },
    rule: { id: "r", status: "active", elseEffect: { type: "deny" } },
  });
});

Deno.test("parseJson() matches JSON.parse on documents without escaped keys, and agrees on what is not JSON", () => {
  const cases = [
    "0",
    "-0",
    "1e400",
    "-1.5e-7",
    '"a\\"b\\\\c\\u00e9\\ud83d\\ude00\\ud800"',
    "[]",
    "{}",
    ' { "a" : [ 1 , true , false , null , { } ] } ',
    '{"a":1,"b":2,"a":3}',
    '{"__proto__":{"polluted":true},"constructor":1}',
    '{"2":"b","1":"a","x":0}',
    "",
    " ",
    "[1,]",
    "{,}",
    '{"a" 1}',
    "01",
    "1.",
    ".5",
    "+1",
    "tru",
    "nul",
    '"\\x"',
    '"\\u12"',
    '"a\nb"',
    "[1] x",
    '{"a":1}}',
    "NaN",
    "// c\n1",
  ];
  for (const text of cases) {
    let expected: { value: unknown } | { error: true };
    try {
      expected = { value: JSON.parse(text) };
    } catch {
      expected = { error: true };
    }
    if ("error" in expected) {
      assert.throws(() => parseJson(text), JsonParseError, JSON.stringify(text));
    } else {
      const value = parseJson(text);
      assert.deepStrictEqual(value, expected.value, JSON.stringify(text));
    }
  }
  const proto = parseJson('{"__proto__":{"polluted":true}}') as Record<string, unknown>;
  assert.equal(Object.getPrototypeOf(proto), Object.prototype);
  assert.ok(Object.hasOwn(proto, "__proto__"));
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
});

/** The JsonParseError `parseJson(text)` throws. */
function parseError(text: string): JsonParseError {
  try {
    parseJson(text);
  } catch (error) {
    assert.ok(error instanceof JsonParseError, String(error));
    return error;
  }
  assert.fail(`${JSON.stringify(text)} parsed`);
}

Deno.test("parseJson() errors name the line and column and never quote the text", () => {
  const e = parseError("root:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1");
  assert.equal(e.line, 1);
  assert.equal(e.column, 1);
  assert.ok(!e.message.includes("root"), e.message);
  assert.match(e.message, /at line 1, column 1$/);
  const late = parseError('{\n  "a": 1,\n  "b": tru\n}');
  assert.equal(late.line, 3);
  assert.equal(late.column, 8);
  assert.ok(!late.message.includes("tru"), late.message);
});

Deno.test("parseJson() with comments reads JSONC: comments and trailing commas", () => {
  const text = '// head\n{ /* a */ "a": [1, 2,], "b": {"c": "//not a comment",}, }\n/* tail */';
  assert.deepEqual(parseJson(text, { comments: true }), { a: [1, 2], b: { c: "//not a comment" } });
  assert.throws(() => parseJson(text), JsonParseError);
  assert.throws(() => parseJson("{/* open", { comments: true }), /unterminated \/\* comment/);
  assert.throws(() => parseJson("[1,,]", { comments: true }), JsonParseError);
  // Escaped keys are read exactly in JSONC too.
  JSON.parse(TRIGGER);
  assert.deepEqual(parseJson(`// c\n${VICTIM}`, { comments: true }), {
    id: "r",
    status: "active",
    elseEffect: { type: "deny" },
  });
});

Deno.test("parseJson() parses a million levels of nesting on its own path without a stack overflow", () => {
  const depth = 1_000_000;
  const text = '{"\\u0061":' + "[".repeat(depth) + "]".repeat(depth) + "}";
  assert.ok(hasEscapedKey(text));
  let value = (parseJson(text) as Record<string, unknown>).a;
  let levels = 0;
  while (Array.isArray(value)) {
    levels++;
    value = value[0];
  }
  assert.equal(levels, depth);
});

Deno.test("hasEscapedKey() finds escapes in keys, not in values", () => {
  assert.equal(hasEscapedKey('{"a":"\\u0065","b":["\\n"]}'), false);
  assert.equal(hasEscapedKey('{"a":"x\\"y:"}'), false);
  assert.equal(hasEscapedKey('{"\\u0061":1}'), true);
  assert.equal(hasEscapedKey('{"a":{"b\\n" :1}}'), true);
  assert.equal(hasEscapedKey('["\\\\", {"k": 1}]'), false);
});

// --- properties ---------------------------------------------------------------

/** Writes one UTF-16 code unit of a string literal, escaped or not as `mode` says. */
function writeChar(code: number, mode: number): string {
  const forced = code < 0x20 || code === 0x22 || code === 0x5c;
  if (!forced && mode % 3 !== 0) return String.fromCharCode(code);
  const short: Record<number, string> = {
    0x22: '\\"',
    0x5c: "\\\\",
    0x08: "\\b",
    0x0c: "\\f",
    0x0a: "\\n",
    0x0d: "\\r",
    0x09: "\\t",
    0x2f: "\\/",
  };
  if (short[code] !== undefined && mode % 2 === 0) return short[code]!;
  const hex = code.toString(16).padStart(4, "0");
  return `\\u${mode % 5 === 0 ? hex.toUpperCase() : hex}`;
}

/** A string literal with escapes chosen by `modes` (cycled). */
function writeString(value: string, modes: number[]): string {
  let out = '"';
  for (let i = 0; i < value.length; i++) {
    out += writeChar(value.charCodeAt(i), modes[i % modes.length]!);
  }
  return out + '"';
}

/** JSON text of `value` with escapes and spaces chosen by `modes`. */
function writeJson(value: unknown, modes: number[]): string {
  const space = modes[0]! % 4 === 0 ? " " : "";
  if (Array.isArray(value)) return `[${value.map((v) => writeJson(v, modes)).join(`,${space}`)}]`;
  if (typeof value === "object" && value !== null) {
    const entries = Object.entries(value).map(([k, v]) =>
      `${writeString(k, modes)}${space}:${space}${writeJson(v, modes.slice(1).concat(modes[0]!))}`
    );
    return `{${space}${entries.join(",")}${space}}`;
  }
  if (typeof value === "string") return writeString(value, modes);
  return JSON.stringify(value);
}

/** Keys that share prefixes and hold backslashes, so that poisoning finds victims. */
const key = fc.oneof(
  fc.constantFrom(
    "id",
    "status",
    "effect",
    "elseEffect",
    "e",
    "\\u0065",
    "\\",
    "\\\\",
    '"',
    "a\\b",
  ),
  fc.string({ maxLength: 6 }),
  fc.string({ unit: fc.constantFrom("a", "b", "\\", "u", "0", "6", "5", '"', "\n"), maxLength: 8 }),
);
const json = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    fc.oneof(
      fc.string({ maxLength: 8 }),
      fc.integer(),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      fc.boolean(),
      fc.constant(null),
    ),
    fc.array(tie("value"), { maxLength: 4 }),
    fc.dictionary(key, tie("value"), { maxKeys: 5 }),
  ),
})).value;

/**
 * The value JSON text can express (-0 is written as 0), copied without
 * JSON.parse, which the poisoning may have broken.
 */
function normalized(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normalized);
  if (typeof value === "object" && value !== null) {
    const copy: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      Object.defineProperty(copy, k, {
        value: normalized(v),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return copy;
  }
  return Object.is(value, -0) ? 0 : value;
}

Deno.test("property: text written with random escapes reads back as the value it was written from, after random poisoning", () => {
  fc.assert(
    fc.property(
      fc.array(json, { minLength: 1, maxLength: 3 }),
      json,
      fc.array(fc.nat({ max: 30 }), { minLength: 1, maxLength: 7 }),
      (poisons, value, modes) => {
        // Poison with each document written with literal backslashes in its keys.
        for (const p of poisons) JSON.parse(writeJson(p, [1, 2, 4]));
        const text = writeJson(value, modes);
        assert.deepStrictEqual(parseJson(text), normalized(value));
      },
    ),
    { seed: SEED, numRuns: 2000 },
  );
});

Deno.test("property: parseJson() and JSON.parse agree on mutated texts without escaped keys", () => {
  fc.assert(
    fc.property(
      json,
      fc.nat(),
      fc.constantFrom("", "x", "]", "}", ",", '"', "\\", " ", "1", "-"),
      (value, at, insert) => {
        const written = JSON.stringify(value);
        const position = at % (written.length + 1);
        const text = written.slice(0, position) + insert + written.slice(position);
        let expected: unknown;
        let failed = false;
        try {
          expected = JSON.parse(text);
        } catch {
          failed = true;
        }
        if (failed) {
          assert.throws(() => parseJson(text), JsonParseError);
        } else if (!hasEscapedKey(text)) {
          assert.deepStrictEqual(parseJson(text), expected);
        }
      },
    ),
    { seed: SEED, numRuns: 2000 },
  );
});
