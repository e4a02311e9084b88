/**
 * The operators added after the specification's (docs/bundle-format.md
 * "Conditions"): what only a unit test reaches. The table's cases are in
 * tests/testdata/engine/conditions.json (run by evaluate_test.ts, and under
 * Node); the property tests compare random trees with the reference
 * evaluator (tests/properties/); the bucketing has rollout_vectors_test.ts.
 */
import assert from "node:assert/strict";
import { compileBundle, createEvaluator, validateBundle } from "../../mod.ts";
import { formatCondition, formatConditionTrace, traceEvaluation } from "../../src/engine/mod.ts";
import { compileCondition } from "../../src/engine/compile_condition.ts";
import { leafOperation } from "../../src/engine/_condition_code.ts";
import { compareSemver, parseSemver, SEMVER_PATTERN } from "../../src/engine/operators/semver.ts";
import {
  canonicalLikePattern,
  compileLikePattern,
  LIKE_PATTERN_PATTERN,
  likeMatches,
} from "../../src/engine/operators/like_pattern.ts";
import { addedLeaf, fc } from "../properties/_arbitraries.ts";
import { ADDED_OPERATORS } from "../../src/public/vocabulary.ts";

const target = { service: "s", resource: "r", action: "a" };
const bundleWhen = (when: unknown) => ({
  schemaVersion: 1,
  env: "prod",
  policies: [{
    policyKey: "p",
    activeVersion: 1,
    rules: [{ id: "r", status: "active", priority: 1, target, when, effect: { type: "allow" } }],
  }],
});

Deno.test("semver: the parser and the schema's pattern accept the same strings", () => {
  const pattern = new RegExp(SEMVER_PATTERN, "u");
  const part = fc.constantFrom(
    "0",
    "1",
    "01",
    "10",
    "v",
    "V",
    ".",
    "-",
    "+",
    "a",
    "rc",
    "0a",
    "-x",
    "9007199254740993",
    "",
    " ",
    "é",
  );
  const version = fc.oneof(
    fc.array(part, { maxLength: 12 }).map((p) => p.join("")),
    fc.tuple(
      fc.constantFrom("", "v"),
      fc.constantFrom("0", "1", "12", "01"),
      fc.constantFrom("0", "2", "03"),
      fc.constantFrom("0", "3", "x"),
      fc.array(fc.constantFrom("alpha", "1", "01", "0", "x-y", "", "0a"), { maxLength: 3 }),
      fc.array(fc.constantFrom("b", "001", "", "x.y"), { maxLength: 2 }),
    ).map(([v, a, b, c, pre, build]) =>
      `${v}${a}.${b}.${c}${pre.length ? `-${pre.join(".")}` : ""}${
        build.length ? `+${build.join(".")}` : ""
      }`
    ),
  );
  fc.assert(
    fc.property(version, (text) => {
      assert.equal(parseSemver(text) !== null, pattern.test(text), JSON.stringify(text));
    }),
    { numRuns: 3000 },
  );
});

Deno.test("semver: SemVer §11's example chain, in order, and build metadata ignored", () => {
  const chain = [
    "1.0.0-alpha",
    "1.0.0-alpha.1",
    "1.0.0-alpha.beta",
    "1.0.0-beta",
    "1.0.0-beta.2",
    "1.0.0-beta.11",
    "1.0.0-rc.1",
    "1.0.0",
    "1.0.1",
    "1.1.0",
    "2.0.0",
    "10.0.0",
  ].map((v) => parseSemver(v)!);
  for (let i = 0; i < chain.length; i++) {
    for (let j = 0; j < chain.length; j++) {
      assert.equal(compareSemver(chain[i]!, chain[j]!), Math.sign(i - j), `${i} vs ${j}`);
    }
  }
  assert.equal(compareSemver(parseSemver("v1.0.0+a")!, parseSemver("1.0.0+b.c")!), 0);
});

Deno.test("like: patterns compile to their literal parts; a lone backslash at the end is no pattern", () => {
  assert.deepEqual(compileLikePattern("a*b\\*c\\\\*"), { parts: ["a", "b*c\\", ""] });
  assert.equal(compileLikePattern("abc\\"), null);
  assert.equal(compileLikePattern("abc\\\\\\"), null);
  assert.notEqual(compileLikePattern("x".repeat(1024)), null);
  assert.equal(compileLikePattern("x".repeat(1025)), null);
  // Characters are code points, as a JSON Schema's maxLength counts them.
  assert.notEqual(compileLikePattern("😀".repeat(1024)), null);
  assert.equal(compileLikePattern("😀".repeat(1025)), null);
  assert.equal(canonicalLikePattern(compileLikePattern("**a***\\b\\*")!), "*a*b\\*");
  const pattern = new RegExp(LIKE_PATTERN_PATTERN, "u");
  for (const text of ["", "a", "\\", "\\\\", "a\\*", "a\\", "\\\\\\", "é\\😀", "😀\\"]) {
    assert.equal(pattern.test(text), compileLikePattern(text) !== null, JSON.stringify(text));
  }
});

Deno.test("like: a pattern that makes a backtracking matcher exponential is linear here", () => {
  // `*a*a*…*a*b` against a run of `a`s: a backtracking matcher tries every way to split the
  // run; this one places each part once, left to right. (No time is asserted: an exponential
  // matcher would not finish.)
  const pattern = compileLikePattern(`${"*a".repeat(40)}*b`)!;
  assert.equal(likeMatches(pattern, "a".repeat(200_000)), false);
  assert.equal(likeMatches(pattern, `${"a".repeat(200_000)}b`), true);
  const evaluate = createEvaluator(
    compileBundle(bundleWhen({ op: "like", path: "s", pattern: `${"*a".repeat(500)}*b` })),
  );
  assert.equal(evaluate({ target, context: { s: "a".repeat(100_000) } }).reason, "default");
});

Deno.test("every added operator reads own properties of plain objects only, and an absent value is false", () => {
  const whens: Record<string, unknown> = {
    contains: { op: "contains", path: "k", value: "admin" },
    containsAny: { op: "containsAny", path: "k", values: ["admin"] },
    containsAll: { op: "containsAll", path: "k", values: ["admin"] },
    startsWith: { op: "startsWith", path: "k", value: "" },
    endsWith: { op: "endsWith", path: "k", value: "" },
    like: { op: "like", path: "k", pattern: "*" },
    semver: { op: "semver", path: "k", cmp: "neq", value: "9.9.9" },
    rollout: { op: "rollout", path: "k", salt: "s", to: 100 },
  };
  assert.deepEqual(Object.keys(whens), [...ADDED_OPERATORS]);
  const proto = Object.prototype as Record<string, unknown>;
  for (const [op, when] of Object.entries(whens)) {
    // Each is true for this value, owned…
    const value = op.startsWith("contains") ? ["admin"] : op === "semver" ? "1.0.0" : "admin";
    for (const path of ["k", "ctx.k", "a.k"]) {
      const node = { ...(when as object), path };
      const evaluate = createEvaluator(compileBundle(bundleWhen(node)));
      const owned = path === "a.k" ? { a: { k: value } } : { k: value };
      assert.equal(evaluate({ target, context: owned }).reason, "rule", `${op} ${path}`);
      assert.equal(compileCondition(node)(owned), true, `${op} ${path}`);
      // …and false when absent, inherited, or behind an array or a class instance.
      proto.k = value;
      try {
        const contexts = [{}, { a: {} }, { a: [{ k: value }] }, { a: new Map([["k", value]]) }];
        for (const context of contexts) {
          assert.equal(evaluate({ target, context }).reason, "default", `${op} ${path}`);
        }
      } finally {
        delete proto.k;
      }
    }
  }
  // An array's hole reads as inherited: it is not an element.
  const holed: unknown[] = [];
  holed[1] = "x";
  (Array.prototype as unknown as Record<number, unknown>)[0] = "admin";
  try {
    assert.equal(compileCondition(whens.contains)({ k: holed }), false);
    assert.equal(compileCondition(whens.containsAny)({ k: holed }), false);
  } finally {
    delete (Array.prototype as unknown as Record<number, unknown>)[0];
  }
});

Deno.test("property: validation refuses exactly the added conditions that compile to false whatever the context", () => {
  // Payloads mixing good and bad fields: a condition validation accepts compiles to its
  // comparison; one it refuses compiles to false (and is an error at a field).
  const field = fc.oneof(
    fc.constantFrom(
      undefined,
      null,
      "",
      "x",
      "admin",
      "1.2.3",
      "v1.2.3",
      "1.2",
      "*a\\",
      "\\\\*",
      "eq",
      "gte",
      "ge",
      "fraction",
      "mod100",
      "percent",
      0,
      30,
      99.5,
      100,
      101,
      -1,
      true,
      [],
      ["admin"],
      ["a", 1, null],
      [{}],
      {},
    ),
    fc.constant("x".repeat(1025)),
  );
  const node = fc.record({
    op: fc.constantFrom(...ADDED_OPERATORS),
    path: fc.constantFrom("p", "ctx.p", 5, undefined),
    value: field,
    values: field,
    pattern: field,
    cmp: field,
    salt: field,
    from: field,
    to: field,
    bucketing: field,
  }).map((n) =>
    Object.fromEntries(Object.entries(n).filter(([, v]) => v !== undefined)) as Record<
      string,
      unknown
    >
  );
  fc.assert(
    fc.property(fc.oneof(node, addedLeaf as fc.Arbitrary<Record<string, unknown>>), (n) => {
      const errors = validateBundle(bundleWhen(n)).errors;
      const compiles = typeof n.path === "string" && leafOperation(n) !== null;
      assert.equal(errors.length === 0, compiles, JSON.stringify(n));
      for (const error of errors) {
        assert.equal(error.code, "CONDITION_MALFORMED");
        assert.match(error.path, /^\/policies\/0\/rules\/0\/when\/[a-z]+$/i);
      }
    }),
    { numRuns: 3000 },
  );
});

Deno.test("traces and the readable form show each added leaf with the value it saw (for rollout, the bucket)", () => {
  const when = {
    op: "and",
    conditions: [
      { op: "contains", path: "roles", value: "admin" },
      { op: "containsAll", path: "roles", values: ["admin", "billing"] },
      { op: "endsWith", path: "email", value: "@acme.com" },
      { op: "like", path: "email", pattern: "*@*.com" },
      { op: "semver", path: "app.version", cmp: "gte", value: "2.4.0" },
      { op: "rollout", path: "userId", salt: "new-checkout", to: 30 },
      { op: "rollout", path: "team", salt: "release-2", from: 10, to: 60, bucketing: "mod100" },
    ],
  };
  assert.equal(
    formatCondition(when),
    'roles contains "admin" and roles containsAll ["admin", "billing"] and email endsWith "@acme.com" and email like "*@*.com" and app.version semver >= "2.4.0" and userId rollout [0, 30) salt "new-checkout" and team rollout [10, 60) salt "release-2" mod100',
  );
  const compiled = compileBundle(bundleWhen(when));
  const context = {
    roles: ["admin", "viewer"],
    email: "x@acme.com",
    app: { version: "2.10.0-rc.1" },
    userId: "u-1",
    team: true,
  };
  const [rule] = traceEvaluation(compiled, { target, context }).rules;
  assert.equal(
    formatConditionTrace(rule!.condition!),
    'roles (["admin", "viewer"]) contains "admin" ✓ and roles (["admin", "viewer"]) containsAll ["admin", "billing"] ✗ and email ("x@acme.com") endsWith "@acme.com" ✓ and email ("x@acme.com") like "*@*.com" ✓ and app.version ("2.10.0-rc.1") semver >= "2.4.0" ✓ and userId ("u-1", bucket 23.46977994311601) rollout [0, 30) salt "new-checkout" ✓ and team (true) rollout [10, 60) salt "release-2" mod100 ✗',
  );
  const leaves =
    (rule!.condition as unknown as { conditions: Record<string, unknown>[] }).conditions;
  assert.deepEqual(leaves[1], {
    kind: "leaf",
    op: "containsAll",
    path: "roles",
    operand: ["admin", "billing"],
    operandCount: 2,
    problem: null,
    value: { type: "array", preview: '["admin", "viewer"]', length: 2 },
    absent: false,
    outcome: false,
  });
  assert.deepEqual(leaves[4], {
    kind: "leaf",
    op: "semver",
    path: "app.version",
    operand: "2.4.0",
    operandCount: null,
    problem: null,
    cmp: "gte",
    value: "2.10.0-rc.1",
    absent: false,
    outcome: true,
  });
  assert.deepEqual(leaves[5], {
    kind: "leaf",
    op: "rollout",
    path: "userId",
    operand: null,
    operandCount: null,
    problem: null,
    rollout: { salt: "new-checkout", from: 0, to: 30, bucketing: "fraction" },
    value: "u-1",
    absent: false,
    bucket: 23.46977994311601,
    outcome: true,
  });
  assert.equal(leaves[6]!.bucket, null);
  assert.deepEqual(rule!.falseBecause, leaves[1]);
  // A malformed one, shown on its own (a bundle holding it is refused), says why it is false.
  assert.equal(
    formatCondition({ op: "rollout", path: "userId", salt: "s", to: 101 }),
    "userId rollout [rollout needs to: a number from 0 to 100; found 101: always false]",
  );
});
