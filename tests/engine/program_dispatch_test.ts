/**
 * The index of wide programs (`src/engine/dispatch/program_dispatch.ts`: constants,
 * intervals, presence and absence) and the conditions' closures
 * (`src/engine/_condition_code.ts`): a wide target, indexed or not, decides
 * exactly as the naive reference does, which tests every rule in turn, on
 * random bundles where most tests compare a few paths with constants or
 * bounds, or ask whether they exist, beside every other operator, with and
 * without Object.prototype polluted.
 */
import assert from "node:assert/strict";
import { compileBundle, createEvaluator, type RuntimeBundleV1 } from "../../mod.ts";
import { traceEvaluation } from "../../src/engine/mod.ts";
import { compiledCodeOf } from "../../src/engine/_compiled_code.ts";
import { Dispatch } from "../../src/engine/dispatch/program_dispatch.ts";
import { admittedAt, rangeGroups } from "../../src/engine/dispatch/range_groups.ts";
import { compileCondition } from "../../src/engine/compile_condition.ts";
import {
  addedLeaf,
  condition,
  conditionFrom,
  conditionLeaf,
  effect,
  fc,
  holder,
  primitive,
} from "../properties/_arbitraries.ts";
import { referenceCondition, referenceEvaluate } from "../properties/_reference_evaluator.ts";
import { LONG, noteLong } from "../_long.ts";

/** Generated wide bundles of the index property: a sample in the quick suite, 400 in test:long. */
const WIDE_BUNDLES = LONG ? 400 : 100;
noteLong("tests/engine/program_dispatch_test.ts", `${400 - WIDE_BUNDLES} of 400 wide bundles`);

const TARGET = { service: "billing", resource: "invoice", action: "read" };
const PATHS = [
  "plan",
  "ctx.plan",
  "region",
  "seats",
  "user.tier",
  "user.org.plan",
  "user.org.seats",
  "constructor",
];
const VALUES = ["free", "pro", "eu", "us", "gold", 0, -0, 1, 5, true, false, "", "toString"];
/** Bounds and values of the ordering tests: numbers, numeric strings, edges. */
const NUMBERS = [-1, 0, -0, 1, 2, 2.5, 5, 10, "5", "2.5", "-1", "1e1", "05", " 5", 1e308];

const guardValue = fc.oneof(fc.constantFrom(...VALUES), primitive);
const numberValue = fc.oneof(
  fc.constantFrom(...NUMBERS),
  fc.integer({ min: -3, max: 12 }),
  fc.double({ min: -3, max: 12, noNaN: true }),
);
/** What a path of a wide context holds: a constant, a number, nothing much, or something odd. */
const contextValue = fc.oneof(
  { weight: 3, arbitrary: guardValue },
  { weight: 3, arbitrary: numberValue },
  {
    weight: 1,
    arbitrary: fc.constantFrom(null, Number.NaN, Infinity, -Infinity, ["free"], { a: 1 }),
  },
);

/**
 * Mostly what the index looks up on a few paths (`eq`, `in`, ordering tests,
 * `exists`, `eq null`, their negations), with every other leaf mixed in.
 */
const indexedLeaf = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      op: fc.constant("eq"),
      path: fc.constantFrom(...PATHS),
      value: guardValue,
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      op: fc.constant("in"),
      path: fc.constantFrom(...PATHS),
      values: fc.array(guardValue, { maxLength: 10 }),
    }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      op: fc.constantFrom("gt", "gte", "lt", "lte"),
      path: fc.constantFrom(...PATHS),
      value: numberValue,
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({ op: fc.constant("exists"), path: fc.constantFrom(...PATHS) }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constantFrom("eq", "neq"),
      path: fc.constantFrom(...PATHS),
      value: fc.constant(null),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant("not"),
      condition: fc.record({
        op: fc.constantFrom("exists", "eq"),
        path: fc.constantFrom(...PATHS),
        value: fc.constant(null),
      }),
    }),
  },
  { weight: 2, arbitrary: conditionLeaf },
  { weight: 2, arbitrary: addedLeaf },
);
const wideCondition = fc.oneof(
  { weight: 3, arbitrary: indexedLeaf },
  { weight: 2, arbitrary: conditionFrom(indexedLeaf, { leafWeight: 3 }) },
  { weight: 1, arbitrary: condition },
);

const wideRule = fc.record(
  {
    status: fc.constantFrom("active", "active", "active", "active", "disabled"),
    priority: fc.integer({ min: -2, max: 4 }),
    effect,
    when: wideCondition,
    thenEffect: effect,
    elseEffect: effect,
  },
  { requiredKeys: ["status", "priority", "effect", "when"] },
);

/** One target named by many rules, in one to three policies, some with defaults. */
const wideBundle = fc.array(
  fc.record({
    rules: fc.array(wideRule, { minLength: 4, maxLength: 40 }),
    defaults: fc.option(fc.constantFrom({ effect: "allow" }, { effect: "deny" }), {
      nil: undefined,
    }),
  }),
  { minLength: 1, maxLength: 3 },
).map((policies): RuntimeBundleV1 => ({
  schemaVersion: 1,
  env: "prod",
  policies: policies.map((p, i) => ({
    policyKey: `policy-${i}`,
    activeVersion: 1,
    ...(p.defaults === undefined ? {} : { defaults: p.defaults }),
    rules: p.rules.map((r, j) => ({ id: `rule-${j}`, target: TARGET, ...r })),
  })),
} as unknown as RuntimeBundleV1));

const wideContext = fc.record(
  {
    plan: fc.oneof(contextValue, fc.constant(["free"])),
    region: contextValue,
    seats: contextValue,
    user: fc.oneof(
      holder({
        tier: contextValue,
        org: fc.oneof(holder({ plan: contextValue, seats: contextValue }), guardValue),
      }),
      guardValue,
    ),
    ctx: fc.record({ plan: contextValue }),
    roles: fc.constantFrom(["admin"], ["editor", "viewer"], [], "admin"),
    email: fc.constantFrom("a@acme.com", "admin", ""),
    version: fc.constantFrom("1.2.3", "2.0.0", "v1.10.0", "x"),
    userId: fc.constantFrom("u-1", "u-2", 7, ""),
  },
  { requiredKeys: [] },
);

function dispatchCount(compiled: ReturnType<typeof compileBundle>): number {
  return compiledCodeOf(compiled).code.filter((slot) => slot instanceof Dispatch).length;
}

Deno.test("an indexed wide target decides as the reference does, polluted prototype or not", () => {
  let indexed = 0;
  let plain = 0;
  fc.assert(
    fc.property(
      wideBundle,
      fc.array(wideContext, { minLength: 1, maxLength: 8 }),
      (b, contexts) => {
        const compiled = compileBundle(b);
        if (dispatchCount(compiled) > 0) indexed++;
        else plain++;
        const evaluate = createEvaluator(compiled);
        const agree = () => {
          for (const context of contexts) {
            const decision = evaluate({ target: TARGET, context });
            assert.deepEqual(decision, referenceEvaluate(b, TARGET, context));
            // Traces do not run the programs: a second, independent account.
            assert.deepEqual(
              traceEvaluation(compiled, { target: TARGET, context }).decision,
              decision,
            );
          }
        };
        agree();
        const proto = Object.prototype as Record<string, unknown>;
        try {
          Object.assign(proto, { plan: "free", region: "eu", tier: "gold", seats: 7 });
          agree();
        } finally {
          delete proto.plan;
          delete proto.region;
          delete proto.tier;
          delete proto.seats;
        }
      },
    ),
    { numRuns: WIDE_BUNDLES },
  );
  // About 60 % of the generated targets are indexed (50 to 70 of 100 over a dozen seeds): the
  // property is about the index, not beside it; the others run every test's closure in rank
  // order, and are checked too. The bounds hold for any seed, not only the default one.
  assert.ok(
    indexed >= WIDE_BUNDLES * 0.4,
    `only ${indexed} of ${WIDE_BUNDLES} bundles were indexed`,
  );
  assert.ok(
    plain >= WIDE_BUNDLES * 0.1,
    `only ${plain} of ${WIDE_BUNDLES} bundles were not indexed`,
  );
});

Deno.test("an ordering index admits exactly the intervals that hold the number", () => {
  fc.assert(
    fc.property(
      fc.array(
        fc.record({
          op: fc.constantFrom("gt", "gte", "lt", "lte"),
          bound: fc.oneof(fc.integer({ min: -5, max: 5 }), fc.constantFrom(-0, 0.5, 1e300)),
        }),
        { minLength: 1, maxLength: 80 },
      ),
      fc.oneof(fc.integer({ min: -7, max: 7 }), fc.double({ min: -7, max: 7, noNaN: true })),
      (tests, x) => {
        const intervals = tests.map(({ op, bound }, instruction) => ({
          instruction,
          low: op.startsWith("g") ? bound : -Infinity,
          lowOpen: op !== "gte",
          high: op.startsWith("l") ? bound : Infinity,
          highOpen: op !== "lte",
        }));
        const holds = (op: string, bound: number) =>
          op === "gt"
            ? x > bound
            : op === "gte"
            ? x >= bound
            : op === "lt"
            ? x < bound
            : x <= bound;
        const admitted = rangeGroups(intervals).flatMap((g) => [...admittedAt(g, x)]);
        const expected = tests.flatMap(({ op, bound }, i) => holds(op, bound) ? [i] : []);
        assert.deepEqual(admitted, expected);
      },
    ),
    { numRuns: 500 },
  );
});

Deno.test("ordering tests, exists and not exists are indexed: a wide target skips what cannot be true", () => {
  // Rules k = 0…39: seats > 100 + k, or not exists flag-k; then an allow. Every test the index
  // admits is counted by a getter on the context's values read.
  const rules = Array.from({ length: 40 }, (_, k) => ({
    id: `rule-${k}`,
    status: "active",
    priority: 100 - k,
    target: TARGET,
    when: k % 2 === 0
      ? { op: "gt", path: "seats", value: 100 + k }
      : { op: "not", condition: { op: "exists", path: `flags.f${k % 4}` } },
    effect: { type: "deny" },
  }));
  const compiled = compileBundle({
    schemaVersion: 1,
    env: "prod",
    policies: [{
      policyKey: "p",
      activeVersion: 1,
      rules: [...rules, {
        id: "allow",
        status: "active",
        priority: 0,
        target: TARGET,
        effect: { type: "allow" },
      }],
    }],
  } as unknown as RuntimeBundleV1);
  assert.equal(dispatchCount(compiled), 1);
  const evaluate = createEvaluator(compiled);
  let reads = 0;
  const counted = (value: unknown) => ({
    get seats() {
      reads++;
      return value;
    },
    flags: { f1: true, f3: true },
  });
  // Nothing fires: the index reads seats once; no ordering test runs (each would read it).
  assert.equal(evaluate({ target: TARGET, context: counted(50) }).decision, "allow");
  assert.equal(reads, 1);
  reads = 0;
  assert.deepEqual(evaluate({ target: TARGET, context: counted(130) }), {
    decision: "deny",
    reason: "rule",
    policyKey: "p",
    ruleId: "rule-0",
  });
  assert.equal(reads, 2); // the index, then rule-0's test
  reads = 0;
  const noFlag = { ...counted(50), flags: { f1: true } };
  assert.equal(evaluate({ target: TARGET, context: noFlag }).ruleId, "rule-3");
  assert.equal(reads, 1);
});

Deno.test("a part the unindexed tests share is tested once per evaluation", () => {
  // Rules 0…9: status is not "ok", or plan is plan-k (no index can skip them); rules 10…15:
  // plan is plan-k (indexed). Then an allow.
  const rule = (k: number, when: unknown) => ({
    id: `rule-${k}`,
    status: "active",
    priority: 100 - k,
    target: TARGET,
    when,
    effect: { type: "deny" },
  });
  const rules = [
    ...Array.from({ length: 10 }, (_, k) =>
      rule(k, {
        op: "or",
        conditions: [
          { op: "neq", path: "status", value: "ok" },
          { op: "eq", path: "plan", value: `plan-${k}` },
        ],
      })),
    ...Array.from(
      { length: 6 },
      (_, k) => rule(10 + k, { op: "eq", path: "plan", value: `plan-${10 + k}` }),
    ),
    { id: "allow", status: "active", priority: 0, target: TARGET, effect: { type: "allow" } },
  ];
  const compiled = compileBundle({
    schemaVersion: 1,
    env: "prod",
    policies: [{ policyKey: "p", activeVersion: 1, rules }],
  } as unknown as RuntimeBundleV1);
  assert.equal(dispatchCount(compiled), 1);
  const evaluate = createEvaluator(compiled);
  let reads = 0;
  const context = (status: string, plan: string) => ({
    get status() {
      reads++;
      return status;
    },
    plan,
  });
  assert.equal(evaluate({ target: TARGET, context: context("ok", "none") }).decision, "allow");
  assert.equal(reads, 1); // ten rules test it; one reads it
  reads = 0;
  assert.equal(evaluate({ target: TARGET, context: context("ok", "plan-4") }).ruleId, "rule-4");
  assert.equal(reads, 1);
  reads = 0;
  assert.equal(evaluate({ target: TARGET, context: context("banned", "none") }).ruleId, "rule-0");
  // A second evaluation does not see the first's result.
  assert.equal(evaluate({ target: TARGET, context: context("ok", "plan-12") }).ruleId, "rule-12");
  assert.equal(reads, 2);
});

Deno.test("targets with identical rules share one index", () => {
  const rules = (i: number) =>
    Array.from({ length: 12 }, (_, k) => ({
      id: `rule-${k}`,
      status: "active",
      priority: 20 - k,
      target: { service: "s", resource: `r-${i}`, action: "a" },
      when: { op: "eq", path: "plan", value: `plan-${k}` },
      effect: { type: "deny" },
    }));
  const compiled = compileBundle({
    schemaVersion: 1,
    env: "prod",
    policies: Array.from({ length: 50 }, (_, i) => ({
      policyKey: `p-${i}`,
      activeVersion: 1,
      rules: rules(i),
    })),
  });
  const found = compiledCodeOf(compiled).code.filter((slot) => slot instanceof Dispatch);
  assert.equal(found.length, 50);
  assert.equal(new Set(found).size, 1);
  const evaluate = createEvaluator(compiled);
  const target = { service: "s", resource: "r-7", action: "a" };
  assert.deepEqual(evaluate({ target, context: { plan: "plan-5" } }), {
    decision: "deny",
    reason: "rule",
    policyKey: "p-7",
    ruleId: "rule-5",
  });
  assert.deepEqual(evaluate({ target, context: { plan: "other" } }), {
    decision: "deny",
    reason: "default",
  });
});

Deno.test("a compiled condition run on its own decides as the reference does, polluted or not", () => {
  fc.assert(
    fc.property(wideCondition, wideContext, (node, context) => {
      const test = compileCondition(node);
      assert.equal(test(context), referenceCondition(node, context));
      const proto = Object.prototype as Record<string, unknown>;
      try {
        Object.assign(proto, { plan: "free", region: "eu", tier: "gold", user: { tier: "gold" } });
        assert.equal(test(context), referenceCondition(node, context));
      } finally {
        delete proto.plan;
        delete proto.region;
        delete proto.tier;
        delete proto.user;
      }
    }),
    { numRuns: 2000 },
  );
});
