// This module is browser compatible.
/**
 * The ranking of every target of a bundle: its candidates (the outcomes of
 * its active rules and the defaults that apply) in the order the engine
 * tests them (`src/engine/rank_target.ts`, docs/bundle-format.md
 * "Selecting the decision").
 *
 * @module
 */
import type { EffectType, Policy, Target } from "../engine/types.ts";
import { collectTargets, rankTarget } from "../engine/rank_target.ts";
import type { Test } from "../engine/compile_condition.ts";

/** One candidate of a target's ranking. */
export interface RankEntry {
  /** The policy of the rule or the defaults. */
  policyKey: string;
  /** The rule id, or `__default__` for the policy's defaults. */
  ruleId: string;
  /** Which part decides: a rule's `effect`, `thenEffect` or `elseEffect`, or the policy's `defaults`. */
  branch: "effect" | "thenEffect" | "elseEffect" | "defaults";
  /** The effect type it gives. */
  decision: EffectType;
}

/** A target and its ranking, strongest candidate first. */
export interface TargetRanking {
  target: Target;
  ranking: RankEntry[];
}

/** Ranking is read from the rules, never from a test: any test will do. */
const noTest: (when: unknown) => Test = () => () => false;

/** Every target of the policies with its ranking, keyed by {@link targetKey}. */
export function rankings(policies: readonly Policy[]): Map<string, TargetRanking> {
  const out = new Map<string, TargetRanking>();
  collectTargets(policies).transform((refs) => {
    const t = policies[refs[0]!]!.rules[refs[1]!]!.target;
    const target = { service: t.service, resource: t.resource, action: t.action };
    const byRank: RankEntry[] = [];
    for (const policy of rankTarget(policies, refs, noTest)) {
      const { policyKey } = policy;
      for (const { rule, active, onTrue, onFalse } of policy.rules) {
        if (!active) continue;
        const branch = rule.when !== undefined && rule.thenEffect !== undefined
          ? "thenEffect"
          : "effect";
        byRank[onTrue.rank] = { policyKey, ruleId: rule.id, branch, decision: onTrue.type };
        if (onFalse !== null) {
          byRank[onFalse.rank] = {
            policyKey,
            ruleId: rule.id,
            branch: "elseEffect",
            decision: onFalse.type,
          };
        }
      }
      const fallback = policy.fallback;
      if (fallback !== null) {
        byRank[fallback.rank] = {
          policyKey,
          ruleId: "__default__",
          branch: "defaults",
          decision: fallback.type,
        };
      }
    }
    out.set(targetKey(target), { target, ranking: byRank.filter((e) => e !== undefined) });
    return null;
  });
  return out;
}

/** A key that identifies a target (its three strings, unambiguously). */
export function targetKey(target: Target): string {
  return JSON.stringify([target.service, target.resource, target.action]);
}
