// Identical conditions share one compiled test, by conditionKey. Two
// conditions with the same key must behave the same on every context.
import assert from "node:assert/strict";
import { compileCondition, conditionKey } from "../../src/engine/_compile_condition.ts";

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

Deno.test("conditionKey() is shared only by conditions that behave the same", () => {
  const byKey = new Map<string, { node: unknown; results: boolean[] }>();
  let shared = 0;
  for (const node of conditions()) {
    const key = conditionKey(node, 1);
    assert.notEqual(key, null);
    const test = compileCondition(node);
    const results = CONTEXTS.map((context) => test(context));
    const seen = byKey.get(key!);
    if (seen === undefined) {
      byKey.set(key!, { node, results });
      continue;
    }
    shared++;
    assert.deepEqual(
      results,
      seen.results,
      `${JSON.stringify(node)} and ${JSON.stringify(seen.node)} share the key ${key}`,
    );
  }
  assert.ok(shared > 0, "some conditions are the same (ne and neq, -0 and 0, malformed ones)");
});

Deno.test("conditionKey() tells apart what compiles differently", () => {
  const key = (node: unknown) => conditionKey(node, 1);
  const distinct: unknown[][] = [
    [{ op: "eq", path: "a", value: 5 }, { op: "eq", path: "a", value: "5" }],
    [{ op: "eq", path: "a", value: true }, { op: "eq", path: "a", value: "t" }],
    [{ op: "exists", path: "a" }, { op: "eq", path: "a" }],
    [{ op: "eq", path: "a b", value: "c" }, { op: "eq", path: "a", value: "b c" }],
    [{ op: "not", condition: { op: "x" } }, { op: "not", condition: null }],
  ];
  for (const [a, b] of distinct) assert.notEqual(key(a), key(b), JSON.stringify([a, b]));
  assert.equal(key({ op: "ne", path: "a", value: 1 }), key({ op: "neq", path: "a", value: 1 }));
});

Deno.test("conditionKey() returns null past the nesting limit instead of recursing on", () => {
  let node: unknown = { op: "exists", path: "x" };
  for (let i = 1; i < 65; i++) node = { op: "not", condition: node };
  assert.equal(conditionKey(node, 1), null);
});
