// json-logic-js: each target's rules as JsonLogic, behind the floor's Map index.
import { jsonLogic, VERSIONS } from "../_libraries.ts";
import { DEFAULT_DENY, type PeerEngine, STRENGTH_ORDER, TargetIndex } from "../_engine.ts";
import { SCENARIOS } from "../../scenarios/mod.ts";
import type { Condition, Rule, Target } from "../../../mod.ts";

interface LogicRule {
  id: string;
  decision: string;
  logic: unknown;
}

/** Our condition as JsonLogic: `var` takes the same dotted path, without `ctx.`. */
function toLogic(c: Condition): unknown {
  const v = "path" in c ? { var: c.path.startsWith("ctx.") ? c.path.slice(4) : c.path } : null;
  switch (c.op) {
    case "eq":
      return { "===": [v, c.value] };
    case "neq":
    case "ne":
      return { "!==": [v, c.value] };
    case "gt":
      return { ">": [v, c.value] };
    case "gte":
      return { ">=": [v, c.value] };
    case "lt":
      return { "<": [v, c.value] };
    case "lte":
      return { "<=": [v, c.value] };
    case "in":
      return { in: [v, c.values] };
    case "exists":
      return { "!=": [v, null] };
    case "and":
    case "or":
      return { [c.op]: (c.conditions ?? c.args ?? []).map(toLogic) };
    case "not":
      return { "!": [toLogic((c.condition ?? c.arg)!)] };
  }
}

const STRENGTH = new Map<string, number>(STRENGTH_ORDER.map((type, i) => [type, i]));

/** A target's rules, strongest effect first then highest priority: the first that holds decides. */
function logicRules(rules: Rule[]): LogicRule[] {
  return [...rules]
    .sort((a, b) =>
      STRENGTH.get(a.effect.type)! - STRENGTH.get(b.effect.type)! || b.priority - a.priority
    )
    .map((r) => ({
      id: r.id,
      decision: r.effect.type,
      logic: r.when === undefined ? true : toLogic(r.when),
    }));
}

export const jsonLogicEngine: PeerEngine<string> = {
  id: "json-logic",
  label: `${VERSIONS.jsonLogic}, Map index`,
  async: false,
  scenarios: SCENARIOS.map((s) => s.id),
  notes: "A JSON document of targets with their rules as JsonLogic (===, !==, >, >=, <, <=, in, " +
    "!= null for exists, and, or, !; var with the same dotted path), ordered strongest effect " +
    "first, then by priority: the first rule whose logic is truthy decides. Loaded into the " +
    "floor's nested-Map index. JsonLogic reads inherited properties; it does not make our " +
    "engine's safety checks.",
  source: (n, { scenario }) =>
    JSON.stringify(
      scenario.bundle(n).policies.map((policy) => ({
        target: policy.rules[0]!.target,
        policyKey: policy.policyKey,
        rules: logicRules(policy.rules),
      })),
    ),
  load(text) {
    const index = new TargetIndex<{ policyKey: string; rules: LogicRule[] }>();
    const entries = JSON.parse(text) as { target: Target; policyKey: string; rules: LogicRule[] }[];
    for (const { target, policyKey, rules } of entries) index.set(target, { policyKey, rules });
    return (request) => {
      const entry = index.get(request.target);
      if (entry === undefined) return DEFAULT_DENY;
      for (const rule of entry.rules) {
        if (jsonLogic.truthy(jsonLogic.apply(rule.logic, request.context))) {
          return { decision: rule.decision, policyKey: entry.policyKey, ruleId: rule.id };
        }
      }
      return DEFAULT_DENY;
    };
  },
};
