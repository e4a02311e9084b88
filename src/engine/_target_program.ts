// This module is browser compatible.
/**
 * Target programs: what `evaluate` runs, built once at compile time from
 * each target's ranked candidates. Every program of a bundle lives in one
 * shared array (the bundle's "code"); the target index maps a target to the
 * offset where its program starts. An evaluation therefore reads one small
 * contiguous region of memory after the lookup: no per-target objects.
 *
 * A program is a list of instructions of four slots each:
 *
 *     test, memoBit, ifTrue, ifFalse
 *
 * followed by the records of the candidates it can return. `test` is a
 * compiled condition as it is emitted, or null for "true"; once the program
 * is linked (`_program_dispatch.ts`, right after it is emitted) it is the
 * offset of the condition's code in the same array (`_condition_code.ts`),
 * and the first one may be replaced by the program's index on `eq`/`in`. `ifTrue` and `ifFalse` each say
 * what comes next: a number >= 0 is the offset of the next instruction,
 * {@link NO_CANDIDATE} means no candidate fires, and a number <= -2 returns
 * the candidate whose record is at offset `-n - 2`. Instructions test the
 * candidates in rank order, so the first candidate returned is the one with
 * the lowest rank that fires: the winner. Evaluation stops there, and
 * nothing after an unconditional candidate is emitted at all.
 *
 * A rule's test can be needed by more than one instruction (its `elseEffect`,
 * its policy's default). Such a test gets a `memoBit` (one of 30), and its
 * result is kept in two integers for the rest of the evaluation; `memoBit` 0
 * means "just run the test" (a pure function of the context).
 *
 * A candidate record is {@link RECORD_SIZE} slots: type, reason, policyKey,
 * ruleId, and three descriptor slots (throttle: limit, windowSeconds, key;
 * kill_switch: service, reason or null; custom: value, whether it parses as
 * JSON; null otherwise). Traces keep records in the same form
 * (`_trace_plan.ts`).
 *
 * @module
 */
import { parseJson } from "./parse_json.ts";
import type { Candidate, RankedPolicy, RankedRule } from "./rank_target.ts";
import type { PathTable } from "./_path_table.ts";
import { Dispatch, runDispatched } from "./_program_dispatch.ts";
import { runCondition } from "./_condition_code.ts";

/** The shared array holding every program and candidate record of a bundle. */
export type Code = readonly unknown[];

/** `ifTrue`/`ifFalse` value meaning that no candidate fires. */
export const NO_CANDIDATE = -1;

/** Slots of a candidate record. */
export const RECORD_SIZE = 7;

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

/**
 * Appends the program of a target, and its candidate records, to `code`;
 * returns the offset where the program starts.
 */
export function emitProgram(code: unknown[], policies: readonly RankedPolicy[]): number {
  const steps = reachableSteps(policies);
  const memoBits = assignMemoBits(steps);
  const start = code.length;
  let instructions = 0;
  for (const step of steps) instructions += isUnconditional(step) ? 1 : step.rules.length;
  if (instructions === 0) {
    code.push(null, 0, NO_CANDIDATE, NO_CANDIDATE);
    return start;
  }
  const recordsAt = start + instructions * 4;
  const returns = (stepIndex: number) => -(recordsAt + stepIndex * RECORD_SIZE) - 2;
  steps.forEach((step, s) => {
    const { rules } = step;
    if (isUnconditional(step)) {
      code.push(null, 0, returns(s), returns(s)); // always the last step
      return;
    }
    const end = code.length + rules.length * 4;
    const next = end === recordsAt ? NO_CANDIDATE : end;
    if (step.firesWhen === "true") {
      code.push(rules[0]!.test, memoBits?.get(rules[0]!) ?? 0, returns(s), next);
      return;
    }
    // Every test false, in turn: any true test skips to the next step.
    rules.forEach((rule, i) => {
      const last = i === rules.length - 1;
      code.push(rule.test, memoBits?.get(rule) ?? 0, next, last ? returns(s) : code.length + 4);
    });
  });
  for (const { candidate } of steps) pushRecord(code, candidate);
  return start;
}

/** Appends the record of a candidate (what its decision holds) to `code`. */
export function pushRecord(code: unknown[], c: Candidate): void {
  code.push(c.type, c.reason, c.policyKey, c.ruleId);
  if (c.type === "throttle") {
    const t = c.effect.throttle!;
    code.push(t.limit, t.windowSeconds, t.key);
  } else if (c.type === "kill_switch") {
    const ks = c.effect.killSwitch!;
    code.push(ks.service, ks.reason ?? null, null);
  } else if (c.value !== null) {
    code.push(c.value, parsesAsJson(c.value), null);
  } else {
    code.push(null, null, null);
  }
}

function parsesAsJson(text: string): boolean {
  try {
    parseJson(text);
    return true;
  } catch {
    return false;
  }
}

function isUnconditional(step: Step): boolean {
  return step.rules.length === 0 || step.rules[0]!.test === null;
}

/**
 * The steps in rank order, up to the first unconditional one. Defaults that
 * can never fire (a rule of their policy always fires) are left out.
 */
function reachableSteps(policies: readonly RankedPolicy[]): Step[] {
  // Ranks are 0..n-1 over every candidate of the target, disabled rules' too:
  // placing steps at their rank sorts them (leaving holes).
  const byRank: Step[] = [];
  for (const policy of policies) {
    let defaultCanFire = true;
    for (const rule of policy.rules) {
      if (!rule.active) continue;
      byRank[rule.onTrue.rank] = { candidate: rule.onTrue, firesWhen: "true", rules: [rule] };
      if (rule.onFalse !== null) {
        byRank[rule.onFalse.rank] = { candidate: rule.onFalse, firesWhen: "false", rules: [rule] };
      }
      if (rule.test === null || rule.onFalse !== null) defaultCanFire = false;
    }
    const fallback = policy.fallback;
    if (fallback !== null && defaultCanFire) {
      const active = policy.rules.filter((rule) => rule.active);
      byRank[fallback.rank] = { candidate: fallback, firesWhen: "false", rules: active };
    }
  }
  const steps: Step[] = [];
  for (const step of byRank) {
    if (step === undefined) continue;
    steps.push(step);
    if (isUnconditional(step)) break;
  }
  return steps;
}

/**
 * A memo bit for each rule whose test more than one step needs, while bits
 * last; null when no test is needed twice (the usual case).
 */
function assignMemoBits(steps: Step[]): Map<RankedRule, number> | null {
  // Only an elseEffect or a default can make a second step need a rule's test.
  if (steps.every((step) => step.firesWhen === "true")) return null;
  const uses = new Map<RankedRule, number>();
  let shared = false;
  for (const step of steps) {
    for (const rule of step.rules) {
      const count = (uses.get(rule) ?? 0) + 1;
      uses.set(rule, count);
      if (count > 1) shared = true;
    }
  }
  if (!shared) return null;
  const bits = new Map<RankedRule, number>();
  for (const [rule, count] of uses) {
    if (count > 1 && rule.test !== null && bits.size < MEMO_BITS) bits.set(rule, 1 << bits.size);
  }
  return bits;
}

/**
 * Runs the program at `start` for a context, in one evaluation of `paths`
 * (each path read once): the offset of the winning candidate's record, or
 * -1 when no candidate fires.
 */
export function runProgram(
  code: Code,
  paths: PathTable,
  start: number,
  context: Record<string, unknown>,
): number {
  const mark = paths.open();
  try {
    // A program with an index (`_program_dispatch.ts`) has it in place of its first test.
    const head = code[start];
    return head instanceof Dispatch
      ? runDispatched(head, code, paths, start, context)
      : runInstructions(code, paths, start, context);
  } finally {
    paths.close(mark);
  }
}

function runInstructions(
  code: Code,
  paths: PathTable,
  start: number,
  context: Record<string, unknown>,
): number {
  let tested = 0; // memo bits of the tests that have run
  let passed = 0; // memo bits of the tests that were true
  let pc = start;
  for (;;) {
    // Once linked (`_program_dispatch.ts`): where the condition is laid out in the code.
    const test = code[pc] as number | null;
    let result = true;
    if (test !== null) {
      const bit = code[pc + 1] as number;
      if (bit === 0) {
        result = runCondition(code, test, paths, context);
      } else if ((tested & bit) !== 0) {
        result = (passed & bit) !== 0;
      } else {
        result = runCondition(code, test, paths, context);
        tested |= bit;
        if (result) passed |= bit;
      }
    }
    const next = code[result ? pc + 2 : pc + 3] as number;
    if (next >= 0) {
      pc = next;
    } else {
      return next === NO_CANDIDATE ? -1 : -next - 2;
    }
  }
}
