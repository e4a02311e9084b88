// This module is browser compatible.
// The candidates of one target, ranked once by the selection order of
// docs/bundle-format.md ("Selecting the decision"). The compiler turns them
// into a target's program; a target's first trace turns them into its trace
// plan (_trace_plan.ts).
import type { Effect, EffectType, Policy, Rule } from "./types.ts";
import type { Test } from "./compile_condition.ts";
import { EFFECT_TYPES } from "../public/vocabulary.ts";
import { TargetIndex } from "./_target_index.ts";

/**
 * One way a decision can be made at a target: a rule's outcome (effect,
 * thenEffect or elseEffect) or a policy default. `rank` orders every
 * candidate of a target by the selection order; the lowest that fires wins.
 * Candidates exist while compiling (the compiler copies them into records of
 * the target's program) and while a trace plan is made.
 */
export interface Candidate {
  readonly rank: number;
  readonly type: EffectType;
  readonly priority: number;
  readonly policyKey: string;
  /** The rule id, or `__default__` for a policy default. */
  readonly ruleId: string;
  readonly reason: "rule" | "default";
  /** The effect (or the policy's `defaults`): its throttle or killSwitch descriptor is read from it. */
  readonly effect: Pick<Effect, "throttle" | "killSwitch">;
  /** The custom value, or null. */
  readonly value: string | null;
}

/** A rule naming the target, with its compiled test and its candidates. */
export interface RankedRule {
  readonly rule: Rule;
  readonly active: boolean;
  /** null when the rule has no `when`. */
  readonly test: Test | null;
  /** Applied when there is no `when`, or when it is true. */
  readonly onTrue: Candidate;
  /** Applied when `when` is false; null means the rule is skipped. */
  readonly onFalse: Candidate | null;
}

/** A policy as it applies at one target. */
export interface RankedPolicy {
  readonly policyKey: string;
  /** Every rule naming the target, active or disabled, in bundle order. */
  readonly rules: readonly RankedRule[];
  /** The default as a candidate, or null when absent or ignored. */
  readonly fallback: Candidate | null;
}

/**
 * Where the rules naming each target are: per target, a flat list of
 * `policyIndex, ruleIndex` pairs in bundle order.
 */
export function collectTargets(policies: readonly Policy[]): TargetIndex<number[]> {
  const index = new TargetIndex<number[]>();
  // Rules of one policy usually share a target: remember the last one.
  let last: Rule["target"] | null = null;
  let lastRefs: number[] = [];
  for (let p = 0; p < policies.length; p++) {
    const rules = policies[p]!.rules;
    for (let r = 0; r < rules.length; r++) {
      const target = rules[r]!.target;
      if (
        last === null || target.service !== last.service || target.resource !== last.resource ||
        target.action !== last.action
      ) {
        last = target;
        const found = index.get(target.service, target.resource, target.action);
        if (found === undefined) {
          index.set(target.service, target.resource, target.action, lastRefs = []);
        } else {
          lastRefs = found;
        }
      }
      lastRefs.push(p, r);
    }
  }
  return index;
}

/** A candidate being ranked: its rank is set once sorted, by the fields after it. */
interface Draft extends Candidate {
  rank: number;
  readonly strength: number;
  readonly rate: number;
  readonly policyIndex: number;
  /** -1 for a policy default. */
  readonly ruleIndex: number;
  /** 0 for `effect`/`thenEffect`, 1 for `elseEffect`. */
  readonly branch: number;
}

/**
 * The policies that apply at one target (those with a rule naming it), with
 * every rule, its compiled test and its candidates, ranked.
 *
 * @param refs The target's `policyIndex, ruleIndex` pairs from {@link collectTargets}.
 * @param testFor The test of rule `ruleIndex` of policy `policyIndex`, whose `when` is given.
 */
export function rankTarget(
  policies: readonly Policy[],
  refs: readonly number[],
  testFor: (when: unknown, policyIndex: number, ruleIndex: number) => Test,
): RankedPolicy[] {
  const drafts: Draft[] = [];
  const ranked: { policyKey: string; rules: RankedRule[]; fallback: Candidate | null }[] = [];
  let current: (typeof ranked)[number] | undefined;
  let currentIndex = -1;
  for (let k = 0; k < refs.length; k += 2) {
    const policyIndex = refs[k]!;
    const ruleIndex = refs[k + 1]!;
    const policy = policies[policyIndex]!;
    const rule = policy.rules[ruleIndex]!;
    if (policyIndex !== currentIndex) {
      // refs are in bundle order: the rules of one policy come together.
      currentIndex = policyIndex;
      current = { policyKey: policy.policyKey, rules: [], fallback: null };
      ranked.push(current);
      const fallback = defaultDraft(policy, policyIndex);
      if (fallback !== null) {
        drafts.push(fallback);
        current.fallback = fallback;
      }
    }
    const hasWhen = rule.when !== undefined;
    const effect = hasWhen && rule.thenEffect !== undefined ? rule.thenEffect : rule.effect;
    const onTrue = ruleDraft(policy, policyIndex, rule, ruleIndex, effect, 0);
    drafts.push(onTrue);
    let onFalse: Candidate | null = null;
    if (hasWhen && rule.elseEffect !== undefined) {
      onFalse = ruleDraft(policy, policyIndex, rule, ruleIndex, rule.elseEffect, 1);
      drafts.push(onFalse as Draft);
    }
    current!.rules.push({
      rule,
      active: rule.status === "active",
      test: hasWhen ? testFor(rule.when, policyIndex, ruleIndex) : null,
      onTrue,
      onFalse,
    });
  }
  const n = drafts.length;
  const keys = new Float64Array(n * RANK_KEY_SIZE);
  const order = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const d = drafts[i]!;
    const isDefault = d.ruleIndex < 0 ? 1 : 0;
    setRankKeys(
      keys,
      i,
      d.strength,
      d.rate,
      d.priority,
      isDefault,
      d.policyIndex,
      d.ruleIndex,
      d.branch,
    );
    order[i] = i;
  }
  sortByRank(keys, order, n);
  for (let rank = 0; rank < n; rank++) drafts[order[rank]!]!.rank = rank;
  return ranked;
}

function ruleDraft(
  policy: Policy,
  policyIndex: number,
  rule: Rule,
  ruleIndex: number,
  effect: Effect,
  branch: number,
): Draft {
  const type = effect.type;
  return {
    rank: -1,
    type,
    priority: rule.priority,
    policyKey: policy.policyKey,
    ruleId: rule.id,
    reason: "rule",
    effect,
    value: type === "custom" ? effect.value! : null,
    strength: strengthOf(type),
    rate: type === "throttle" ? effectRate(effect) : 0,
    policyIndex,
    ruleIndex,
    branch,
  };
}

/** The draft of a policy's default; null when there is none, or it is ignored. */
function defaultDraft(policy: Policy, policyIndex: number): Draft | null {
  const d = policy.defaults;
  if (d === undefined) return null;
  const type = d.effect;
  // A kill_switch or throttle default without its descriptor is ignored.
  if (type === "kill_switch" && d.killSwitch === undefined) return null;
  if (type === "throttle" && d.throttle === undefined) return null;
  return {
    rank: -1,
    type,
    priority: -1,
    policyKey: policy.policyKey,
    ruleId: "__default__",
    reason: "default",
    effect: d,
    value: type === "custom" ? d.customEffect! : null,
    strength: strengthOf(type),
    rate: type === "throttle" ? effectRate(d) : 0,
    policyIndex,
    ruleIndex: -1,
    branch: 0,
  };
}

const STRENGTH = new Map(EFFECT_TYPES.map((type, i) => [type, i]));

/** The strength of an effect type: 0 for the strongest (`kill_switch`). */
export function strengthOf(type: EffectType): number {
  return STRENGTH.get(type)!;
}

/** Numbers per candidate in a {@link RankKeys} array. */
export const RANK_KEY_SIZE = 7;

/**
 * The keys that order candidates, {@link RANK_KEY_SIZE} numbers per
 * candidate: strength, rate (throttles; 0 otherwise), priority, 1 for a
 * default (0 for a rule), policy index, rule index, branch (0 for
 * `effect`/`thenEffect`, 1 for `elseEffect`).
 */
export type RankKeys = Float64Array;

/** Writes the keys of candidate `i` into `keys`. */
export function setRankKeys(
  keys: RankKeys,
  i: number,
  strength: number,
  rate: number,
  priority: number,
  isDefault: number,
  policyIndex: number,
  ruleIndex: number,
  branch: number,
): void {
  const at = i * RANK_KEY_SIZE;
  keys[at] = strength;
  keys[at + 1] = rate;
  keys[at + 2] = priority;
  keys[at + 3] = isDefault;
  keys[at + 4] = policyIndex;
  keys[at + 5] = ruleIndex;
  keys[at + 6] = branch;
}

/**
 * Selection order (`docs/bundle-format.md`, "Selecting the decision"), the
 * one definition of it: strongest effect type; among throttles the lowest
 * rate then the higher priority; among others the higher priority; then
 * rules before defaults; then bundle order. Negative when candidate `a`
 * comes first.
 */
export function compareRanks(keys: RankKeys, a: number, b: number): number {
  const x = a * RANK_KEY_SIZE;
  const y = b * RANK_KEY_SIZE;
  for (let k = 0; k < RANK_KEY_SIZE; k++) {
    // Compared, not subtracted: a rate can be Infinity (a limit of 1e308 per 1e-300 seconds).
    const u = keys[x + k]!;
    const v = keys[y + k]!;
    if (u === v) continue;
    // Higher priority first; every other key lower first.
    return (k === 2 ? u > v : u < v) ? -1 : 1;
  }
  return 0;
}

/** Sorts `order[0..n)` (candidate numbers) by {@link compareRanks}; stable. */
export function sortByRank(keys: RankKeys, order: Int32Array | number[], n: number): void {
  if (n > 16) {
    const sorted: number[] = [];
    for (let i = 0; i < n; i++) sorted.push(order[i]!);
    sorted.sort((a, b) => compareRanks(keys, a, b));
    for (let i = 0; i < n; i++) order[i] = sorted[i]!;
    return;
  }
  for (let i = 1; i < n; i++) {
    const c = order[i]!;
    let j = i - 1;
    while (j >= 0 && compareRanks(keys, order[j]!, c) > 0) {
      order[j + 1] = order[j]!;
      j--;
    }
    order[j + 1] = c;
  }
}

/** The rate of an effect's throttle descriptor (requests per second); 0 without one. */
export function effectRate(
  effect: { throttle?: { limit: number; windowSeconds: number } | undefined },
): number {
  return effect.throttle ? effect.throttle.limit / effect.throttle.windowSeconds : 0;
}
