// The decision hook costs nothing when unset: the client evaluates with the
// engine's evaluator itself, not a wrapper around it.
import assert from "node:assert/strict";
import { compileBundle, createEvaluator, loadBundle } from "../../mod.ts";
import { MASKED, withDecisionLog } from "../../src/clients/_decision_hook.ts";
import { numberedBundle, TARGET } from "./_helpers.ts";

const loaded = await loadBundle(JSON.stringify(numberedBundle(1)), { allowUnsigned: true });
const env = { now: () => 0, random: () => 0 };

Deno.test("without onDecision the evaluator is the engine's, unchanged", () => {
  const evaluate = createEvaluator(compileBundle(numberedBundle(1)));
  assert.equal(withDecisionLog(evaluate, loaded.status, {}, env), evaluate);
  assert.equal(
    withDecisionLog(evaluate, loaded.status, { parseCustomEffect: true }, env),
    evaluate,
  );
  assert.notEqual(
    withDecisionLog(evaluate, loaded.status, { onDecision: () => {} }, env),
    evaluate,
  );
});

Deno.test("masking reads own properties only, keeps __proto__ an own key, and copies only what it changes", () => {
  const evaluate = createEvaluator(loaded.compiled);
  const records: unknown[] = [];
  const logged = withDecisionLog(evaluate, loaded.status, {
    onDecision: (record) => records.push(record.request.context),
    decisionLog: { maskContextKeys: ["__proto__", "a.b", "toString", "deep.x.y"] },
  }, env);
  const inner = { b: "secret", c: 1 };
  const untouched = { z: 1 };
  const context = JSON.parse('{"__proto__": {"polluted": true}, "a": {}, "deep": "text"}');
  context.a = inner;
  context.other = untouched;
  logged({ target: TARGET, context });
  const masked = records[0] as Record<string, unknown>;
  assert.ok(Object.hasOwn(masked, "__proto__"));
  assert.equal(Object.getOwnPropertyDescriptor(masked, "__proto__")?.value, MASKED);
  assert.equal(Object.getPrototypeOf(masked), Object.prototype);
  assert.deepEqual(masked.a, { b: MASKED, c: 1 });
  assert.equal(masked.other, untouched, "objects off the masked paths are not copied");
  assert.equal(masked.deep, "text");
  assert.equal(Object.hasOwn(masked, "toString"), false);
  assert.equal(inner.b, "secret");
  // Nothing to mask in this context: the caller's object is passed as it is.
  const plain = { plan: "pro" };
  logged({ target: TARGET, context: plain });
  assert.equal(records[1], plain);
});

Deno.test("a path under a key already masked masks nothing else (a longer path never lands at the root)", () => {
  const evaluate = createEvaluator(loaded.compiled);
  const records: unknown[] = [];
  const logged = withDecisionLog(evaluate, loaded.status, {
    onDecision: (record) => records.push(record.request.context),
    decisionLog: { maskContextKeys: ["a", "a.b.c", "ctx.x", "x.y"] },
  }, env);
  logged({ target: TARGET, context: { a: 1, b: { c: "kept", d: 2 }, x: 3, y: "kept" } });
  assert.deepEqual(records[0], { a: MASKED, b: { c: "kept", d: 2 }, x: MASKED, y: "kept" });
});
