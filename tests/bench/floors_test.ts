/**
 * The benchmarks' floors are honest: each decides exactly as the engine does,
 * on the scenario's contexts and on odd ones (inherited, null-prototype and
 * non-plain objects, numeric strings, Infinity, absent keys), also with
 * Object.prototype polluted, and refuses what the engine refuses, so it does
 * the same work, safety checks included, and nothing less. The wide floors
 * are generated straight-line code: their source is checked to hold one test
 * per rule and no call but the ownership checks.
 */
import assert from "node:assert/strict";
import { compileBundle, createEvaluator } from "../../mod.ts";
import { SCENARIOS } from "../../bench/scenarios/mod.ts";
import { floorSource } from "../../bench/scenarios/wide.ts";
import { fc, holder } from "../properties/_arbitraries.ts";

const N = 24;

/** Values that would make rules fire, were inherited properties read. */
const POLLUTION = {
  plan: "free",
  seats: 10,
  region: "eu",
  tier: "tier-3",
  beta: null,
};

/** A value a context field may hold, the scenario's own values among odd ones. */
const value: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(
    "free",
    "pro",
    "eu",
    "us",
    "apac",
    "none",
    "plan-0",
    "plan-20",
    "plan-245",
    "r-2-a",
    "r-4",
    "tier-3",
    "6",
    "1e1",
    "5000",
    " 7",
  ),
  fc.constantFrom(0, 3, 5, 6, 10, 1001, 5000, Infinity, -Infinity, NaN, -0),
  fc.constantFrom(null, true, false, undefined),
  fc.constant(["free"]),
);

/** An object a path goes through, or a string where one is expected. */
const through = (fields: Record<string, fc.Arbitrary<unknown>>) =>
  fc.oneof(holder(fields, { plan: "free", region: "eu", beta: true }), fc.constant("free"));

const flatFields = { plan: value, seats: value, region: value, tier: value, beta: value };
const flatContext: fc.Arbitrary<Record<string, unknown>> = fc.record(flatFields, {
  requiredKeys: [],
});
const nestedContext: fc.Arbitrary<Record<string, unknown>> = fc.record({
  user: through({
    region: value,
    tier: value,
    org: through({ plan: value, seats: value }),
    flags: through({ beta: value }),
  }),
}, { requiredKeys: [] });

for (const scenario of SCENARIOS) {
  Deno.test(`floor of ${scenario.id} decides as the engine does`, () => {
    const evaluate = createEvaluator(compileBundle(scenario.bundle(N)));
    const floor = scenario.floor(N);
    const targets = [0, 1, 7, N - 1].map((i) => scenario.target(i));
    scenario.contexts.forEach((context, c) => {
      for (const target of targets) {
        const decision = evaluate({ target, context });
        assert.equal(decision.decision, scenario.expected[c]);
        assert.deepEqual(floor({ target, context }), decision);
      }
    });
    const unknown = { service: "none", resource: "none", action: "read" };
    assert.deepEqual(
      floor({ target: unknown, context: {} }),
      evaluate({ target: unknown, context: {} }),
    );
    // No context is an empty one; a request that is not one is refused by both.
    const noContext = { target: targets[0]! } as {
      target: typeof unknown;
      context: Record<string, unknown>;
    };
    assert.deepEqual(floor(noContext), evaluate(noContext));
    const invalid = [
      { target: { ...targets[0]!, action: 1 }, context: {} },
      { target: null, context: {} },
      { target: targets[0]!, context: [] },
      { target: targets[0]!, context: new Map() },
      { target: targets[0]!, context: "free" },
    ] as unknown as { target: typeof unknown; context: Record<string, unknown> }[];
    for (const request of invalid) {
      assert.throws(() => evaluate(request));
      assert.throws(() => floor(request), TypeError);
    }
    const nested = scenario.contextKeys.includes("user");
    const contexts = fc.sample(nested ? nestedContext : flatContext, { numRuns: 500, seed: 20 });
    const agree = () => {
      for (const [i, context] of contexts.entries()) {
        const target = targets[i % targets.length]!;
        assert.deepEqual(floor({ target, context }), evaluate({ target, context }));
      }
    };
    agree();
    // Someone polluted Object.prototype: neither reads what it inherits.
    const proto = Object.prototype as Record<string, unknown>;
    const polluted = { ...POLLUTION, user: { ...POLLUTION, org: POLLUTION, flags: POLLUTION } };
    try {
      Object.assign(proto, polluted);
      agree();
    } finally {
      for (const key of Object.keys(polluted)) delete proto[key];
    }
    assert.equal(({} as Record<string, unknown>).plan, undefined);
  });
}

Deno.test("the wide floors are straight-line code: one if per rule, no call but hasOwn", () => {
  for (const [rules, style] of [[50, "flat"], [500, "nested"]] as const) {
    const source = floorSource(rules, style);
    // One `if … return` for an unknown target, one per conditional rule, then the allow.
    assert.equal(source.match(/^ {2}if \(.*\) return \{ decision: /gm)?.length, 1 + rules - 1);
    const calls = [...source.matchAll(/([A-Za-z_.]+)\(/g)].map((m) => m[1]);
    // The target maps' get, the number and plain-object checks, ownership; nothing else.
    assert.deepEqual([...new Set(calls)].sort(), [
      ".get",
      "JSON_NUMBER.test",
      "TypeError",
      "floor",
      "getPrototypeOf",
      "hasOwn",
      "services.get",
    ]);
  }
});
