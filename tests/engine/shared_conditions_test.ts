// Identical conditions share one compiled test. Two conditions given the same
// test must behave the same on every context when compiled on their own.
import assert from "node:assert/strict";
import { compileCondition, type Test } from "../../src/engine/compile_condition.ts";
import { sharedConditionCompiler } from "../../src/engine/compile_condition.ts";

const VALUES: unknown[] = [
  "5",
  5,
  "1.5",
  1.5,
  true,
  "true",
  false,
  null,
  undefined,
  0,
  -0,
  "",
  {},
  [],
  NaN,
];
const PATHS: unknown[] = ["a", "ctx.a", "a.b", "b", 5, undefined];

function conditions(): unknown[] {
  const leaves: unknown[] = [];
  for (const path of PATHS) {
    for (const op of ["eq", "neq", "ne", "gt", "gte", "lt", "lte"]) {
      for (const value of VALUES) leaves.push({ op, path, value });
    }
    leaves.push({ op: "exists", path });
    leaves.push({ op: "in", path, values: ["5", null] });
    leaves.push({ op: "in", path, values: [5, true] });
    leaves.push({ op: "in", path, values: [{}, "5"] });
    leaves.push({ op: "in", path, values: "5" });
  }
  leaves.push({ op: "unknown" }, { path: "a" }, null, "eq", []);
  const some = leaves.filter((_, i) => i % 7 === 0);
  const nodes = [...leaves];
  for (const x of some) {
    nodes.push({ op: "not", condition: x }, { op: "not", arg: x }, { op: "not" });
    for (const y of some.slice(0, 6)) {
      nodes.push({ op: "and", conditions: [x, y] }, { op: "or", args: [x, y] });
      nodes.push({ op: "and", conditions: [x, y], args: [y] }, { op: "or", conditions: [y, x] });
    }
  }
  nodes.push({ op: "and", conditions: [] }, { op: "or" }, { op: "and", args: "x" });
  return nodes;
}

const CONTEXTS: Record<string, unknown>[] = [
  {},
  ...VALUES.map((a) => ({ a })),
  ...VALUES.map((b) => ({ a: { b }, b })),
  { ctx: { a: 5 } },
];

Deno.test("sharedConditionCompiler() shares a test only between conditions that behave the same", () => {
  const shared = sharedConditionCompiler().compile;
  const byTest = new Map<Test, { node: unknown; results: boolean[] }>();
  let sharings = 0;
  for (const node of conditions()) {
    const test = shared(node);
    const results = CONTEXTS.map((context) => compileCondition(node)(context));
    assert.deepEqual(CONTEXTS.map((context) => test(context)), results, JSON.stringify(node));
    const seen = byTest.get(test);
    if (seen === undefined) {
      byTest.set(test, { node, results });
      continue;
    }
    sharings++;
    assert.deepEqual(
      results,
      seen.results,
      `${JSON.stringify(node)} and ${JSON.stringify(seen.node)} share a test`,
    );
  }
  assert.ok(sharings > 0, "some conditions are the same (ne and neq, -0 and 0, malformed ones)");
  // Equal conditions written out twice (separate objects) share their test.
  const twice = () => ({
    op: "and",
    conditions: [{ op: "eq", path: "plan", value: "free" }, {
      op: "in",
      path: "region",
      values: ["eu", 5],
    }],
  });
  assert.equal(shared(twice()), shared(twice()));
});

Deno.test("sharedConditionCompiler() tells apart what compiles differently", () => {
  const shared = sharedConditionCompiler().compile;
  const distinct: unknown[][] = [
    [{ op: "eq", path: "a", value: 5 }, { op: "eq", path: "a", value: "5" }],
    [{ op: "eq", path: "a", value: true }, { op: "eq", path: "a", value: "t" }],
    [{ op: "exists", path: "a" }, { op: "eq", path: "a" }],
    [{ op: "eq", path: "a b", value: "c" }, { op: "eq", path: "a", value: "b c" }],
    [{ op: "in", path: "a", values: ["b", "c"] }, { op: "in", path: "a", values: ["b"] }],
    [{ op: "in", path: "a", values: ["b"] }, { op: "in", path: "a", values: ["b", "c"] }],
    [{ op: "and", conditions: [{ op: "exists", path: "a" }] }, {
      op: "and",
      conditions: [{ op: "exists", path: "a" }, { op: "exists", path: "b" }],
    }],
    [{ op: "not", condition: { op: "x" } }, { op: "not", condition: null }],
  ];
  for (const [a, b] of distinct) assert.notEqual(shared(a), shared(b), JSON.stringify([a, b]));
  assert.equal(
    shared({ op: "ne", path: "a", value: 1 }),
    shared({ op: "neq", path: "a", value: 1 }),
  );
});

Deno.test("sharedConditionCompiler() refuses nesting past the limit as compileCondition does", () => {
  let node: unknown = { op: "exists", path: "x" };
  for (let i = 1; i < 65; i++) node = { op: "not", condition: node };
  assert.throws(() => compileCondition(node), { name: "PolicyError", code: "BUNDLE_INVALID" });
  assert.throws(() => sharedConditionCompiler().compile(node), {
    name: "PolicyError",
    code: "BUNDLE_INVALID",
  });
});
