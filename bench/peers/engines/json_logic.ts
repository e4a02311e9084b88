// json-logic-js: each target's rules as JsonLogic, behind the floor's Map index.
import { jsonLogic, VERSIONS } from "../_libraries.ts";
import { DEFAULT_DENY, type PeerEngine, TargetIndex } from "../_engine.ts";
import { scenarioTarget } from "../../_scenario.ts";
import type { Target } from "../../../mod.ts";

interface LogicRule {
  id: string;
  decision: string;
  logic: unknown;
}

/** The three rules, strongest effect first: the first that holds decides. */
const RULES: LogicRule[] = [
  {
    id: "deny-free-many-seats",
    decision: "deny",
    logic: { and: [{ "===": [{ var: "plan" }, "free"] }, { ">": [{ var: "seats" }, 5] }] },
  },
  {
    id: "throttle-regions",
    decision: "throttle",
    logic: { in: [{ var: "region" }, ["eu", "us"]] },
  },
  { id: "allow-all", decision: "allow", logic: true },
];

export const jsonLogicEngine: PeerEngine<string> = {
  id: "json-logic",
  label: `${VERSIONS.jsonLogic}, Map index`,
  async: false,
  notes: "A JSON document of targets with their rules as JsonLogic (=== for plan, > for seats, " +
    "in for region), ordered strongest effect first: the first rule whose logic is truthy " +
    "decides. Loaded into the floor's nested-Map index.",
  source: (n) =>
    JSON.stringify(
      Array.from({ length: n }, (_, i) => ({ target: scenarioTarget(i), rules: RULES })),
    ),
  load(text) {
    const index = new TargetIndex<{ policyKey: string; rules: LogicRule[] }>();
    const entries = JSON.parse(text) as { target: Target; rules: LogicRule[] }[];
    entries.forEach(({ target, rules }, i) =>
      index.set(target, { policyKey: `policy-${i}`, rules })
    );
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
