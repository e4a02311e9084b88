import assert from "node:assert/strict";
import { compileBundle, traceEvaluation } from "../../src/engine/mod.ts";
import { tracedConditionNode, writtenConditionNode } from "../../playground/condition_view.ts";

const target = { service: "billing", resource: "invoice", action: "create" };
const when = {
  op: "and" as const,
  conditions: [
    { op: "eq" as const, path: "plan", value: "free" },
    { op: "not" as const, condition: { op: "exists" as const, path: "ctx.flags.beta" } },
    { op: "gt" as const, path: "seats", value: 5 },
  ],
};
const compiled = compileBundle({
  schemaVersion: 1,
  env: "test",
  policies: [{
    policyKey: "billing",
    activeVersion: 1,
    rules: [{ id: "many", status: "active", priority: 1, target, when, effect: { type: "deny" } }],
  }],
});

Deno.test("a traced condition: groups with their outcome, leaves in the engine's words", () => {
  const [rule] = traceEvaluation(compiled, { target, context: { plan: "free", seats: 3 } }).rules;
  assert.deepEqual(tracedConditionNode(rule!.condition!), {
    text: "and",
    outcome: false,
    children: [
      { text: 'plan == "free" ✓', children: [] },
      {
        text: "not",
        outcome: true,
        children: [{ text: "ctx.flags.beta (absent) exists ✗", children: [] }],
      },
      { text: "seats (3) > 5 ✗", children: [] },
    ],
  });
});

Deno.test("a condition nothing tested reads as written", () => {
  assert.deepEqual(writtenConditionNode(when), {
    text: 'plan == "free" and not (ctx.flags.beta exists) and seats > 5',
    children: [],
  });
});

Deno.test("the Why view explains the added operators with the value each saw, a rollout with its bucket", () => {
  const added = {
    op: "or" as const,
    conditions: [
      { op: "containsAny" as const, path: "roles", values: ["billing-admin", "owner"] },
      { op: "rollout" as const, path: "tenant", salt: "invoice-early-access", to: 10 },
      { op: "semver" as const, path: "app.version", cmp: "gte" as const, value: "2.4.0" },
    ],
  };
  const bundle = compileBundle({
    schemaVersion: 1,
    env: "test",
    policies: [{
      policyKey: "billing",
      activeVersion: 1,
      rules: [{
        id: "r",
        status: "active",
        priority: 1,
        target,
        when: added,
        effect: { type: "allow" },
      }],
    }],
  });
  const context = { roles: ["support"], tenant: "t-8", app: { version: "2.4.0-rc.1" } };
  const [rule] = traceEvaluation(bundle, { target, context }).rules;
  // t-8's bucket of invoice-early-access (docs/bundle-format.md "Rollout buckets", by the docs' Python).
  assert.deepEqual(tracedConditionNode(rule!.condition!).children.map((c) => c.text), [
    'roles (["support"]) containsAny ["billing-admin", "owner"] ✗',
    'tenant ("t-8", bucket 2.1274120546877384) rollout [0, 10) salt "invoice-early-access" ✓',
    'app.version ("2.4.0-rc.1") semver >= "2.4.0" ✗',
  ]);
});
