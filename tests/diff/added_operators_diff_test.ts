/**
 * diff by meaning understands the operators added after the specification's
 * (docs/change-safety.md "What `diff` compares"): a changed rollout range is
 * a change of its rule and of its target, the replay moves exactly the users
 * whose buckets lie between the old and new ranges, and spellings that mean
 * the same are no change.
 */
import assert from "node:assert/strict";
import type { RuntimeBundleV1 } from "../../mod.ts";
import { changedTargets, compareDecisions, diffBundles } from "../../src/diff/mod.ts";
import { describeFieldChange } from "../../src/authoring/describe_change.ts";
import { referenceBucket } from "../properties/_reference_evaluator.ts";

const target = { service: "shop", resource: "checkout", action: "open" };

function bundle(when: unknown): RuntimeBundleV1 {
  return {
    schemaVersion: 1,
    env: "prod",
    policies: [{
      policyKey: "checkout",
      activeVersion: 1,
      defaults: { effect: "deny" },
      rules: [{
        id: "new-checkout",
        status: "active",
        priority: 1,
        target,
        when,
        effect: { type: "allow" },
      }],
    }],
  } as unknown as RuntimeBundleV1;
}

const rollout = (to: number) => ({ op: "rollout", path: "userId", salt: "new-checkout", to });

Deno.test("a changed rollout percentage is a change of that rule and its target, and reads as a range", () => {
  const before = bundle(rollout(10));
  const after = bundle(rollout(30));
  const diff = diffBundles(before, after);
  assert.equal(diff.changed, true);
  const [change] = diff.policies.changed[0]!.rules.changed;
  assert.equal(change!.ruleId, "new-checkout");
  assert.deepEqual(change!.fields.map((f) => f.field), ["when"]);
  assert.equal(
    describeFieldChange(change!.fields[0]!),
    'when: userId rollout [0, 10) salt "new-checkout" -> userId rollout [0, 30) salt "new-checkout"',
  );
  assert.deepEqual(changedTargets(before.policies, after.policies), [target]);
});

Deno.test("the decision-impact replay moves exactly the users whose bucket is in [10, 30)", () => {
  const users = Array.from({ length: 2000 }, (_, i) => `user-${i}`);
  const requests = users.map((userId) => ({ target, context: { userId } }));
  const result = compareDecisions(bundle(rollout(10)), bundle(rollout(30)), requests);
  // Who moves, by an independent computation of the buckets.
  const node = rollout(30);
  const moving = users.filter((u) => {
    const b = referenceBucket(node, u)!;
    return b >= 10 && b < 30;
  });
  assert.deepEqual(result.changes.map((c) => c.context.userId), moving);
  assert.ok(moving.length > 300 && moving.length < 500, `about 20 % move: ${moving.length}`);
  assert.ok(result.changes.every((c) => c.old.decision === "deny" && c.new.decision === "allow"));
  assert.deepEqual(result.byTarget[0]!.transitions, [
    { from: "deny", to: "allow", count: moving.length },
  ]);
  // Narrowing moves the same users back out; those below 10 never move.
  const back = compareDecisions(bundle(rollout(30)), bundle(rollout(10)), requests);
  assert.deepEqual(back.changes.map((c) => c.context.userId), moving);
});

Deno.test("spellings that mean the same are no change: defaults, a version's v and build, stars, value order", () => {
  const same: [unknown, unknown][] = [
    [
      { op: "rollout", path: "userId", salt: "s", to: 30 },
      { op: "rollout", path: "userId", salt: "s", from: 0, to: 30, bucketing: "fraction" },
    ],
    [
      { op: "semver", path: "v", cmp: "gte", value: "v2.4.0+build.7" },
      { op: "semver", path: "v", cmp: "gte", value: "2.4.0" },
    ],
    [
      { op: "like", path: "email", pattern: "**@acme\\.com" },
      { op: "like", path: "email", pattern: "*@acme.com" },
    ],
    [
      { op: "containsAny", path: "roles", values: ["b", "a", "b"] },
      { op: "containsAny", path: "roles", values: ["a", "b"] },
    ],
    [
      {
        op: "not",
        condition: { op: "rollout", path: "u", salt: "s", to: 5, bucketing: "fraction" },
      },
      { op: "not", condition: { op: "rollout", path: "u", salt: "s", to: 5 } },
    ],
  ];
  for (const [a, b] of same) {
    const diff = diffBundles(bundle(a), bundle(b));
    assert.equal(diff.changed, false, JSON.stringify([a, b]));
    assert.deepEqual(changedTargets(bundle(a).policies, bundle(b).policies), []);
  }
  // And what differs in meaning still shows.
  const different: [unknown, unknown][] = [
    [
      { op: "rollout", path: "userId", salt: "s", to: 30 },
      { op: "rollout", path: "userId", salt: "s", to: 30, bucketing: "mod100" },
    ],
    [
      { op: "rollout", path: "userId", salt: "s", to: 30 },
      { op: "rollout", path: "userId", salt: "t", to: 30 },
    ],
    [
      { op: "semver", path: "v", cmp: "gte", value: "2.4.0-rc.1" },
      { op: "semver", path: "v", cmp: "gte", value: "2.4.0" },
    ],
    [
      { op: "like", path: "email", pattern: "\\*@acme.com" },
      { op: "like", path: "email", pattern: "*@acme.com" },
    ],
    [
      { op: "containsAny", path: "roles", values: ["a", "b"] },
      { op: "containsAll", path: "roles", values: ["a", "b"] },
    ],
    [
      { op: "containsAny", path: "roles", values: [5] },
      { op: "containsAny", path: "roles", values: ["5"] },
    ],
  ];
  for (const [a, b] of different) {
    assert.equal(diffBundles(bundle(a), bundle(b)).changed, true, JSON.stringify([a, b]));
    assert.deepEqual(changedTargets(bundle(a).policies, bundle(b).policies), [target]);
  }
});
