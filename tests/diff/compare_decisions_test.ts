import assert from "node:assert/strict";
import { compileBundle, createEvaluator, type RuntimeBundleV1 } from "../../mod.ts";
import { compareDecisions } from "../../src/diff/mod.ts";
import { bundle as generatedBundle, context, fc, target } from "../properties/_arbitraries.ts";
import { testSeed } from "../_random.ts";

const SEED = testSeed(11);

const T = { service: "billing", resource: "invoice", action: "create" };
const R = { service: "billing", resource: "refund", action: "create" };

function bundleOf(rules: Record<string, unknown>[]): RuntimeBundleV1 {
  return {
    schemaVersion: 1,
    env: "prod",
    policies: [{ policyKey: "billing", activeVersion: 1, defaults: { effect: "deny" }, rules }],
  } as unknown as RuntimeBundleV1;
}

const paid = (id = "paid", effect: Record<string, unknown> = { type: "allow" }) => ({
  id,
  status: "active",
  priority: 1,
  target: T,
  when: { op: "in", path: "plan", values: ["pro", "enterprise"] },
  effect,
});

Deno.test("every request whose decision differs, with old and new, and counts per target", () => {
  const before = bundleOf([paid()]);
  const after = bundleOf([paid(), {
    id: "cap",
    status: "active",
    priority: 9,
    target: T,
    when: { op: "gt", path: "seats", value: 50 },
    effect: { type: "deny" },
  }]);
  const result = compareDecisions(before, after, [
    { target: T, context: { plan: "pro", seats: 10 } },
    { target: T, context: { plan: "enterprise", seats: 400 } },
    { target: R },
    { target: T, context: { plan: "free", seats: 60 } },
    { target: T, context: { plan: "pro", seats: 80 } },
  ]);
  assert.deepEqual(result.changes.map((c) => [c.index, c.effectChanged]), [[1, true], [3, false], [
    4,
    true,
  ]]);
  assert.deepEqual(result.changes[0], {
    index: 1,
    target: T,
    context: { plan: "enterprise", seats: 400 },
    old: { decision: "allow", reason: "rule", policyKey: "billing", ruleId: "paid" },
    new: { decision: "deny", reason: "rule", policyKey: "billing", ruleId: "cap" },
    effectChanged: true,
  });
  assert.deepEqual([result.requests, result.changed, result.reattributed], [5, 2, 1]);
  // free with 60 seats: denied by the defaults before, by the new rule now.
  assert.deepEqual(result.byTarget, [
    {
      target: T,
      requests: 4,
      changed: 2,
      reattributed: 1,
      transitions: [{ from: "allow", to: "deny", count: 2 }],
    },
    { target: R, requests: 1, changed: 0, reattributed: 0, transitions: [] },
  ]);
  const reattributed = compareDecisions(before, after, [{ target: T, context: { seats: 60 } }]);
  assert.equal(reattributed.changes[0]!.effectChanged, false);
  assert.deepEqual(reattributed.changes[0]!.context, { seats: 60 });
});

Deno.test("a descriptor change is an enforced change even when the type stays", () => {
  const throttle = (limit: number) => ({
    type: "throttle",
    throttle: { limit, windowSeconds: 60, key: "tenant" },
  });
  const result = compareDecisions(
    bundleOf([paid("paid", throttle(100))]),
    bundleOf([paid("paid", throttle(10))]),
    [{ target: T, context: { plan: "pro" } }, { target: T, context: { plan: "free" } }],
  );
  assert.equal(result.changed, 1);
  assert.deepEqual(result.byTarget[0]!.transitions, [{
    from: "throttle",
    to: "throttle",
    count: 1,
  }]);
  assert.equal(
    compareDecisions(bundleOf([paid("a")]), bundleOf([paid("b")]), [
      { target: T, context: { plan: "pro" } },
    ]).reattributed,
    1,
  );
});

Deno.test("transitions are listed most frequent first; targets sorted", () => {
  const before = bundleOf([paid(), { ...paid("r"), target: R }]);
  const after = bundleOf([paid("paid", { type: "deny" }), {
    ...paid("r", { type: "custom", value: "v" }),
    target: R,
  }]);
  const result = compareDecisions(before, after, [
    { target: R, context: { plan: "pro" } },
    { target: T, context: { plan: "pro" } },
    { target: T, context: { plan: "enterprise" } },
    { target: T, context: { plan: "free" } },
  ]);
  assert.deepEqual(result.byTarget.map((t) => t.target), [T, R]);
  assert.deepEqual(result.byTarget[0]!.transitions, [{ from: "allow", to: "deny", count: 2 }]);
  assert.deepEqual(result.byTarget[1]!.transitions, [{ from: "allow", to: "custom", count: 1 }]);
});

Deno.test(`property (seed ${SEED}): a bundle against itself changes nothing; against another, what the engine says`, () => {
  fc.assert(
    fc.property(
      generatedBundle,
      generatedBundle,
      fc.array(fc.record({ target, context }), { maxLength: 12 }),
      (a, b, requests) => {
        assert.equal(compareDecisions(a, structuredClone(a), requests).changes.length, 0);
        const result = compareDecisions(a, b, requests);
        const ea = createEvaluator(compileBundle(a));
        const eb = createEvaluator(compileBundle(b));
        const differing = requests.flatMap((r, i) =>
          JSON.stringify(ea(r)) === JSON.stringify(eb(r)) ? [] : [i]
        );
        assert.deepEqual(result.changes.map((c) => c.index), differing);
        assert.equal(result.changed + result.reattributed, differing.length);
        assert.equal(result.byTarget.reduce((n, t) => n + t.requests, 0), requests.length);
      },
    ),
    { seed: SEED, numRuns: 200 },
  );
});
