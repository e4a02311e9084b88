// The shared engine fixtures, evaluated by the npm build under Node. Their
// `want` fields are the contract the Deno suite (tests/engine/evaluate_test.ts)
// checks too, so equal results here mean Node decides exactly as Deno does.
import assert from "node:assert/strict";
import { test } from "node:test";
import { importPackage, testdata } from "./_package.mjs";

const engine = await importPackage("./engine");
const { compileBundle, createEvaluator, evaluate, traceEvaluation } = engine;

for (const file of ["precedence.json", "defaults_matching.json"]) {
  const fixture = testdata(`engine/${file}`);
  const compiled = compileBundle(fixture.bundle);
  for (const c of fixture.cases) {
    test(`evaluate() ${file}: ${c.name}`, () => {
      assert.deepEqual(evaluate(compiled, c.request, c.options), c.want);
      assert.deepEqual(traceEvaluation(compiled, c.request, c.options).decision, c.want);
    });
  }
}

// As in the Deno suite: each `when` decides between allow (true) and deny (false).
const target = { service: "svc", resource: "cond", action: "test" };
const wrap = (when) => ({
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

for (const condition of testdata("engine/conditions.json").conditions) {
  test(`evaluate() condition: ${condition.name}`, () => {
    const evaluator = createEvaluator(compileBundle(wrap(condition.when)));
    for (const c of condition.cases) {
      const context = c.context_json === undefined ? c.context : JSON.parse(c.context_json);
      assert.equal(
        evaluator({ target, context }).decision,
        c.want ? "allow" : "deny",
        `context ${c.context_json ?? JSON.stringify(context)} should make it ${c.want}`,
      );
    }
  });
}

test("the root export and ./engine are the same module instance", async () => {
  const rootModule = await importPackage(".");
  // The root re-exports what an application needs of the engine (README "Changelog").
  for (
    const name of ["compileBundle", "createEvaluator", "evaluate", "validateBundle", "parseJson"]
  ) {
    assert.ok(name in rootModule, name);
  }
  for (const name of Object.keys(engine).filter((name) => name in rootModule)) {
    assert.equal(rootModule[name], engine[name], name);
  }
});

for (const c of testdata("engine/validation.json").cases) {
  test(`validateBundle() ${c.name}`, () => {
    const result = engine.validateBundle(c.document);
    const pick = (issues) => issues.map(({ code, path }) => ({ code, path }));
    assert.deepEqual(pick(result.errors), c.errors);
    assert.deepEqual(pick(result.warnings), c.warnings);
    assert.equal(result.valid, c.errors.length === 0);
  });
}

test("compileBundle() throws a PolicyError with code BUNDLE_INVALID", () => {
  assert.throws(() => compileBundle({ schemaVersion: 2 }), (error) => {
    assert.ok(error instanceof engine.PolicyError);
    assert.ok(error instanceof Error);
    assert.equal(error.code, "BUNDLE_INVALID");
    assert.ok(engine.isPolicyError(error, "BUNDLE_INVALID"));
    return true;
  });
});
