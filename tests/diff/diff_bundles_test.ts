import assert from "node:assert/strict";
import type { RuntimeBundleV1 } from "../../mod.ts";
import { diffBundles } from "../../src/diff/mod.ts";
import { bundle as generatedBundle, fc } from "../properties/_arbitraries.ts";
import { reverseKeys } from "../_reverse_keys.ts";
import { testSeed } from "../_random.ts";

const SEED = testSeed(7);

const T = { service: "billing", resource: "invoice", action: "create" };
const U = { service: "billing", resource: "invoice", action: "export" };

type Obj = Record<string, unknown>;

function rule(id: string, extra: Obj = {}): Obj {
  return { id, status: "active", priority: 1, target: T, effect: { type: "allow" }, ...extra };
}

function bundleOf(policies: Obj[], extra: Obj = {}): RuntimeBundleV1 {
  return { schemaVersion: 1, env: "prod", policies, ...extra } as unknown as RuntimeBundleV1;
}

const base = () =>
  bundleOf([
    {
      policyKey: "billing",
      activeVersion: 3,
      defaults: { effect: "deny" },
      rules: [
        rule("paid", { when: { op: "in", path: "plan", values: ["pro", "enterprise"] } }),
        rule("free", {
          priority: 10,
          effect: { type: "deny" },
          when: { op: "eq", path: "plan", value: "free" },
        }),
      ],
    },
    { policyKey: "search", activeVersion: 1, rules: [rule("open", { target: U })] },
  ]);

Deno.test("identical bundles: nothing changed", () => {
  const diff = diffBundles(base(), base());
  assert.deepEqual(diff, {
    changed: false,
    scope: [],
    policies: { added: [], removed: [], changed: [] },
    targets: [],
  });
});

Deno.test("key order, formatting, number spelling and fields outside the payload never show", () => {
  const before = base();
  const text = JSON.stringify(reverseKeys(before), null, "\t")
    .replace('"priority": 10', '"priority": 1e1')
    .replace('"priority": 1,', '"priority": 1.0,');
  const after = JSON.parse(text) as RuntimeBundleV1 & Obj;
  Object.assign(after, {
    generatedAt: "2026-01-01T00:00:00Z",
    bundleVersion: 9,
    etag: '"x"',
    signature: { algorithm: "HMAC_SHA256", keyId: "k", value: "00" },
    $schema: "https://example.com/bundle.schema.json",
  });
  (after.policies[0] as unknown as Obj).friendlyName = "Billing";
  assert.equal(diffBundles(before, after).changed, false);
});

Deno.test(`property (seed ${SEED}): a bundle and its reordered, reformatted copy have no difference`, () => {
  fc.assert(
    fc.property(generatedBundle, (b) => {
      const copy = JSON.parse(JSON.stringify(reverseKeys(b), null, 3));
      assert.equal(diffBundles(b, copy).changed, false);
      assert.equal(diffBundles(copy, b).changed, false);
    }),
    { seed: SEED, numRuns: 200 },
  );
});

Deno.test("policies added and removed, whole, as the engine reads them", () => {
  const before = base();
  const after = base();
  const [billing, search] = after.policies as unknown as Obj[];
  after.policies = [billing, { ...search!, policyKey: "search.v2", friendlyName: "x" }] as never;
  const diff = diffBundles(before, after);
  assert.deepEqual(diff.policies.added, [{
    policyKey: "search.v2",
    index: 1,
    policy: { policyKey: "search.v2", activeVersion: 1, rules: [rule("open", { target: U })] },
  }]);
  assert.deepEqual(diff.policies.removed.map((p) => [p.policyKey, p.index]), [["search", 1]]);
  assert.deepEqual(diff.policies.changed, []);
  // The target's ranking names the new policy.
  assert.deepEqual(diff.targets.map((t) => t.target), [U]);
});

Deno.test("a policy's activeVersion, defaults and rules, field by field", () => {
  const before = base();
  const after = base();
  const billing = after.policies[0]! as unknown as Obj;
  billing.activeVersion = 4;
  delete billing.defaults;
  const rules = billing.rules as Obj[];
  rules[0] = { ...rules[0]!, priority: 7, description: "now documented", owner: "team-a" };
  rules[1] = { ...rules[1]!, when: { op: "in", path: "plan", values: ["free", "trial"] } };
  rules.push(rule("trial", { status: "disabled" }));
  const diff = diffBundles(before, after);
  assert.deepEqual(diff.policies.changed, [{
    policyKey: "billing",
    fields: [
      { field: "activeVersion", old: 3, new: 4 },
      { field: "defaults", old: { effect: "deny" }, new: null },
    ],
    rules: {
      added: [{ ruleId: "trial", index: 2, rule: rule("trial", { status: "disabled" }) }],
      removed: [],
      changed: [
        {
          ruleId: "paid",
          fields: [
            { field: "priority", old: 1, new: 7 },
            { field: "description", old: null, new: "now documented" },
            { field: "owner", old: null, new: "team-a" },
          ],
        },
        {
          ruleId: "free",
          fields: [{
            field: "when",
            old: { op: "eq", path: "plan", value: "free" },
            new: { op: "in", path: "plan", values: ["free", "trial"] },
          }],
        },
      ],
    },
  }]);
});

Deno.test("targets whose ranking changed: reordered, retyped, dropped, new; sorted", () => {
  const before = base();
  const after = base();
  const [billing, search] = after.policies as unknown as Obj[];
  const rules = billing!.rules as Obj[];
  // free becomes custom (the weakest type); search/open is disabled; a target appears.
  rules[1] = { ...rules[1]!, effect: { type: "custom", value: "x" } };
  (search!.rules as Obj[])[0]!.status = "disabled";
  (search!.rules as Obj[]).push(rule("new", { target: { ...U, action: "delete" } }));
  const diff = diffBundles(before, after);
  assert.deepEqual(diff.targets, [
    {
      target: T,
      old: [
        { policyKey: "billing", ruleId: "free", branch: "effect", decision: "deny" },
        { policyKey: "billing", ruleId: "__default__", branch: "defaults", decision: "deny" },
        { policyKey: "billing", ruleId: "paid", branch: "effect", decision: "allow" },
      ],
      new: [
        { policyKey: "billing", ruleId: "__default__", branch: "defaults", decision: "deny" },
        { policyKey: "billing", ruleId: "paid", branch: "effect", decision: "allow" },
        { policyKey: "billing", ruleId: "free", branch: "effect", decision: "custom" },
      ],
    },
    {
      target: { ...U, action: "delete" },
      old: [],
      new: [{ policyKey: "search", ruleId: "new", branch: "effect", decision: "allow" }],
    },
    {
      target: U,
      old: [{ policyKey: "search", ruleId: "open", branch: "effect", decision: "allow" }],
      new: [],
    },
  ]);
});

Deno.test("rules reordered with equal priority: no rule changed, but the ranking did", () => {
  const before = bundleOf([{
    policyKey: "p",
    activeVersion: 1,
    rules: [
      rule("a"),
      rule("b", { when: { op: "exists", path: "x" }, elseEffect: { type: "deny" } }),
    ],
  }]);
  const after = structuredClone(before);
  after.policies[0]!.rules.reverse();
  const diff = diffBundles(before, after);
  assert.deepEqual(diff.policies.changed, []);
  assert.deepEqual(diff.targets[0]!.old.map((e) => `${e.ruleId}:${e.branch}`), [
    "b:elseEffect",
    "a:effect",
    "b:effect",
  ]);
  assert.deepEqual(diff.targets[0]!.new.map((e) => `${e.ruleId}:${e.branch}`), [
    "b:elseEffect",
    "b:effect",
    "a:effect",
  ]);
  assert.equal(diff.changed, true);
});

Deno.test("scope: env, orgId and projectId, unless a side is a draft", () => {
  const before = bundleOf([], { orgId: "acme" });
  const after = bundleOf([], { env: "staging", projectId: "shop" });
  assert.deepEqual(diffBundles(before, after).scope, [
    { field: "env", old: "prod", new: "staging" },
    { field: "orgId", old: "acme", new: null },
    { field: "projectId", old: null, new: "shop" },
  ]);
  const diff = diffBundles(before, after, { compareScope: false });
  assert.deepEqual([diff.scope, diff.changed], [[], false]);
});
