// The types of decisions and traces, as a user's strict program meets them:
// this file is type-checked by `deno test` under deno.json's strict options,
// so a narrowing that stops working fails the run before any test does; each
// `@ts-expect-error` fails it when the types become too loose. The Node tests
// (tests/node/package.test.mjs) compile the same narrowing against the
// packed npm tarball.
import assert from "node:assert/strict";
import {
  compileBundle,
  type Decision,
  type EffectType,
  evaluate,
  type EvaluationRequest,
  type KillSwitchDescriptor,
  type RuleTrace,
  type RuntimeBundleV1,
  traceEvaluation,
} from "../../src/engine/mod.ts";

const target = { service: "api", resource: "export", action: "run" };

/** One rule per effect, each chosen by `ctx.kind`, and a throttle default. */
const bundle: RuntimeBundleV1 = {
  schemaVersion: 1,
  env: "test",
  policies: [{
    policyKey: "api.export",
    activeVersion: 1,
    defaults: { effect: "throttle", throttle: { limit: 1, windowSeconds: 3600, key: "ip" } },
    rules: [
      {
        id: "stop",
        status: "active",
        priority: 1,
        target,
        when: { op: "eq", path: "ctx.kind", value: "stop" },
        effect: { type: "kill_switch", killSwitch: { service: "api", reason: "maintenance" } },
      },
      {
        id: "slow",
        status: "active",
        priority: 1,
        target,
        when: { op: "eq", path: "ctx.kind", value: "slow" },
        effect: { type: "throttle", throttle: { limit: 10, windowSeconds: 60, key: "tenant" } },
      },
      {
        id: "tag",
        status: "active",
        priority: 1,
        target,
        when: { op: "eq", path: "ctx.kind", value: "tag" },
        effect: { type: "custom", value: '{"tier":"gold"}' },
      },
      { id: "off", status: "disabled", priority: 1, target, effect: { type: "allow" } },
    ],
  }],
};
const compiled = compileBundle(bundle);
const request = (kind: string): EvaluationRequest => ({ target, context: { kind } });

/** What a service does with a decision: every field read without `?.` or `!`. */
function describe(d: Decision): string {
  const source = d.reason === "rule" ? `${d.policyKey}/${d.ruleId}` : d.policyKey ?? "global";
  switch (d.decision) {
    case "throttle":
      return `${source}: ${d.throttle.limit} per ${d.throttle.windowSeconds} s by ${d.throttle.key}`;
    case "kill_switch":
      return `${source}: ${d.killSwitch.service} off (${d.killSwitch.reason ?? "no reason"})`;
    case "custom":
      return `${source}: ${d.value.length} characters, parsed ${JSON.stringify(d.parsedValue)}`;
    case "allow":
    case "deny":
      return `${source}: ${d.decision}`;
  }
}

Deno.test("a decision narrows on decision and on reason, with no ?. and no !", () => {
  assert.equal(
    describe(evaluate(compiled, request("slow"))),
    "api.export/slow: 10 per 60 s by tenant",
  );
  assert.equal(
    describe(evaluate(compiled, request("stop"))),
    "api.export/stop: api off (maintenance)",
  );
  assert.equal(
    describe(evaluate(compiled, request("tag"), { parseCustomEffect: true })),
    'api.export/tag: 15 characters, parsed {"tier":"gold"}',
  );
  assert.equal(describe(evaluate(compiled, request("none"))), "api.export: 1 per 3600 s by ip");
  const global = evaluate(compiled, { target: { ...target, action: "other" } });
  assert.equal(describe(global), "global: deny");
});

Deno.test("what the types refuse: descriptors before narrowing, fields of other effects", () => {
  const d: Decision = evaluate(compiled, request("slow"));
  // @ts-expect-error the throttle is possibly undefined until `decision` is "throttle"
  assert.equal(d.throttle.limit, 10);
  // Reading an optional field without narrowing still works, as before.
  assert.equal(d.throttle?.limit, 10);
  if (d.decision === "throttle") {
    // @ts-expect-error a throttle decision has no kill switch
    const none: KillSwitchDescriptor = d.killSwitch;
    assert.equal(none, undefined);
  }
  if (d.reason === "default") {
    // @ts-expect-error a default names no rule
    const ruleId: string = d.ruleId;
    assert.fail(ruleId);
  }
  // @ts-expect-error a throttle decision needs its descriptor
  const incomplete: Decision = { decision: "throttle", reason: "default" };
  // @ts-expect-error a rule decision names its policy and rule
  const anonymous: Decision = { decision: "allow", reason: "rule" };
  // @ts-expect-error an allow carries no value
  const stray: Decision = { decision: "allow", reason: "default", value: "x" };
  assert.ok(incomplete && anonymous && stray);
});

/** The policy that decided: only the deny-by-default names none. */
function policyOf(d: Decision): string {
  switch (d.decision) {
    case "throttle":
    case "kill_switch":
    case "custom":
    case "allow":
      return d.policyKey; // a string: only a policy's rule or default gives these
    case "deny":
      if (d.reason === "rule") return d.policyKey;
      return d.policyKey ?? "(deny-by-default)";
  }
}

Deno.test("a throttle, kill_switch, custom, allow or rule decision names its policy (policyKey: string)", () => {
  assert.equal(policyOf(evaluate(compiled, request("slow"))), "api.export");
  assert.equal(policyOf(evaluate(compiled, request("stop"))), "api.export");
  assert.equal(policyOf(evaluate(compiled, request("tag"))), "api.export");
  assert.equal(policyOf(evaluate(compiled, request("none"))), "api.export"); // the throttle default
  const global = evaluate(compiled, { target: { ...target, action: "other" } });
  assert.equal(policyOf(global), "(deny-by-default)");
  assert.deepEqual(global, { decision: "deny", reason: "default" });

  const d: Decision = evaluate(compiled, request("slow"));
  if (d.reason === "rule") {
    const key: string = d.policyKey;
    assert.equal(key, "api.export");
  }
  if (d.decision === "throttle" || d.decision === "kill_switch") {
    const key: string = d.policyKey;
    assert.equal(key, "api.export");
  }
  if (d.decision === "deny" && d.reason === "default") {
    // @ts-expect-error the deny-by-default may name no policy
    const key: string = d.policyKey;
    assert.ok(key);
  }
  // @ts-expect-error a policy's default names its policy
  const unnamed: Decision = { decision: "throttle", reason: "default", throttle: d.throttle! };
  // @ts-expect-error only a deny decides by default without a policy
  const allowAll: Decision = { decision: "allow", reason: "default" };
  const denyAll: Decision = { decision: "deny", reason: "default" };
  assert.ok(unnamed && allowAll && denyAll);
});

Deno.test("a rule trace has its effect exactly when the rule fired", () => {
  const trace = traceEvaluation(compiled, request("slow"));
  const effects = trace.rules.map((rule: RuleTrace) => {
    switch (rule.outcome) {
      case "fired":
      case "fired (when_true)":
      case "fired (when_false)":
        return `${rule.ruleId} ${rule.effect}`;
      default: {
        // @ts-expect-error a rule that did not fire has no effect
        const effect: EffectType = rule.effect;
        assert.equal(effect, undefined);
        return `${rule.ruleId} ${rule.outcome}`;
      }
    }
  });
  assert.deepEqual(effects.filter((e) => e.endsWith("throttle")), ["slow throttle"]);
  for (const rule of trace.rules) {
    assert.equal("effect" in rule, rule.outcome.startsWith("fired"), rule.ruleId);
  }
  assert.equal(trace.decision.decision, "throttle");
  if (trace.decision.decision === "throttle") assert.equal(trace.decision.throttle.key, "tenant");
});
