/**
 * The bucketing of `rollout` (docs/bundle-format.md "Rollout buckets")
 * against independent computations: MurmurHash3's published vectors, the
 * Python of the docs (run by python3, from scratch) on the docs' own table
 * and on generated strings, and the table itself through the engine.
 */
import assert from "node:assert/strict";
import {
  hashPrefix,
  murmur3,
  murmur3After,
  murmur3Bytes,
} from "../../src/engine/operators/murmur3.ts";
import { rolloutBucket, rolloutOperand, rolloutText } from "../../src/engine/operators/rollout.ts";
import { compileBundle, createEvaluator } from "../../mod.ts";
import { traceEvaluation } from "../../src/engine/mod.ts";
import { fc } from "../properties/_arbitraries.ts";

const DOC = Deno.readTextFileSync(new URL("../../docs/bundle-format.md", import.meta.url));
const SECTION = DOC.slice(
  DOC.indexOf("### Rollout buckets"),
  DOC.indexOf("## Which rules take part"),
);
/** The Python of the docs, as a reader copies it. */
const PYTHON = /```python\n([\s\S]*?)```/.exec(SECTION)![1]!;

interface Vector {
  salt: string;
  key: string;
  hash: number;
  fraction: number;
  mod100: number;
}

/** The table of the docs. */
const VECTORS: Vector[] = SECTION.split("\n")
  .filter((line) => line.startsWith("| `"))
  .map((line) => {
    const [salt, key, hash, fraction, mod100] = line.slice(1, -1).split("|").map((c) => c.trim());
    const code = (cell: string) => cell.slice(1, -1);
    return {
      salt: code(salt!),
      key: code(key!),
      hash: Number(hash),
      fraction: Number(fraction),
      mod100: Number(mod100),
    };
  });

/**
 * Runs the docs' Python on pairs of salt and key: the hash and both
 * buckets of each, as Python writes them (`repr` of a float is the shortest
 * text that reads back as it, as JavaScript's).
 */
async function python(pairs: [string, string][]): Promise<[number, number, number][]> {
  const harness = `${PYTHON}
import json
for salt, key in json.loads(sys.stdin.read()):
    h = murmur3_32(f"{salt}:{key}".encode("utf-8"))
    print(json.dumps([h, bucket(salt, key), bucket(salt, key, "mod100")]))
`;
  const child = new Deno.Command("python3", {
    args: ["-c", harness],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(JSON.stringify(pairs)));
  await writer.close();
  const { code, stdout, stderr } = await child.output();
  assert.equal(code, 0, new TextDecoder().decode(stderr));
  return new TextDecoder().decode(stdout).trim().split("\n").filter(Boolean).map((line) =>
    JSON.parse(line)
  );
}

Deno.test("murmur3 gives MurmurHash3 x86 32-bit's published vectors", () => {
  // From the reference implementation's users (SMHasher's verification set and the widely
  // quoted vectors with seed 0x9747b28c); the strings are hashed as UTF-8.
  const vectors: [string, number, number][] = [
    ["", 0, 0],
    ["", 1, 0x514e28b7],
    ["", 0xffffffff, 0x81f16f39],
    ["a", 0x9747b28c, 0x7fa09ea6],
    ["ab", 0x9747b28c, 0x74875592],
    ["abc", 0x9747b28c, 0xc84a62dd],
    ["abcd", 0x9747b28c, 0xf0478627],
    ["aaaa", 0x9747b28c, 0x5a97808a],
    ["aaa", 0x9747b28c, 0x283e0130],
    ["aa", 0x9747b28c, 0x5d211726],
    ["abc", 0, 0xb3dd93fa],
    ["Hello, world!", 0x9747b28c, 0x24884cba],
    ["ππππππππ", 0x9747b28c, 0xd58063c1],
    ["The quick brown fox jumps over the lazy dog", 0x9747b28c, 0x2fa826cd],
    ["The quick brown fox jumps over the lazy dog", 0, 0x2e4ff723],
  ];
  for (const [text, seed, want] of vectors) {
    assert.equal(murmur3(text, seed), want, JSON.stringify(text));
    assert.equal(murmur3Bytes(new TextEncoder().encode(text), seed), want, JSON.stringify(text));
  }
  assert.equal(murmur3Bytes(new Uint8Array(4)), 0x2362f9de);
});

Deno.test("the docs' Python computes the docs' table, and so does the engine", async () => {
  assert.ok(VECTORS.length >= 10, "the table is read");
  const computed = await python(VECTORS.map((v) => [v.salt, v.key]));
  VECTORS.forEach((v, i) => {
    assert.deepEqual(computed[i], [v.hash, v.fraction, v.mod100], `python: ${v.salt}:${v.key}`);
    assert.equal(murmur3(`${v.salt}:${v.key}`), v.hash, `${v.salt}:${v.key}`);
    for (const bucketing of ["fraction", "mod100"] as const) {
      const operand = rolloutOperand(v.salt, 0, 100, bucketing === "mod100");
      // A key that is a decimal whole number is bucketed the same as that number.
      const keys: unknown[] = /^-?[1-9][0-9]*$/.test(v.key) ? [v.key, Number(v.key)] : [v.key];
      for (const key of keys) assert.equal(rolloutBucket(operand, key), v[bucketing]);
    }
  });
  // The command line the docs show.
  const child = await new Deno.Command("python3", {
    args: ["-c", PYTHON, "new-checkout", "u-1"],
  }).output();
  assert.equal(new TextDecoder().decode(child.stdout), "1008019373 23.46977994311601 73\n");
});

Deno.test("rollout decisions and traces follow the table: from ≤ bucket < to", () => {
  const target = { service: "s", resource: "r", action: "a" };
  for (const v of VECTORS) {
    for (const bucketing of ["fraction", "mod100"] as const) {
      const bucket = v[bucketing];
      // Just above, at, and just below the bucket: in [bucket, bucket + ε) only.
      const ranges: [number, number, boolean][] = [
        [bucket, Math.min(100, bucket + 1e-9), true],
        [0, bucket, false],
        [Math.min(100, bucket + 1e-9), 100, false],
      ];
      for (const [from, to, want] of ranges) {
        const when = { op: "rollout", path: "ctx.user.id", salt: v.salt, from, to, bucketing };
        const compiled = compileBundle({
          schemaVersion: 1,
          env: "prod",
          policies: [{
            policyKey: "p",
            activeVersion: 1,
            rules: [{
              id: "r",
              status: "active",
              priority: 1,
              target,
              when,
              effect: { type: "allow" },
            }],
          }],
        });
        const request = { target, context: { user: { id: v.key } } };
        assert.equal(createEvaluator(compiled)(request).reason, want ? "rule" : "default");
        const [rule] = traceEvaluation(compiled, request).rules;
        const leaf = rule!.condition as { bucket: number; outcome: boolean };
        assert.equal(leaf.bucket, bucket);
        assert.equal(leaf.outcome, want);
      }
    }
  }
});

Deno.test("property: murmur3 agrees with the docs' Python on generated strings", async () => {
  const pairs = fc.sample(
    fc.tuple(
      fc.string({ minLength: 1, maxLength: 8, unit: "grapheme" }),
      fc.string({ maxLength: 40, unit: "grapheme" }),
    ),
    { numRuns: 300, seed: 37 },
  );
  const computed = await python(pairs);
  assert.equal(computed.length, pairs.length);
  pairs.forEach(([salt, key], i) => {
    const [hash, fraction, mod100] = computed[i]!;
    const show = JSON.stringify([salt, key]);
    assert.equal(murmur3(`${salt}:${key}`), hash, show);
    if (key === "") return; // no bucket: an empty string is not bucketed
    assert.equal(rolloutBucket(rolloutOperand(salt, 0, 100, false), key), fraction, show);
    assert.equal(rolloutBucket(rolloutOperand(salt, 0, 100, true), key), mod100, show);
  });
});

Deno.test("property: hashing from code units equals hashing TextEncoder's bytes (lone surrogates as U+FFFD)", () => {
  fc.assert(
    fc.property(
      fc.string({ maxLength: 8, unit: "binary" }),
      fc.string({ maxLength: 30, unit: "binary" }),
      (prefix, text) => {
        const bytes = new TextEncoder().encode(prefix + text);
        assert.equal(murmur3(prefix + text), murmur3Bytes(bytes));
        assert.equal(murmur3After(hashPrefix(prefix), text), murmur3Bytes(bytes));
      },
    ),
    { numRuns: 2000 },
  );
});

Deno.test("rolloutText: a non-empty string, or a whole number within ±(2^53−1) in decimal", () => {
  const cases: [unknown, string | null][] = [
    ["u-1", "u-1"],
    ["", null],
    [42, "42"],
    [-7, "-7"],
    [-0, "0"],
    [2 ** 53 - 1, "9007199254740991"],
    [-(2 ** 53 - 1), "-9007199254740991"],
    [2 ** 53, null],
    [1e21, null],
    [1.5, null],
    [NaN, null],
    [Infinity, null],
    [true, null],
    [null, null],
    [undefined, null],
    [["u-1"], null],
    [{}, null],
    [10n, null],
  ];
  for (const [value, want] of cases) assert.equal(rolloutText(value), want, String(value));
});
