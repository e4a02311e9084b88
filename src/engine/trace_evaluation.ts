// This module is browser compatible.
import type { Decision, EffectType, EvaluationRequest } from "./types.ts";
import type { Candidate, CompiledBundle } from "./compile_bundle.ts";
import type { EvaluateOptions } from "./evaluate.ts";
import { checkRequest, makeDecision, selectCandidate } from "./_select_candidate.ts";

/** What happened to one rule naming the target. */
export type RuleOutcome =
  | "fired"
  | "fired (when_true)"
  | "fired (when_false)"
  | "skipped (when_false)"
  | "skipped (disabled)";

/** One rule considered by a trace. */
export interface RuleTrace {
  /** The rule's policy. */
  policyKey: string;
  /** The rule id. */
  ruleId: string;
  /** The rule's priority. */
  priority: number;
  /** What happened to the rule. */
  outcome: RuleOutcome;
  /** The effect the rule produced, when it fired. */
  effect?: EffectType;
}

/** One candidate decision of a trace (a fired rule, or `__default__`). */
export interface CandidateTrace {
  /** The candidate's policy. */
  policyKey: string;
  /** The rule id, or `__default__`. */
  ruleId: string;
  /** The effect type it would give. */
  decision: EffectType;
  /** The rule's priority, or -1 for a default. */
  priority: number;
  /** `rule` or `default`. */
  reason: "rule" | "default";
}

/** A full account of one evaluation, for `simulate --trace full`. */
export interface EvaluationTrace {
  /** The decision, identical to what `evaluate` returns. */
  decision: Decision;
  /** Keys of the policies that apply to the target (a rule of theirs names it). */
  policiesSeen: string[];
  /** Number of rules naming the target, active or disabled. */
  rulesSeen: number;
  /** Number of rules that fired. */
  matchedCount: number;
  /** Every rule naming the target, in bundle order, with its outcome. */
  rules: RuleTrace[];
  /** Every candidate, in selection order (the first is selected). */
  candidates: CandidateTrace[];
  /** The selected candidate; null when the global deny-by-default applied. */
  selected: CandidateTrace | null;
}

/**
 * Evaluates a request and explains it. It walks the same compiled index and
 * candidates as `evaluate`, on a separate path, so evaluation without a trace
 * pays nothing for it.
 *
 * @example
 * ```ts
 * import { compileBundle, traceEvaluation } from "./mod.ts";
 * import assert from "node:assert/strict";
 *
 * const target = { service: "s", resource: "r", action: "a" };
 * const compiled = compileBundle({
 *   schemaVersion: 1,
 *   env: "dev",
 *   policies: [{
 *     policyKey: "p",
 *     activeVersion: 1,
 *     defaults: { effect: "allow" },
 *     rules: [{ id: "off", status: "disabled", priority: 1, target, effect: { type: "deny" } }],
 *   }],
 * });
 * const trace = traceEvaluation(compiled, { target });
 * assert.equal(trace.decision.decision, "allow");
 * assert.equal(trace.rules[0]!.outcome, "skipped (disabled)");
 * assert.equal(trace.selected!.ruleId, "__default__");
 * assert.equal(trace.selected!.priority, -1);
 * ```
 */
export function traceEvaluation(
  compiled: CompiledBundle,
  request: EvaluationRequest,
  options: EvaluateOptions = {},
): EvaluationTrace {
  const allowed = options.contextPolicy ? new Set(options.contextPolicy.allowedKeys) : null;
  const context = checkRequest(request, allowed);
  const { service, resource, action } = request.target;
  const entry = compiled.lookup(service, resource, action);
  const trace: EvaluationTrace = {
    decision: { decision: "deny", reason: "default" },
    policiesSeen: [],
    rulesSeen: 0,
    matchedCount: 0,
    rules: [],
    candidates: [],
    selected: null,
  };
  if (entry === undefined) return trace;
  const fired: Candidate[] = [];
  for (const policy of entry.policies) {
    trace.policiesSeen.push(policy.policyKey);
    let policyFired = false;
    for (const rule of policy.rules) {
      trace.rulesSeen++;
      const base = { policyKey: policy.policyKey, ruleId: rule.id, priority: rule.priority };
      if (!rule.active) {
        trace.rules.push({ ...base, outcome: "skipped (disabled)" });
        continue;
      }
      const result = rule.test === null ? null : rule.test(context);
      const chosen = result === false ? rule.onFalse : rule.onTrue;
      if (chosen === null) {
        trace.rules.push({ ...base, outcome: "skipped (when_false)" });
        continue;
      }
      policyFired = true;
      trace.matchedCount++;
      fired.push(chosen);
      const outcome = result === null
        ? "fired"
        : result
        ? "fired (when_true)"
        : "fired (when_false)";
      trace.rules.push({ ...base, outcome, effect: chosen.type });
    }
    if (!policyFired && policy.fallback !== null) fired.push(policy.fallback);
  }
  fired.sort((a, b) => a.rank - b.rank);
  trace.candidates = fired.map(describeCandidate);
  const winner = selectCandidate(entry, context);
  if (winner !== null) {
    trace.selected = describeCandidate(winner);
    trace.decision = makeDecision(winner, options.parseCustomEffect === true);
  }
  return trace;
}

function describeCandidate(c: Candidate): CandidateTrace {
  return {
    policyKey: c.policyKey,
    ruleId: c.ruleId,
    decision: c.type,
    priority: c.priority,
    reason: c.reason,
  };
}
