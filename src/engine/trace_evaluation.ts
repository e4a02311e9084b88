// This module is browser compatible.
import type { Decision, EffectType, EvaluationRequest } from "./types.ts";
import type { CompiledBundle } from "./compile_bundle.ts";
import type { EvaluateOptions } from "./evaluate.ts";
import { checkRequest } from "./_request.ts";
import { makeDecision, recordPriority } from "./_decision.ts";
import { type Candidate, collectTargets, rankTarget } from "./_rank_target.ts";
import { runProgram } from "./_target_program.ts";
import { compiledCodeOf } from "./_compiled_code.ts";
import type { TargetIndex } from "./_target_index.ts";
import { compileCondition } from "./_compile_condition.ts";

/** What happened to one rule naming the target. */
export type RuleOutcome = FiredRuleTrace["outcome"] | SkippedRuleTrace["outcome"];

/** A rule that fired: its outcome says which branch, `effect` what it produced. */
export interface FiredRuleTrace {
  /** The rule's policy. */
  policyKey: string;
  /** The rule id. */
  ruleId: string;
  /** The rule's priority. */
  priority: number;
  /** What happened to the rule. */
  outcome: "fired" | "fired (when_true)" | "fired (when_false)";
  /** The effect the rule produced (always present). */
  effect: EffectType;
}

/** A rule that did not fire: disabled, or its `when` was false and it has no `elseEffect`. */
export interface SkippedRuleTrace {
  /** The rule's policy. */
  policyKey: string;
  /** The rule id. */
  ruleId: string;
  /** The rule's priority. */
  priority: number;
  /** What happened to the rule. */
  outcome: "skipped (when_false)" | "skipped (disabled)";
  /** Never present: the rule produced no effect. */
  effect?: never;
}

/**
 * One rule considered by a trace: `effect` is present exactly when the rule
 * fired (narrow on `outcome`, or with `rule.effect !== undefined`).
 */
export type RuleTrace = FiredRuleTrace | SkippedRuleTrace;

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
 * Evaluates a request and explains it. The decision comes from the same
 * compiled program as `evaluate`'s; the explanation is rebuilt from the
 * bundle document for the one target (its rules found through an index
 * built on the first trace of a compiled bundle), so evaluation without a
 * trace pays nothing for it, in time or memory.
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
  const { code, programs } = compiledCodeOf(compiled);
  const start = programs.get(service, resource, action);
  const trace: EvaluationTrace = {
    decision: { decision: "deny", reason: "default" },
    policiesSeen: [],
    rulesSeen: 0,
    matchedCount: 0,
    rules: [],
    candidates: [],
    selected: null,
  };
  const refs = ruleIndexOf(compiled).get(service, resource, action);
  if (start === undefined || refs === undefined) return trace;
  const fired: Candidate[] = [];
  for (const policy of rankTarget(compiled.bundle.policies, refs, compileCondition)) {
    trace.policiesSeen.push(policy.policyKey);
    let policyFired = false;
    for (const rule of policy.rules) {
      trace.rulesSeen++;
      const { id: ruleId, priority } = rule.rule;
      const base = { policyKey: policy.policyKey, ruleId, priority };
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
  const winner = runProgram(code, start, context);
  if (winner >= 0) {
    // The compiled program decides, as in evaluate.
    const decision = makeDecision(code, winner, options.parseCustomEffect === true);
    trace.decision = decision;
    trace.selected = {
      policyKey: decision.policyKey!,
      ruleId: decision.ruleId ?? "__default__",
      decision: decision.decision,
      priority: recordPriority(code, winner),
      reason: decision.reason,
    };
  }
  return trace;
}

/** Where each target's rules are, per compiled bundle, built on its first trace. */
const ruleIndexes = new WeakMap<CompiledBundle, TargetIndex<number[]>>();

function ruleIndexOf(compiled: CompiledBundle): TargetIndex<number[]> {
  let index = ruleIndexes.get(compiled);
  if (index === undefined) {
    ruleIndexes.set(compiled, index = collectTargets(compiled.bundle.policies));
  }
  return index;
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
