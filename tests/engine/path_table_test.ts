// Context paths are read once per evaluation (src/engine/_path_table.ts):
// what an evaluation remembers must never leak into another one.
import assert from "node:assert/strict";
import { compileBundle, createEvaluator } from "../../mod.ts";
import { traceEvaluation } from "../../src/engine/mod.ts";
import { PathTable, readPath } from "../../src/engine/_path_table.ts";
import { compiledCodeOf } from "../../src/engine/_compiled_code.ts";
import { bundleOf, rule, TARGET } from "../hostile/_inputs.ts";

/** One policy: deny when every condition holds (in `and`), else allow. */
function whenAll(...conditions: unknown[]): unknown {
  const when = { op: "and", conditions };
  return bundleOf([rule("r", { when, effect: { type: "deny" }, elseEffect: { type: "allow" } })]);
}

Deno.test("evaluate() reads each nested path and its prefixes once per evaluation, however many conditions read them", () => {
  const compiled = compileBundle(whenAll(
    { op: "eq", path: "user.org.plan", value: "free" },
    { op: "exists", path: "ctx.user.org.plan" },
    { op: "gt", path: "user.org.seats", value: 5 },
    { op: "in", path: "user.org.plan", values: ["free", "pro"] },
    { op: "neq", path: "user.region", value: "eu" },
  ));
  const reads: string[] = [];
  const org = {
    get plan() {
      reads.push("plan");
      return "free";
    },
    seats: 10,
  };
  const user = {
    get org() {
      reads.push("org");
      return org;
    },
    region: "us",
  };
  const evaluate = createEvaluator(compiled);
  assert.equal(evaluate({ target: TARGET, context: { user } }).decision, "deny");
  assert.deepEqual(reads, ["org", "plan"]);
  assert.equal(
    traceEvaluation(compiled, { target: TARGET, context: { user } }).decision.decision,
    "deny",
  );
  assert.deepEqual(reads, ["org", "plan", "org", "plan"]);
});

Deno.test("evaluate() reads a context object afresh in each evaluation, after it changed", () => {
  const evaluate = createEvaluator(compileBundle(whenAll(
    { op: "eq", path: "user.org.plan", value: "free" },
  )));
  const context = { user: { org: { plan: "free" } } };
  assert.equal(evaluate({ target: TARGET, context }).decision, "deny");
  context.user.org.plan = "pro";
  assert.equal(evaluate({ target: TARGET, context }).decision, "allow");
  context.user.org = { plan: "free" };
  assert.equal(evaluate({ target: TARGET, context }).decision, "deny");
  (context as Record<string, unknown>).user = [];
  assert.equal(evaluate({ target: TARGET, context }).decision, "allow");
});

Deno.test("an evaluation run by a getter of the context neither sees nor spoils the values of the one that read it", () => {
  const compiled = compileBundle(whenAll(
    { op: "eq", path: "user.org.plan", value: "free" },
    { op: "eq", path: "user.tier", value: "gold" },
    { op: "eq", path: "user.org.plan", value: "free" },
  ));
  const evaluate = createEvaluator(compiled);
  const inner: string[] = [];
  const user = {
    org: { plan: "free" },
    get tier() {
      // A nested evaluation of the same bundle, on another context, in the middle of this one.
      inner.push(
        evaluate({ target: TARGET, context: { user: { org: { plan: "pro" } } } }).decision,
      );
      inner.push(
        traceEvaluation(compiled, { target: TARGET, context: { user: { tier: "gold" } } }).decision
          .decision,
      );
      return "gold";
    },
  };
  assert.equal(evaluate({ target: TARGET, context: { user } }).decision, "deny");
  assert.deepEqual(inner, ["allow", "allow"]);
});

Deno.test("an evaluation that throws inside another one leaves the outer one reading its own values", () => {
  const evaluate = createEvaluator(compileBundle(whenAll(
    { op: "eq", path: "user.org.plan", value: "free" },
    { op: "eq", path: "user.tier", value: "gold" },
    { op: "eq", path: "user.org.plan", value: "free" },
  )));
  const thrower = {
    get org() {
      throw new Error("no org");
    },
  };
  const user = {
    org: { plan: "free" },
    get tier() {
      assert.throws(() => evaluate({ target: TARGET, context: { user: thrower } }), /no org/);
      assert.equal(
        evaluate({ target: TARGET, context: { user: { org: { plan: "pro" } } } }).decision,
        "allow",
      );
      return "gold";
    },
  };
  assert.equal(evaluate({ target: TARGET, context: { user } }).decision, "deny");
});

Deno.test("once a request is decided, nothing of its context stays referenced", () => {
  const compiled = compileBundle(whenAll(
    { op: "eq", path: "user.org.plan", value: "free" },
    { op: "exists", path: "user.flags.beta" },
  ));
  const { paths } = compiledCodeOf(compiled);
  const evaluate = createEvaluator(compiled);
  const context = { user: { org: { plan: "free" }, flags: { beta: true } } };
  assert.equal(evaluate({ target: TARGET, context }).decision, "deny");
  assert.equal(traceEvaluation(compiled, { target: TARGET, context }).decision.decision, "deny");
  assert.ok(paths.values.length >= 5);
  assert.deepEqual(paths.values.filter((v) => v !== undefined), []);
  assert.equal(paths.top, 0);
  // Also after an evaluation that threw.
  const throwing = {
    user: {
      get org() {
        throw new Error("no org");
      },
      flags: { beta: true },
    },
  };
  assert.throws(() => evaluate({ target: TARGET, context: throwing }), /no org/);
  assert.deepEqual(paths.values.filter((v) => v !== undefined), []);
  assert.equal(paths.gen, -1);
});

Deno.test("evaluation numbers wrap without reviving values read before", () => {
  const table = new PathTable(3);
  const x = table.slotOf("x");
  const y = table.slotOf("ctx.user.y");
  const read = (slot: number, context: Record<string, unknown>) => {
    const outer = table.open();
    try {
      return readPath(table, slot, context);
    } finally {
      table.close(outer);
    }
  };
  for (let round = 0; round < 3; round++) {
    assert.equal(read(x, { x: `old-${round}` }), `old-${round}`);
    // Evaluations that read only y, until the numbers come back to the one x was read in.
    for (let i = 0; i < 3; i++) assert.equal(read(y, { user: { y: i } }), i);
    assert.equal(read(x, { x: `new-${round}` }), `new-${round}`);
  }
  // Outside any evaluation, nothing is remembered.
  assert.equal(readPath(table, x, { x: "a" }), "a");
  assert.equal(readPath(table, x, { x: "b" }), "b");
});

Deno.test("a path of 100,000 segments compiles and is read with recursion bounded at 16 levels", () => {
  const depth = 100_000;
  const path = Array(depth).fill("a").join(".");
  const evaluate = createEvaluator(compileBundle(whenAll({ op: "eq", path, value: "deep" })));
  let context: Record<string, unknown> = { a: "deep" };
  for (let i = 1; i < depth; i++) context = { a: context };
  assert.equal(evaluate({ target: TARGET, context }).decision, "deny");
  assert.equal(evaluate({ target: TARGET, context: { a: { a: "deep" } } }).decision, "allow");
});
