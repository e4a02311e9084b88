// This module is browser compatible.
/**
 * Target programs: what `evaluate` runs, built once at compile time from
 * each target's ranked candidates (`_bundle_builder.ts` emits them). Every program of a bundle lives in one
 * shared array (the bundle's "code"); the target index maps a target to the
 * offset where its program starts. An evaluation therefore reads one small
 * contiguous region of memory after the lookup: no per-target objects.
 *
 * A program is a list of instructions of four slots each:
 *
 *     test, memoBit, ifTrue, ifFalse
 *
 * followed by the records of the candidates it can return. `test` is a
 * compiled condition, or null for "true"; once the program is linked
 * (`dispatch/program_dispatch.ts`, right after it is emitted) the first one may be
 * replaced by the program's index. `ifTrue` and `ifFalse` each say
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
 * A candidate record is `RECORD_SIZE` (`_program_layout.ts`) slots: type, reason, policyKey,
 * ruleId, and three descriptor slots (throttle: limit, windowSeconds, key;
 * kill_switch: service, reason or null; custom: value, whether it parses as
 * JSON; null otherwise). Traces keep records in the same form
 * (`_trace_plan.ts`). The constants live in `_program_layout.ts`.
 *
 * @module
 */
import { parseJson } from "./parse_json.ts";
import type { Candidate } from "./rank_target.ts";
import type { Effect, EffectType } from "./types.ts";
import type { PathTable } from "./_path_table.ts";
import { type Dispatch, runDispatched } from "./dispatch/program_dispatch.ts";
import type { Test } from "./compile_condition.ts";
import { type Code, NO_CANDIDATE } from "./_program_layout.ts";

/** Appends the record of a candidate (what its decision holds) to `code`. */
export function pushRecord(code: unknown[], c: Candidate): void {
  pushDecisionRecord(code, c.type, c.reason, c.policyKey, c.ruleId, c.effect, c.value);
}

/**
 * Appends a decision record: its type, reason, policy key and rule id, and
 * the descriptor of its type, read from `source` (an effect or a policy's
 * `defaults`), or the custom `value`.
 */
export function pushDecisionRecord(
  code: unknown[],
  type: EffectType,
  reason: "rule" | "default",
  policyKey: string,
  ruleId: string,
  source: Pick<Effect, "throttle" | "killSwitch">,
  value: string | null,
): void {
  code.push(type, reason, policyKey, ruleId);
  if (type === "throttle") {
    const t = source.throttle!;
    code.push(t.limit, t.windowSeconds, t.key);
  } else if (type === "kill_switch") {
    const ks = source.killSwitch!;
    code.push(ks.service, ks.reason ?? null, null);
  } else if (value !== null) {
    code.push(value, parsesAsJson(value), null);
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
    // A program with an index (`dispatch/program_dispatch.ts`) has it in place of its first test, the
    // only object there (a test is a function or null): cheaper to tell than `instanceof`.
    const head = code[start];
    return typeof head === "object" && head !== null
      ? runDispatched(head as Dispatch, code, paths, start, context)
      : runInstructions(code, start, context);
  } finally {
    paths.close(mark);
  }
}

function runInstructions(code: Code, start: number, context: Record<string, unknown>): number {
  let tested = 0; // memo bits of the tests that have run
  let passed = 0; // memo bits of the tests that were true
  let pc = start;
  for (;;) {
    const test = code[pc] as Test | null;
    let result = true;
    if (test !== null) {
      const bit = code[pc + 1] as number;
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
    const next = code[result ? pc + 2 : pc + 3] as number;
    if (next >= 0) {
      pc = next;
    } else {
      return next === NO_CANDIDATE ? -1 : -next - 2;
    }
  }
}
