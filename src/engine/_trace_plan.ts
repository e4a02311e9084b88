// This module is browser compatible.
/**
 * What `traceEvaluation` needs to explain decisions at one target, ranked
 * once: the target's rules in bundle order with the explainers of their
 * conditions (`_explain_condition.ts`), and every candidate that can fire,
 * in selection order, with its decision record. A trace then runs each
 * active rule's explainer once and walks these lists; it never ranks or
 * compiles again. Plans are made on a target's first trace
 * (`trace_evaluation.ts` keeps them), so evaluation without traces pays
 * nothing for them, in time or memory.
 *
 * @module
 */
import type { EffectType } from "./types.ts";
import type { Candidate, RankedPolicy } from "./rank_target.ts";
import {
  type ExplainerCache,
  explanationOf,
  type ExplanationProgram,
} from "./_explain_condition.ts";
import type { PathTable } from "./_path_table.ts";
import type { Test } from "./compile_condition.ts";
import { pushRecord } from "./_target_program.ts";
import { type Code, RECORD_SIZE } from "./_program_layout.ts";

/** A rule naming the target. */
export interface PlannedRule {
  readonly policyKey: string;
  readonly ruleId: string;
  readonly priority: number;
  readonly active: boolean;
  /**
   * The program that tests the rule's `when` and explains it; null when the
   * rule has no `when`, or is disabled (its condition is not tested).
   */
  readonly explain: ExplanationProgram | null;
  /** Index in `candidates` of what it gives without `when`, or when `when` is true. */
  readonly onTrue: number;
  /** Index in `candidates` of what it gives when `when` is false; -1: skipped. */
  readonly onFalse: number;
  /** Index of its policy in `policiesSeen`. */
  readonly policy: number;
}

/** A candidate that can fire: an active rule's outcome or a policy default. */
export interface PlannedCandidate {
  readonly policyKey: string;
  /** The rule id, or `__default__`. */
  readonly ruleId: string;
  readonly decision: EffectType;
  /** The rule's priority, or -1 for a default. */
  readonly priority: number;
  readonly reason: "rule" | "default";
  /** For a default: the index of its policy in `policiesSeen` (it fires when no rule of it did); -1 for a rule's. */
  readonly defaultOf: number;
}

/** The trace plan of one target. */
export interface TracePlan {
  readonly policiesSeen: readonly string[];
  readonly rules: readonly PlannedRule[];
  /** In selection order: the first that fires is selected. */
  readonly candidates: readonly PlannedCandidate[];
  /** The decision records of `candidates` (see `_target_program.ts`), candidate i at i × RECORD_SIZE. */
  readonly records: Code;
  /**
   * Per rule of `rules`, its compiled `when` (what `evaluate` runs); null
   * without one (`rulesThatFire` tests them).
   */
  readonly tests: readonly (Test | null)[];
}

/**
 * The plan of a target from its ranked policies; explainers read through
 * `paths` and come from `explainers` when made before.
 */
export function planTrace(
  policies: readonly RankedPolicy[],
  paths: PathTable,
  explainers: ExplainerCache,
): TracePlan {
  // Candidates that can fire, by rank; disabled rules' candidates never do.
  const byRank: { candidate: Candidate; defaultOf: number }[] = [];
  policies.forEach((policy, p) => {
    for (const rule of policy.rules) {
      if (!rule.active) continue;
      byRank[rule.onTrue.rank] = { candidate: rule.onTrue, defaultOf: -1 };
      if (rule.onFalse !== null) {
        byRank[rule.onFalse.rank] = { candidate: rule.onFalse, defaultOf: -1 };
      }
    }
    if (policy.fallback !== null) {
      byRank[policy.fallback.rank] = { candidate: policy.fallback, defaultOf: p };
    }
  });
  const candidates: PlannedCandidate[] = [];
  const records: unknown[] = [];
  const indexOf = new Map<Candidate, number>();
  for (const entry of byRank) {
    if (entry === undefined) continue;
    const { candidate: c, defaultOf } = entry;
    indexOf.set(c, candidates.length);
    candidates.push({
      policyKey: c.policyKey,
      ruleId: c.ruleId,
      decision: c.type,
      priority: c.priority,
      reason: c.reason,
      defaultOf,
    });
    pushRecord(records, c);
  }
  const rules: PlannedRule[] = [];
  const tests: (Test | null)[] = [];
  policies.forEach((policy, p) => {
    for (const ranked of policy.rules) {
      tests.push(ranked.test);
      const { when } = ranked.rule;
      rules.push({
        policyKey: policy.policyKey,
        ruleId: ranked.rule.id,
        priority: ranked.rule.priority,
        active: ranked.active,
        explain: ranked.active && ranked.test !== null
          ? explanationOf(when, ranked.test, paths, explainers)
          : null,
        onTrue: ranked.active ? indexOf.get(ranked.onTrue)! : -1,
        onFalse: ranked.active && ranked.onFalse !== null ? indexOf.get(ranked.onFalse)! : -1,
        policy: p,
      });
    }
  });
  return { policiesSeen: policies.map((p) => p.policyKey), rules, candidates, records, tests };
}

/** Where candidate `index`'s record starts in a plan's `records`. */
export function recordOf(index: number): number {
  return index * RECORD_SIZE;
}
