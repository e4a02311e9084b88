// This module is browser compatible.
// The candidates of one target, ranked once by the selection order of
// CONTRACT.md §3. The compiler turns them into a target's program; traces
// rebuild them on demand to explain a decision.
import type { Effect, EffectType, Policy, Rule } from "./types.ts";
import type { Test } from "./_compile_condition.ts";
import { EFFECT_TYPES } from "./_guards.ts";
import { TargetIndex } from "./_target_index.ts";

/**
 * One way a decision can be made at a target: a rule's outcome (effect,
 * thenEffect or elseEffect) or a policy default. `rank` orders every
 * candidate of a target by the selection order; the lowest that fires wins.
 * Candidates exist while compiling (the compiler copies them into records of
 * the target's program) and while tracing.
 */
export interface Candidate {
  readonly rank: number;
  readonly type: EffectType;
  readonly priority: number;
  readonly policyKey: string;
  /** The rule id, or `__default__` for a policy default. */
  readonly ruleId: string;
  readonly reason: "rule" | "default";
  readonly throttle: {
    readonly limit: number;
    readonly windowSeconds: number;
    readonly key: string;
  } | null;
  readonly killSwitch: { readonly service: string; readonly reason: string | null } | null;
  /** The custom value, or null. */
  readonly value: string | null;
  /** True when `value` parses as JSON. */
  readonly valueIsJson: boolean;
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

/** A candidate being ranked: the candidate (rank still unset) and what it is sorted by. */
interface Draft {
  readonly candidate: { -readonly [K in keyof Candidate]: Candidate[K] };
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
 * @param testFor Compiles (or finds) the test of a `when`.
 */
export function rankTarget(
  policies: readonly Policy[],
  refs: readonly number[],
  testFor: (when: unknown) => Test,
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
        current.fallback = fallback.candidate;
      }
    }
    const hasWhen = rule.when !== undefined;
    const effect = hasWhen && rule.thenEffect !== undefined ? rule.thenEffect : rule.effect;
    const onTrue = ruleDraft(policy, policyIndex, rule, ruleIndex, effect, 0);
    drafts.push(onTrue);
    let onFalse: Candidate | null = null;
    if (hasWhen && rule.elseEffect !== undefined) {
      const draft = ruleDraft(policy, policyIndex, rule, ruleIndex, rule.elseEffect, 1);
      drafts.push(draft);
      onFalse = draft.candidate;
    }
    current!.rules.push({
      rule,
      active: rule.status === "active",
      test: hasWhen ? testFor(rule.when) : null,
      onTrue: onTrue.candidate,
      onFalse,
    });
  }
  drafts.sort(compareDrafts);
  for (let rank = 0; rank < drafts.length; rank++) drafts[rank]!.candidate.rank = rank;
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
  return {
    candidate: makeCandidate(effect.type, effect, effect.value, {
      priority: rule.priority,
      policyKey: policy.policyKey,
      ruleId: rule.id,
      reason: "rule",
    }),
    strength: STRENGTH.get(effect.type)!,
    rate: effectRate(effect),
    policyIndex,
    ruleIndex,
    branch,
  };
}

/** The draft of a policy's default; null when there is none, or it is ignored. */
function defaultDraft(policy: Policy, policyIndex: number): Draft | null {
  const d = policy.defaults;
  if (d === undefined) return null;
  // A kill_switch or throttle default without its descriptor is ignored.
  if (d.effect === "kill_switch" && d.killSwitch === undefined) return null;
  if (d.effect === "throttle" && d.throttle === undefined) return null;
  return {
    candidate: makeCandidate(d.effect, d, d.customEffect, {
      priority: -1,
      policyKey: policy.policyKey,
      ruleId: "__default__",
      reason: "default",
    }),
    strength: STRENGTH.get(d.effect)!,
    rate: effectRate(d),
    policyIndex,
    ruleIndex: -1,
    branch: 0,
  };
}

const STRENGTH = new Map(EFFECT_TYPES.map((type, i) => [type, i]));

/**
 * Selection order (CONTRACT.md §3): strongest effect type; among throttles
 * the lowest rate then the higher priority; among others the higher
 * priority; then rules before defaults; then bundle order.
 */
function compareDrafts(a: Draft, b: Draft): number {
  return a.strength - b.strength ||
    (a.candidate.type === "throttle" ? a.rate - b.rate : 0) ||
    b.candidate.priority - a.candidate.priority ||
    Number(a.ruleIndex < 0) - Number(b.ruleIndex < 0) ||
    a.policyIndex - b.policyIndex ||
    a.ruleIndex - b.ruleIndex ||
    a.branch - b.branch;
}

function effectRate(effect: { throttle?: { limit: number; windowSeconds: number } }): number {
  return effect.throttle ? effect.throttle.limit / effect.throttle.windowSeconds : 0;
}

/**
 * A candidate in the one shape every candidate has, descriptors copied; its
 * rank is set once the target's candidates are sorted.
 */
function makeCandidate(
  type: EffectType,
  effect: Pick<Effect, "killSwitch" | "throttle">,
  customValue: string | undefined,
  origin: Pick<Candidate, "priority" | "policyKey" | "ruleId" | "reason">,
): Draft["candidate"] {
  const t = type === "throttle" ? effect.throttle! : null;
  const ks = type === "kill_switch" ? effect.killSwitch! : null;
  const value = type === "custom" ? customValue! : null;
  return {
    rank: -1,
    type,
    priority: origin.priority,
    policyKey: origin.policyKey,
    ruleId: origin.ruleId,
    reason: origin.reason,
    throttle: t && { limit: t.limit, windowSeconds: t.windowSeconds, key: t.key },
    killSwitch: ks && { service: ks.service, reason: ks.reason ?? null },
    value,
    valueIsJson: value !== null && parsesAsJson(value),
  };
}

function parsesAsJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
