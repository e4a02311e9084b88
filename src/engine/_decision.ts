// This module is browser compatible.
// The decision object of a winning candidate, shared by evaluate and traceEvaluation.
import type { Decision } from "./types.ts";
import type { Candidate } from "./_rank_target.ts";

/** A fresh decision object with exactly the fields SPEC.md lists for the candidate's type. */
export function makeDecision(c: Candidate, parseCustomEffect: boolean): Decision {
  const d: Decision = c.reason === "rule"
    ? { decision: c.type, reason: "rule", policyKey: c.policyKey, ruleId: c.ruleId }
    : { decision: c.type, reason: "default", policyKey: c.policyKey };
  const t = c.throttle;
  if (t !== null) d.throttle = { limit: t.limit, windowSeconds: t.windowSeconds, key: t.key };
  const ks = c.killSwitch;
  if (ks !== null) {
    d.killSwitch = ks.reason === null
      ? { service: ks.service }
      : { service: ks.service, reason: ks.reason };
  }
  if (c.value !== null) {
    d.value = c.value;
    if (parseCustomEffect && c.valueIsJson) d.parsedValue = JSON.parse(c.value);
  }
  return d;
}
