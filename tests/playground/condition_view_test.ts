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
