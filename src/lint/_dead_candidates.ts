// This module is browser compatible.
/**
 * Which candidates of one target can never be selected. The engine tests a
 * target's candidates in rank order and selects the first that fires
 * (`src/engine/_target_program.ts`, docs/bundle-format.md "Selecting the
 * decision"). So once the candidates tested so far are certain to include
 * one that fires, on every context, every candidate ranked after them is
 * dead. This walks the candidates in rank order, keeping a box of the
 * contexts on which none of them has fired yet (`_box.ts`); the first
 * candidate after which the box is empty ends the live ones.
 *
 * Three facts are exact and need no box: a rule without `when` always
 * fires; a rule with `when` and `elseEffect` always fires one of its two
 * candidates; and a policy's default fires whenever none of the policy's
 * active rules does (when every such rule has a `when` and no `elseEffect`;
 * otherwise the default never fires at all).
 *
 * O(n log n) in the size of the target's rules: the box is tested for
 * emptiness after 1, 2, 4, … candidates, then the exact place is found by
 * bisection.
 *
 * @module
 */
import type { Candidate, RankedPolicy, RankedRule } from "../engine/rank_target.ts";
import type { ConditionFacts } from "./_condition_facts.ts";
import { Box, Intersection, Widening } from "./_box.ts";

/** A candidate of the target that an active rule or a default can produce. */
export interface CandidateFacts {
  readonly candidate: Candidate;
  readonly policy: RankedPolicy;
  /** null for a policy default. */
  readonly rule: RankedRule | null;
  /** Which outcome of the rule: `onTrue` (its effect or thenEffect), `onFalse` (its elseEffect). */
  readonly branch: "onTrue" | "onFalse" | "default";
  /** False when the candidate can never fire (its own condition rules it out). */
  readonly possible: boolean;
  /** True when, on every context, a candidate ranked before it fires. */
  dead: boolean;
  /** For a dead candidate: the candidate by which one has always fired. */
  deadAfter: CandidateFacts | null;
  /** True when this candidate fires on every context that reaches it (it alone ends the live ones). */
  alwaysFires: boolean;
}

/**
 * The candidates of a target in rank order, each marked possible or not
 * and dead or not.
 *
 * @param factsOf The facts of an active rule's `when` (rules without one are not asked).
 */
export function deadCandidates(
  policies: readonly RankedPolicy[],
  factsOf: (rule: RankedRule) => ConditionFacts,
): CandidateFacts[] {
  const byRank: { facts: CandidateFacts; notFires: Box }[] = [];
  // Per candidate: the candidate after which one of a group surely fired (exact facts).
  const groupEnds: CandidateFacts[] = [];
  for (const policy of policies) {
    const active = policy.rules.filter((rule) => rule.active);
    for (const rule of active) {
      const facts = rule.test === null ? null : factsOf(rule);
      const onTrue = candidate(policy, rule, "onTrue", facts === null || !facts.whenTrue.isEmpty);
      byRank[onTrue.candidate.rank] = {
        facts: onTrue,
        notFires: facts === null ? Box.empty("") : facts.whenFalse,
      };
      if (facts === null) onTrue.alwaysFires = true;
      if (rule.onFalse !== null && facts !== null) {
        const onFalse = candidate(policy, rule, "onFalse", !facts.whenFalse.isEmpty);
        byRank[onFalse.candidate.rank] = { facts: onFalse, notFires: facts.whenTrue };
        groupEnds.push(later(onTrue, onFalse));
      }
    }
    if (policy.fallback === null) continue;
    const canFire = active.every((rule) => rule.test !== null && rule.onFalse === null);
    let possible = canFire;
    let notFires = Box.TOP;
    if (canFire && active.length > 0) {
      const noRuleFires = new Intersection();
      const someRuleFires = new Widening();
      for (const rule of active) {
        noRuleFires.add(factsOf(rule).whenFalse);
        someRuleFires.add(factsOf(rule).whenTrue);
      }
      possible = !noRuleFires.finish().isEmpty;
      notFires = someRuleFires.finish();
    } else if (canFire) {
      notFires = Box.empty(""); // no active rule: the default always fires
    }
    const fallback = candidate(policy, null, "default", possible);
    byRank[policy.fallback.rank] = { facts: fallback, notFires };
    if (canFire) {
      // The default, or one of the rules, fires: surely done after the last of them.
      let last = fallback;
      for (const rule of active) last = later(last, byRank[rule.onTrue.rank]!.facts);
      if (active.length === 0) fallback.alwaysFires = true;
      groupEnds.push(last);
    }
  }
  const steps = byRank.filter((step) => step !== undefined);
  const ordered = steps.map((step) => step.facts);
  const positions = new Map(ordered.map((facts, i) => [facts, i]));
  let end = ordered.length; // index of the first candidate after which one has surely fired
  for (const last of groupEnds) end = Math.min(end, positions.get(last)!);
  const boxEnd = firstEmptyPrefix(steps.map((step) => step.notFires), end);
  if (boxEnd >= 0 && boxEnd < end) end = boxEnd;
  if (end < ordered.length) {
    const cause = ordered[end]!;
    if (steps[end]!.notFires.isEmpty) cause.alwaysFires = true;
    for (let i = end + 1; i < ordered.length; i++) {
      ordered[i]!.dead = true;
      ordered[i]!.deadAfter = cause;
    }
  }
  return ordered;
}

function candidate(
  policy: RankedPolicy,
  rule: RankedRule | null,
  branch: CandidateFacts["branch"],
  possible: boolean,
): CandidateFacts {
  const c = branch === "onTrue"
    ? rule!.onTrue
    : branch === "onFalse"
    ? rule!.onFalse!
    : policy.fallback!;
  return {
    candidate: c,
    policy,
    rule,
    branch,
    possible,
    dead: false,
    deadAfter: null,
    alwaysFires: false,
  };
}

function later(a: CandidateFacts, b: CandidateFacts): CandidateFacts {
  return a.candidate.rank > b.candidate.rank ? a : b;
}

/**
 * The smallest index k below `limit` such that the intersection of
 * `boxes[0..k]` is empty, or -1. Tests the running intersection after 1, 2,
 * 4, … boxes (each test costs the size of the intersection), then bisects
 * the last interval by recomputing prefixes: O(n log n) overall.
 */
function firstEmptyPrefix(boxes: readonly Box[], limit: number): number {
  const running = new Intersection();
  let clean = -1; // the prefix up to here is known not to be empty
  let nextTest = 1;
  for (let i = 0; i < limit; i++) {
    running.add(boxes[i]!);
    if (i + 1 !== nextTest && i !== limit - 1 && !running.knownEmpty) continue;
    if (!running.finish().isEmpty) {
      clean = i;
      nextTest *= 2;
      continue;
    }
    // Empty first somewhere in (clean, i].
    let lo = clean + 1;
    let hi = i;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      const prefix = new Intersection();
      for (let k = 0; k <= mid; k++) prefix.add(boxes[k]!);
      if (prefix.finish().isEmpty) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }
  return -1;
}
