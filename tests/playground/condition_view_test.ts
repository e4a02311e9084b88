import assert from "node:assert/strict";
import { conditionNode, tracedConditionNode } from "../../playground/condition_view.ts";

Deno.test("a condition as written: operators and leaves in words, legacy spellings read", () => {
  assert.deepEqual(
    conditionNode({
      op: "and",
      conditions: [
        { op: "in", path: "ctx.plan", values: ["pro", "enterprise"] },
        { op: "not", arg: { op: "exists", path: "flags.beta" } },
        { op: "or", args: [] },
        { op: "ne", path: "seats", value: 5 },
      ],
    }),
    {
      text: "and",
      children: [
        { text: 'ctx.plan in ["pro","enterprise"]', children: [] },
        { text: "not", children: [{ text: "flags.beta exists", children: [] }] },
        { text: "or (no operands: false)", children: [] },
        { text: "seats != 5", children: [] },
      ],
    },
  );
});

Deno.test("a traced condition: each node's outcome, each leaf's value read or its absence", () => {
  // The shape of traceEvaluation's rules[].condition (docs/bundle-format.md, "Traces").
  const traced = {
    kind: "and",
    outcome: false,
    conditions: [
      {
        kind: "leaf",
        op: "eq",
        path: "plan",
        operand: "free",
        operandCount: null,
        problem: null,
        value: "free",
        absent: false,
        outcome: true,
      },
      {
        kind: "leaf",
        op: "gt",
        path: "seats",
        operand: 5,
        operandCount: null,
        problem: null,
        value: null,
        absent: true,
        outcome: false,
      },
      {
        kind: "not",
        outcome: true,
        condition: {
          kind: "leaf",
          op: "in",
          path: "ctx.region",
          operand: ["eu"],
          operandCount: 1,
          problem: null,
          value: { type: "string", preview: '"uuuuu…', length: 200 },
          absent: false,
          outcome: false,
        },
      },
      { kind: "invalid", op: null, problem: "a node without op is always false", outcome: false },
    ],
  };
  assert.deepEqual(tracedConditionNode(traced), {
    text: "and",
    outcome: false,
    children: [
      {
        text: 'plan == "free"',
        children: [],
        outcome: true,
        read: { path: "plan", found: true, value: "free" },
      },
      { text: "seats > 5", children: [], outcome: false, read: { path: "seats", found: false } },
      {
        text: "not",
        outcome: true,
        children: [{
          text: 'ctx.region in ["eu"]',
          children: [],
          outcome: false,
          read: { path: "ctx.region", found: true, value: '"uuuuu…' },
        }],
      },
      { text: "(a node without op is always false)", children: [], outcome: false },
    ],
  });
  assert.deepEqual(tracedConditionNode("x"), { text: "x", children: [] });
});
