// This module is browser compatible.
import type { Decision, EffectType, EvaluationRequest } from "./types.ts";
import type { CompiledBundle } from "./compile_bundle.ts";
import { EVALUATE_FIELDS, type EvaluateOptions } from "./evaluate.ts";
import { checkOptions, NO_OPTIONS } from "../_internal/check_options.ts";
import { checkRequest } from "./_request.ts";
import { makeDecision } from "./_decision.ts";
import { rankTarget } from "./rank_target.ts";
import { policiesAt, targetRefs } from "./_rule_table.ts";
import { type CompiledCode, compiledCodeOf } from "./_compiled_code.ts";
import { type PlannedCandidate, planTrace, recordOf, type TracePlan } from "./_trace_plan.ts";
import type { ConditionTrace } from "./condition_trace.ts";
import { decidingLeaf, explainCondition } from "./_explain_condition.ts";
import type { PathTable } from "./_path_table.ts";

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
  /** The rule's `when`, tested leaf by leaf; null when the rule has none. */
  condition: ConditionTrace | null;
  /** With `fired (when_false)`: the first leaf that made `when` false; otherwise null. */
  falseBecause: ConditionTrace | null;
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
  /** The rule's `when`, tested leaf by leaf; null for a disabled rule (nothing is tested). */
  condition: ConditionTrace | null;
  /**
   * With `skipped (when_false)`: the first leaf (or malformed node) that made
   * `when` false, also found in `condition`; null for a disabled rule.
   */
  falseBecause: ConditionTrace | null;
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
 * Evaluates a request and explains it, down to each condition's leaves: for
 * every rule naming the target, its outcome and, when it has a `when`, the
 * condition tree with each leaf's path, operator, operand, the value read
 * (cut to a bound) and the outcome, and for a false `when` the first leaf
 * that made it false (`docs/bundle-format.md`, "Traces"; `formatConditionTrace`
 * renders them for people). Each active rule's
 * condition is tested once, with the semantics of `evaluate`, every leaf
 * included, and the decision is the first candidate that fires in selection
 * order, as in `evaluate`. What a trace walks is ranked and its explainers
 * made once per target, on the target's first trace (see `_trace_plan.ts`),
 * so evaluation without traces pays nothing for it, in time or memory. The
 * trace is plain JSON data.
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
 * assert.equal(trace.rules[0]!.condition, null);
 * assert.equal(trace.selected!.ruleId, "__default__");
 * assert.equal(trace.selected!.priority, -1);
 * ```
 */
export function traceEvaluation(
  compiled: CompiledBundle,
  request: EvaluationRequest,
  options: EvaluateOptions = NO_OPTIONS,
): EvaluationTrace {
  if (options !== NO_OPTIONS) checkOptions(options, EVALUATE_FIELDS, "traceEvaluation");
  const allowed = options.contextPolicy ? new Set(options.contextPolicy.allowedKeys) : null;
  const context = checkRequest(request, allowed);
  const { service, resource, action } = request.target;
  const compiledCode = compiledCodeOf(compiled);
  const plan = planOf(compiledCode, service, resource, action);
  if (plan === undefined) {
    return {
      decision: { decision: "deny", reason: "default" },
      policiesSeen: [],
      rulesSeen: 0,
      matchedCount: 0,
      rules: [],
      candidates: [],
      selected: null,
    };
  }
  const { rules, candidates } = plan;
  const count = candidates.length;
  // Per candidate: 1 when it fired; then per policy: 1 when one of its rules fired.
  // Both arrays are made at their final length: they never grow.
  const fired: number[] = new Array(count + plan.policiesSeen.length);
  const ruleTraces: RuleTrace[] = new Array(rules.length);
  const { paths } = compiledCode;
  const mark = paths.open();
  let matchedCount: number;
  try {
    matchedCount = traceRules(plan, paths, context, fired, ruleTraces);
  } finally {
    paths.close(mark);
  }
  // In selection order: a rule's candidate when it fired, a default when no rule of its policy did.
  const candidateTraces: CandidateTrace[] = [];
  let winner = -1;
  for (let i = 0; i < count; i++) {
    const c = candidates[i]!;
    if (c.defaultOf < 0 ? fired[i] !== 1 : fired[count + c.defaultOf] === 1) continue;
    if (winner < 0) winner = i;
    candidateTraces.push(describeCandidate(c));
  }
  return {
    decision: winner < 0
      ? { decision: "deny", reason: "default" }
      : makeDecision(plan.records, recordOf(winner), options.parseCustomEffect === true),
    policiesSeen: plan.policiesSeen.slice(),
    rulesSeen: rules.length,
    matchedCount,
    rules: ruleTraces,
    candidates: candidateTraces,
    selected: winner < 0 ? null : describeCandidate(candidates[winner]!),
  };
}

/**
 * The rules naming a request's target that fire (their `when`, or its
 * absence, gives them an effect), as a trace finds them but with nothing
 * explained: each active rule's compiled test, the one `evaluate` runs. What
 * suites count as covered.
 */
export function rulesThatFire(
  compiled: CompiledBundle,
  request: EvaluationRequest,
): { policyKey: string; ruleId: string }[] {
  const context = checkRequest(request, null);
  const { service, resource, action } = request.target;
  const compiledCode = compiledCodeOf(compiled);
  const plan = planOf(compiledCode, service, resource, action);
  const fired: { policyKey: string; ruleId: string }[] = [];
  if (plan === undefined) return fired;
  const { paths } = compiledCode;
  const mark = paths.open();
  try {
    plan.rules.forEach((rule, i) => {
      if (!rule.active) return;
      const test = plan.tests[i]!;
      const chosen = test === null || test(context) ? rule.onTrue : rule.onFalse;
      if (chosen >= 0) fired.push({ policyKey: rule.policyKey, ruleId: rule.ruleId });
    });
  } finally {
    paths.close(mark);
  }
  return fired;
}

/**
 * Tests every active rule of the plan once: fills `ruleTraces` in bundle
 * order and marks in `fired` the candidates that fired and the policies one
 * of whose rules did. Returns how many rules fired.
 */
function traceRules(
  plan: TracePlan,
  paths: PathTable,
  context: Record<string, unknown>,
  fired: number[],
  ruleTraces: RuleTrace[],
): number {
  const { rules, candidates } = plan;
  const count = candidates.length;
  let matched = 0;
  for (let i = 0; i < rules.length; i++) {
    const rule = rules[i]!;
    const { policyKey, ruleId, priority } = rule;
    if (!rule.active) {
      ruleTraces[i] = {
        policyKey,
        ruleId,
        priority,
        outcome: "skipped (disabled)",
        condition: null,
        falseBecause: null,
      };
      continue;
    }
    const condition = rule.explain === null ? null : explainCondition(rule.explain, paths, context);
    const result = condition === null ? null : condition.outcome;
    const falseBecause = result === false ? decidingLeaf(condition!, false) : null;
    const chosen = result === false ? rule.onFalse : rule.onTrue;
    if (chosen < 0) {
      ruleTraces[i] = {
        policyKey,
        ruleId,
        priority,
        outcome: "skipped (when_false)",
        condition,
        falseBecause,
      };
      continue;
    }
    fired[chosen] = 1;
    fired[count + rule.policy] = 1;
    matched++;
    const outcome = result === null ? "fired" : result ? "fired (when_true)" : "fired (when_false)";
    ruleTraces[i] = {
      policyKey,
      ruleId,
      priority,
      outcome,
      effect: candidates[chosen]!.decision,
      condition,
      falseBecause,
    };
  }
  return matched;
}

/** The trace plan of a target, made on its first trace; undefined when no rule names it. */
function planOf(
  code: CompiledCode,
  service: string,
  resource: string,
  action: string,
): TracePlan | undefined {
  const { rules } = code;
  const index = code.tracePlans ??= targetRefs(rules);
  const entry = index.get(service, resource, action);
  if (entry === undefined || !Array.isArray(entry)) return entry;
  const policies = policiesAt(rules, entry);
  const ranked = rankTarget(policies, entry, (_, p, r) => rules.tests[rules.ruleStarts[p]! + r]!);
  const plan = planTrace(ranked, code.paths, code.explainers ??= new Map());
  index.set(service, resource, action, plan);
  return plan;
}

function describeCandidate(c: PlannedCandidate): CandidateTrace {
  return {
    policyKey: c.policyKey,
    ruleId: c.ruleId,
    decision: c.decision,
    priority: c.priority,
    reason: c.reason,
  };
}
