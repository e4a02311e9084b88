/**
 * How the playground shows a decision: its kind (which colour, in the
 * matrix and the request panel) and a short label, so that a decision is
 * always told in words too, never by colour alone.
 *
 * @module
 */
import type { Decision } from "../src/engine/mod.ts";

/** The six kinds a decision is shown as: the five effects, and the global deny-by-default. */
export type DecisionKind =
  | "allow"
  | "deny"
  | "throttle"
  | "kill_switch"
  | "custom"
  | "default-deny";

/** The kinds, in the order the legend lists them. */
export const DECISION_KINDS: readonly DecisionKind[] = [
  "allow",
  "deny",
  "throttle",
  "kill_switch",
  "custom",
  "default-deny",
];

/** The kind of a decision: `default-deny` when no policy applied (no rule names the target). */
export function decisionKind(decision: Decision): DecisionKind {
  return decision.reason === "default" && decision.policyKey === undefined
    ? "default-deny"
    : decision.decision;
}

/** Short words for a decision: `throttle 10/60s by tenant`, `kill switch`, `default deny`. */
export function decisionLabel(decision: Decision): string {
  switch (decision.decision) {
    case "throttle": {
      const t = decision.throttle;
      return `throttle ${t.limit}/${t.windowSeconds}s by ${t.key}`;
    }
    case "kill_switch":
      return "kill switch";
    case "custom":
      return "custom";
    case "deny":
      return decisionKind(decision) === "default-deny" ? "default deny" : "deny";
    default:
      return decision.decision;
  }
}

/** Who decided: `policy/rule`, `defaults of policy`, or `no policy (deny by default)`. */
export function decidedBy(decision: Decision): string {
  if (decision.reason === "rule") return `${decision.policyKey}/${decision.ruleId}`;
  if (decision.policyKey !== undefined) return `defaults of ${decision.policyKey}`;
  return "no policy names this target (deny by default)";
}
