// This module is browser compatible.
/**
 * The program of a target: what `evaluate` runs, built once at compile time
 * from the target's ranked candidates.
 *
 * A program is a flat array of instructions of four slots each:
 *
 *     test, memoBit, ifTrue, ifFalse
 *
 * `test` is a compiled condition, or null for "true". `ifTrue` and `ifFalse`
 * are each either a candidate (the decision is made: return it) or a number
 * (the offset of the next instruction; the program's length means "no
 * candidate"). Instructions test candidates in rank order, so the first
 * candidate reached is the one with the lowest rank that fires: the winner.
 * Evaluation stops there, and nothing after an unconditional candidate is
 * emitted at all.
 *
 * A rule's test can be needed by more than one instruction (its `elseEffect`,
 * its policy's default). Such a test gets a `memoBit` (one of 30), and its
 * result is kept in two integers for the rest of the evaluation; `memoBit` 0
 * means "just run the test" (a pure function of the context).
 *
 * @module
 */
import type { Test } from "./_compile_condition.ts";
import type { Candidate, RankedPolicy, RankedRule } from "./_rank_target.ts";

/** A target's compiled program (see the module documentation). */
export type TargetProgram = readonly unknown[];

/** How many rule tests a program can remember results of (small integers only). */
const MEMO_BITS = 30;

/** A candidate with the rule tests it depends on. */
interface Step {
  candidate: Candidate;
  /**
   * "true": fires when the one rule's test is true, or always when it has none.
   * "false": fires when every listed rule's test is false (an `elseEffect`,
   * or a default whose policy's active rules all have tests and no `elseEffect`).
   */
  firesWhen: "true" | "false";
  rules: RankedRule[];
}

/** Builds the program of a target from its ranked policies. */
export function buildProgram(policies: readonly RankedPolicy[]): TargetProgram {
  const steps = reachableSteps(policies);
  const memoBits = assignMemoBits(steps);
  const program: unknown[] = [];
  for (const step of steps) {
    const { candidate, rules } = step;
    if (rules.length === 0 || rules[0]!.test === null) {
      program.push(null, 0, candidate, candidate); // unconditional: always the last step
      break;
    }
    const end = program.length + rules.length * 4;
    if (step.firesWhen === "true") {
      program.push(rules[0]!.test, memoBits.get(rules[0]!) ?? 0, candidate, end);
      continue;
    }
    // Every test false, in turn: any true test skips to the next step.
    rules.forEach((rule, i) => {
      const last = i === rules.length - 1;
      program.push(rule.test, memoBits.get(rule) ?? 0, end, last ? candidate : program.length + 4);
    });
  }
  return program;
}

/**
 * The steps in rank order, up to the first unconditional one. Defaults that
 * can never fire (a rule of their policy always fires) are left out.
 */
function reachableSteps(policies: readonly RankedPolicy[]): Step[] {
  const steps: Step[] = [];
  for (const policy of policies) {
    const active = policy.rules.filter((rule) => rule.active);
    for (const rule of active) {
      steps.push({ candidate: rule.onTrue, firesWhen: "true", rules: [rule] });
      if (rule.onFalse !== null) {
        steps.push({ candidate: rule.onFalse, firesWhen: "false", rules: [rule] });
      }
    }
    const fallback = policy.fallback;
    if (fallback !== null && active.every((r) => r.test !== null && r.onFalse === null)) {
      steps.push({ candidate: fallback, firesWhen: "false", rules: active });
    }
  }
  steps.sort((a, b) => a.candidate.rank - b.candidate.rank);
  const unconditional = steps.findIndex((s) => s.rules.length === 0 || s.rules[0]!.test === null);
  return unconditional < 0 ? steps : steps.slice(0, unconditional + 1);
}

/** A memo bit for each rule whose test more than one step needs, while bits last. */
function assignMemoBits(steps: Step[]): Map<RankedRule, number> {
  const uses = new Map<RankedRule, number>();
  for (const step of steps) {
    for (const rule of step.rules) uses.set(rule, (uses.get(rule) ?? 0) + 1);
  }
  const bits = new Map<RankedRule, number>();
  for (const [rule, count] of uses) {
    if (count > 1 && rule.test !== null && bits.size < MEMO_BITS) bits.set(rule, 1 << bits.size);
  }
  return bits;
}

/**
 * The winning candidate of a target's program for a context, or null when
 * no candidate fires.
 */
export function runProgram(
  program: TargetProgram,
  context: Record<string, unknown>,
): Candidate | null {
  let tested = 0; // memo bits of the tests that have run
  let passed = 0; // memo bits of the tests that were true
  const length = program.length;
  let pc = 0;
  while (pc < length) {
    const test = program[pc] as Test | null;
    let result = true;
    if (test !== null) {
      const bit = program[pc + 1] as number;
      if (bit === 0) {
        result = test(context);
      } else if ((tested & bit) !== 0) {
        result = (passed & bit) !== 0;
      } else {
        result = test(context);
        tested |= bit;
        if (result) passed |= bit;
      }
    }
    const next = program[result ? pc + 2 : pc + 3];
    if (typeof next !== "number") return next as Candidate;
    pc = next;
  }
  return null;
}
