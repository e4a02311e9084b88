// Differential test of decision selection: the compiled engine against a
// direct reading of docs/bundle-format.md ("Selecting the decision"), over random bundles
// built to hit ties, disabled rules, else branches, defaults (including
// ignored ones) and many rules at one target.
import assert from "node:assert/strict";
import {
  compileBundle,
  createEvaluator,
  type Decision,
  type Effect,
  type Policy,
  type PolicyDefault,
  type Rule,
  type RuntimeBundleV1,
  type Target,
} from "../../mod.ts";
import { traceEvaluation } from "../../src/engine/mod.ts";
import { compileCondition } from "../../src/engine/compile_condition.ts";
import { type Random, seededRandom } from "../_random.ts";

const TARGETS: Target[] = [
  { service: "s", resource: "r", action: "a" },
  { service: "s", resource: "r", action: "b" },
  { service: "s", resource: "q", action: "a" },
];

const CONDITIONS: unknown[] = [
  { op: "eq", path: "a", value: 1 },
  { op: "exists", path: "b" },
  { op: "gt", path: "ctx.n", value: 2 },
  { op: "and", conditions: [{ op: "eq", path: "a", value: 1 }, { op: "exists", path: "b" }] },
  { op: "or", args: [{ op: "eq", path: "a", value: 2 }, { op: "lt", path: "n", value: 1 }] },
  { op: "not", condition: { op: "exists", path: "b" } },
  { op: "unknown-op" },
];

const CONTEXTS: Record<string, unknown>[] = [
  {},
  { a: 1 },
  { a: 1, b: true },
  { a: 2, n: 3 },
  { b: null, n: 0 },
  { a: 1, b: 0, n: 5 },
];

function randomEffect(rnd: Random): Effect {
  switch (rnd.int(5)) {
    case 0:
      return { type: "allow" };
    case 1:
      return { type: "deny" };
    case 2:
      return {
        type: "throttle",
        throttle: { limit: rnd.pick([1, 2, 10]), windowSeconds: rnd.pick([1, 2]), key: "k" },
      };
    case 3:
      return rnd.int(2)
        ? { type: "kill_switch", killSwitch: { service: "svc" } }
        : { type: "kill_switch", killSwitch: { service: "svc", reason: "why" } };
    default:
      return { type: "custom", value: rnd.pick(['{"x":1}', "not json", "2"]) };
  }
}

function randomDefault(rnd: Random): PolicyDefault {
  const effect = randomEffect(rnd);
  switch (effect.type) {
    case "throttle": // sometimes without its descriptor: ignored
      return rnd.int(3)
        ? { effect: "throttle", throttle: effect.throttle! }
        : { effect: "throttle" };
    case "kill_switch":
      return rnd.int(3)
        ? { effect: "kill_switch", killSwitch: effect.killSwitch! }
        : { effect: "kill_switch" };
    case "custom":
      return { effect: "custom", customEffect: effect.value! };
    default:
      return { effect: effect.type };
  }
}

function randomBundle(rnd: Random): RuntimeBundleV1 {
  const policies: Policy[] = [];
  const policyCount = 1 + rnd.int(4);
  for (let p = 0; p < policyCount; p++) {
    const rules: Rule[] = [];
    const ruleCount = rnd.int(p === 0 ? 40 : 6); // sometimes more rules than memo bits
    for (let r = 0; r < ruleCount; r++) {
      const rule: Rule = {
        id: `r${r}`,
        status: rnd.int(5) ? "active" : "disabled",
        priority: rnd.pick([-1, 0, 1, 2]),
        target: rnd.pick(TARGETS),
        effect: randomEffect(rnd),
      };
      if (rnd.int(3)) {
        rule.when = rnd.pick(CONDITIONS) as NonNullable<Rule["when"]>;
        if (rnd.int(3) === 0) rule.thenEffect = randomEffect(rnd);
        if (rnd.int(2) === 0) rule.elseEffect = randomEffect(rnd);
      }
      rules.push(rule);
    }
    const policy: Policy = { policyKey: `p${p}`, activeVersion: 1, rules };
    if (rnd.int(2)) policy.defaults = randomDefault(rnd);
    policies.push(policy);
  }
  return { schemaVersion: 1, env: "test", policies };
}

const STRENGTH = ["kill_switch", "deny", "throttle", "allow", "custom"];

interface ReferenceCandidate {
  effect: Effect;
  priority: number;
  isDefault: boolean;
  order: number[];
  policyKey: string;
  ruleId?: string;
}

/** docs/bundle-format.md ("Selecting the decision"), read directly: every candidate, then one sort. */
function referenceDecision(bundle: RuntimeBundleV1, target: Target, context: object): Decision {
  const same = (t: Target) =>
    t.service === target.service && t.resource === target.resource && t.action === target.action;
  const candidates: ReferenceCandidate[] = [];
  bundle.policies.forEach((policy, p) => {
    if (!policy.rules.some((rule) => same(rule.target))) return;
    let fired = false;
    policy.rules.forEach((rule, r) => {
      if (!same(rule.target) || rule.status !== "active") return;
      let effect: Effect | undefined = rule.effect;
      let branch = 0;
      if (rule.when !== undefined) {
        if (compileCondition(rule.when)(context as Record<string, unknown>)) {
          effect = rule.thenEffect ?? rule.effect;
        } else {
          effect = rule.elseEffect;
          branch = 1;
        }
      }
      if (effect === undefined) return;
      fired = true;
      candidates.push({
        effect,
        priority: rule.priority,
        isDefault: false,
        order: [p, r, branch],
        policyKey: policy.policyKey,
        ruleId: rule.id,
      });
    });
    const d = policy.defaults;
    if (fired || d === undefined) return;
    if (d.effect === "kill_switch" && d.killSwitch === undefined) return;
    if (d.effect === "throttle" && d.throttle === undefined) return;
    const effect: Effect = { type: d.effect };
    if (d.killSwitch) effect.killSwitch = d.killSwitch;
    if (d.throttle) effect.throttle = d.throttle;
    if (d.customEffect !== undefined) effect.value = d.customEffect;
    candidates.push({
      effect,
      priority: -1,
      isDefault: true,
      order: [p, -1, 0],
      policyKey: policy.policyKey,
    });
  });
  const rate = (c: ReferenceCandidate) =>
    c.effect.throttle!.limit / c.effect.throttle!.windowSeconds;
  candidates.sort((a, b) =>
    STRENGTH.indexOf(a.effect.type) - STRENGTH.indexOf(b.effect.type) ||
    (a.effect.type === "throttle" ? rate(a) - rate(b) : 0) ||
    b.priority - a.priority ||
    Number(a.isDefault) - Number(b.isDefault) ||
    a.order[0]! - b.order[0]! || a.order[1]! - b.order[1]! || a.order[2]! - b.order[2]!
  );
  const winner = candidates[0];
  if (winner === undefined) return { decision: "deny", reason: "default" };
  const reason = winner.isDefault
    ? { reason: "default" as const, policyKey: winner.policyKey }
    : { reason: "rule" as const, policyKey: winner.policyKey, ruleId: winner.ruleId! };
  const { throttle, killSwitch, value } = winner.effect;
  switch (winner.effect.type) {
    case "throttle":
      return {
        decision: "throttle",
        ...reason,
        throttle: { limit: throttle!.limit, windowSeconds: throttle!.windowSeconds, key: "k" },
      };
    case "kill_switch":
      return {
        decision: "kill_switch",
        ...reason,
        killSwitch: killSwitch!.reason === undefined
          ? { service: killSwitch!.service }
          : { service: killSwitch!.service, reason: killSwitch!.reason },
      };
    case "custom":
      return { decision: "custom", ...reason, value: value! };
    default:
      return { decision: winner.effect.type, ...reason };
  }
}

Deno.test("evaluate() and traceEvaluation() agree with a direct reading of the selection rules", () => {
  for (let seed = 1; seed <= 400; seed++) {
    const bundle = randomBundle(seededRandom(seed));
    const compiled = compileBundle(bundle);
    const evaluate = createEvaluator(compiled);
    for (const target of [...TARGETS, { service: "s", resource: "none", action: "a" }]) {
      for (const context of CONTEXTS) {
        const want = referenceDecision(bundle, target, context);
        const message = `seed ${seed}, ${JSON.stringify(target)}, ${JSON.stringify(context)}`;
        assert.deepEqual(evaluate({ target, context }), want, message);
        const trace = traceEvaluation(compiled, { target, context });
        assert.deepEqual(trace.decision, want, message);
        assert.deepEqual(trace.selected, trace.candidates[0] ?? null, message);
      }
    }
  }
});
