import assert from "node:assert/strict";
import {
  compileBundle,
  createEvaluator,
  evaluate,
  type EvaluateOptions,
  type EvaluationRequest,
  isPolicyError,
  PolicyError,
} from "../../mod.ts";
import { traceEvaluation } from "../../src/engine/mod.ts";

interface Fixture {
  bundle: unknown;
  cases: { name: string; request: EvaluationRequest; want: unknown; options?: EvaluateOptions }[];
}

const dataDir = new URL("../testdata/engine/", import.meta.url);
const readFixture = <T>(name: string): T =>
  JSON.parse(Deno.readTextFileSync(new URL(name, dataDir)));

for (const file of ["precedence.json", "defaults_matching.json"]) {
  const fixture = readFixture<Fixture>(file);
  const compiled = compileBundle(fixture.bundle);
  for (const c of fixture.cases) {
    Deno.test(`evaluate() ${file}: ${c.name}`, () => {
      assert.deepEqual(evaluate(compiled, c.request, c.options), c.want);
      // The trace takes a separate path; it must agree on every case.
      assert.deepEqual(traceEvaluation(compiled, c.request, c.options).decision, c.want);
    });
  }
}

interface ConditionFixture {
  conditions: {
    name: string;
    when: unknown;
    cases: { context?: Record<string, unknown>; context_json?: string; want: boolean }[];
  }[];
}

const target = { service: "svc", resource: "cond", action: "test" };
const wrap = (when: unknown) => ({
  schemaVersion: 1,
  env: "test",
  policies: [{
    policyKey: "p",
    activeVersion: 1,
    rules: [{
      id: "r",
      status: "active",
      priority: 0,
      target,
      when,
      effect: { type: "allow" },
      elseEffect: { type: "deny" },
    }],
  }],
});

for (const condition of readFixture<ConditionFixture>("conditions.json").conditions) {
  Deno.test(`evaluate() condition: ${condition.name}`, () => {
    const evaluator = createEvaluator(compileBundle(wrap(condition.when)));
    for (const c of condition.cases) {
      const context = c.context_json === undefined ? c.context : JSON.parse(c.context_json);
      const decision = evaluator({ target, context });
      assert.equal(
        decision.decision,
        c.want ? "allow" : "deny",
        `context ${c.context_json ?? JSON.stringify(context)} should make it ${c.want}`,
      );
    }
  });
}

Deno.test("evaluate() keeps every condition apart when one bundle holds them all", () => {
  // Identical conditions share one compiled test; different ones must never be confused.
  const conditions = readFixture<ConditionFixture>("conditions.json").conditions;
  const targetOf = (i: number) => ({ service: "svc", resource: "cond", action: `test-${i}` });
  const bundle = {
    schemaVersion: 1,
    env: "test",
    policies: conditions.map((condition, i) => ({
      ...wrap(condition.when).policies[0]!,
      policyKey: `p${i}`,
      rules: [{ ...wrap(condition.when).policies[0]!.rules[0]!, target: targetOf(i) }],
    })),
  };
  const evaluator = createEvaluator(compileBundle(bundle));
  conditions.forEach((condition, i) => {
    for (const c of condition.cases) {
      const context = c.context_json === undefined ? c.context : JSON.parse(c.context_json);
      assert.equal(
        evaluator({ target: targetOf(i), context }).decision,
        c.want ? "allow" : "deny",
        `${condition.name}: ${c.context_json ?? JSON.stringify(context)}`,
      );
    }
  });
});

Deno.test("evaluate() never resolves context paths through Object.prototype", () => {
  const evaluator = createEvaluator(compileBundle(wrap({ op: "exists", path: "polluted" })));
  const proto = Object.prototype as Record<string, unknown>;
  proto.polluted = true;
  try {
    assert.equal(evaluator({ target, context: {} }).decision, "deny");
  } finally {
    delete proto.polluted;
  }
  // A class instance or an array is not a plain object: nothing inside resolves.
  const nested = createEvaluator(compileBundle(wrap({ op: "exists", path: "a.size" })));
  assert.equal(nested({ target, context: { a: new Map() } }).decision, "deny");
  assert.equal(nested({ target, context: { a: { size: 1 } } }).decision, "allow");
});

Deno.test("evaluate() orders only finite numbers: Infinity and NaN in a context compare false", () => {
  // JSON cannot carry these, so they are not in conditions.json; JavaScript callers can.
  for (const op of ["gt", "gte", "lt", "lte"]) {
    for (const path of ["n", "a.n"]) {
      const evaluator = createEvaluator(compileBundle(wrap({ op, path, value: 5 })));
      for (const n of [Infinity, -Infinity, NaN]) {
        const context = path === "n" ? { n } : { a: { n } };
        assert.equal(evaluator({ target, context }).decision, "deny", `${n} ${op} 5 (${path})`);
      }
    }
  }
});

Deno.test("evaluate() does not pollute prototypes with a JSON __proto__ context", () => {
  const evaluator = createEvaluator(compileBundle(wrap({ op: "exists", path: "x" })));
  const context = JSON.parse('{"__proto__": {"x": 1}, "constructor": {"prototype": {"y": 1}}}');
  assert.equal(evaluator({ target, context }).decision, "deny");
  assert.equal(({} as Record<string, unknown>).x, undefined);
  assert.equal(({} as Record<string, unknown>).y, undefined);
});

Deno.test("evaluate() is deterministic and returns fresh decision objects", () => {
  const fixture = readFixture<Fixture>("precedence.json");
  const first = compileBundle(fixture.bundle);
  const second = compileBundle(structuredClone(fixture.bundle));
  for (const c of fixture.cases) {
    const a = evaluate(first, c.request, c.options);
    const b = evaluate(second, c.request, c.options);
    assert.deepEqual(a, b);
    assert.notEqual(a, b);
    // Mutating a decision must not leak into later decisions.
    if (a.throttle) a.throttle.limit = -1;
    assert.deepEqual(evaluate(first, c.request, c.options), c.want);
  }
});

Deno.test("evaluate() returns decisions with no undefined fields", () => {
  const fixture = readFixture<Fixture>("defaults_matching.json");
  const compiled = compileBundle(fixture.bundle);
  for (const c of fixture.cases) {
    const decision = evaluate(compiled, c.request, c.options) as unknown as Record<string, unknown>;
    for (const [key, value] of Object.entries(decision)) {
      assert.notEqual(value, undefined, `${c.name}: ${key} is undefined`);
    }
    assert.deepEqual(JSON.parse(JSON.stringify(decision)), decision);
  }
});

Deno.test("evaluate() rejects malformed requests with INVALID_REQUEST", () => {
  const evaluator = createEvaluator(compileBundle(wrap({ op: "exists", path: "x" })));
  const bad: unknown[] = [
    undefined,
    null,
    {},
    { target: null },
    { target: { service: "svc", resource: "cond" } },
    { target: { service: "svc", resource: "cond", action: 1 } },
    { target, context: [] },
    { target, context: "x" },
    { target, context: null },
    { target, context: new Map() },
  ];
  for (const request of bad) {
    assert.throws(
      () => evaluator(request as EvaluationRequest),
      (e) => isPolicyError(e, "INVALID_REQUEST"),
      JSON.stringify(request),
    );
  }
});

Deno.test("evaluate() with contextPolicy throws CONTEXT_KEY_NOT_ALLOWED naming the key", () => {
  const evaluator = createEvaluator(compileBundle(wrap({ op: "exists", path: "plan" })), {
    contextPolicy: { allowedKeys: ["plan", "seats"] },
  });
  assert.equal(evaluator({ target, context: { plan: "x", seats: 1 } }).decision, "allow");
  assert.equal(evaluator({ target }).decision, "deny");
  assert.throws(
    () => evaluator({ target, context: { plan: "x", region: "eu" } }),
    (e) =>
      e instanceof PolicyError && e.code === "CONTEXT_KEY_NOT_ALLOWED" &&
      /"region"/.test(e.message),
  );
  // Keys are checked at the top level only; nested keys are the value of an allowed key.
  assert.equal(evaluator({ target, context: { plan: { anything: 1 } } }).decision, "allow");
});

Deno.test("compileBundle() enforces the condition depth limit (64) without overflowing", () => {
  const nest = (depth: number): unknown => {
    let node: unknown = { op: "exists", path: "x" };
    for (let i = 1; i < depth; i++) node = { op: "not", condition: node };
    return node;
  };
  const ok = createEvaluator(compileBundle(wrap(nest(64))));
  // 63 nots around exists: odd count, so x present gives false.
  assert.equal(ok({ target, context: { x: 1 } }).decision, "deny");
  assert.equal(ok({ target, context: {} }).decision, "allow");
  for (const depth of [65, 100_000]) {
    assert.throws(
      () => compileBundle(wrap(nest(depth))),
      (e) =>
        isPolicyError(e, "BUNDLE_INVALID") && e.issues.some((i) => i.code === "CONDITION_TOO_DEEP"),
    );
  }
});

Deno.test("traceEvaluation() lists policies, rules, outcomes and candidates", () => {
  const compiled = compileBundle(readFixture<Fixture>("precedence.json").bundle);
  const trace = traceEvaluation(compiled, {
    target: { service: "svc", resource: "tie", action: "go" },
    context: { neg: true, minusOther: true },
  });
  assert.deepEqual(trace.policiesSeen, ["p-default-allow", "p-other-allow"]);
  assert.equal(trace.rulesSeen, 4);
  assert.equal(trace.matchedCount, 3);
  assert.deepEqual(trace.rules.map((r) => [r.ruleId, r.outcome]), [
    ["allow-neg-prio", "fired (when_true)"],
    ["allow-minus-one", "skipped (when_false)"],
    ["other-neg", "fired"],
    ["other-minus-one", "fired (when_true)"],
  ]);
  // The default of p-default-allow is not a candidate: a rule of that policy fired.
  assert.deepEqual(trace.candidates.map((c) => c.ruleId), [
    "other-minus-one",
    "allow-neg-prio",
    "other-neg",
  ]);
  assert.deepEqual(trace.selected, {
    policyKey: "p-other-allow",
    ruleId: "other-minus-one",
    decision: "allow",
    priority: -1,
    reason: "rule",
  });
});

Deno.test("traceEvaluation() shows defaults as __default__ with priority -1", () => {
  const compiled = compileBundle(readFixture<Fixture>("precedence.json").bundle);
  const trace = traceEvaluation(compiled, {
    target: { service: "svc", resource: "defaults", action: "go" },
  });
  assert.deepEqual(trace.candidates, [{
    policyKey: "p-default-deny",
    ruleId: "__default__",
    decision: "deny",
    priority: -1,
    reason: "default",
  }]);
  const member = {
    kind: "leaf",
    op: "eq",
    path: "member",
    operand: true,
    operandCount: null,
    problem: null,
    value: null,
    absent: true,
    outcome: false,
  };
  assert.deepEqual(trace.rules, [{
    policyKey: "p-default-deny",
    ruleId: "allow-members",
    priority: 1,
    outcome: "skipped (when_false)",
    condition: member,
    falseBecause: member,
  }]);
  const none = traceEvaluation(compiled, { target: { service: "x", resource: "y", action: "z" } });
  assert.equal(none.selected, null);
  assert.deepEqual(none.decision, { decision: "deny", reason: "default" });
  assert.equal(none.rulesSeen, 0);
});
