// This module is browser compatible.
/**
 * Dispatch on `eq` and `in`: a program (`_target_program.ts`) whose tests
 * compare paths with constants gets an index from those constants to the
 * instructions that can be true, so that an evaluation looks each such
 * path up once and runs only the instructions it can reach and the index
 * admits, instead of every test in rank order.
 *
 * An instruction is indexed when its test has a {@link Guard} (a value its
 * path must hold for the test to be true: `eq`, `in`, an `and` with one, an
 * `or` whose every child has one on the same path) and a false test moves on
 * to the next instruction (or, for the last one, to "no candidate"). An
 * instruction the index does not admit has a false test, so skipping it is
 * what running it would have done: the winner is the same, by construction
 * (and a property test compares both on random wide targets,
 * `tests/engine/program_dispatch_test.ts`). Every other instruction (an
 * ordering test, `exists`, `not`, an unconditional candidate) runs as before.
 *
 * The index replaces the first test of its program in the code (it keeps
 * that test): `runProgram` sees it there and runs the program through it.
 * Programs with the same tests in the same order (targets with identical
 * rules) share one index. Programs with fewer than
 * {@link MIN_INDEXED} indexed instructions get none: a lookup costs about
 * what a test does.
 *
 * @module
 */
import { type Guard, guardOf, type Test } from "./compile_condition.ts";
import { type PathTable, readPath } from "./_path_table.ts";
import { NO_CANDIDATE } from "./_target_program.ts";

/** A program gets an index when at least this many of its instructions are indexed. */
const MIN_INDEXED = 4;
/** A path is indexed when at least this many instructions of the program test it. */
const MIN_PER_PATH = 2;
/** At most this many paths per program are looked up. */
const MAX_PATHS = 8;

const NONE: Int32Array = new Int32Array(0);

/** The index of one program (see the module's description). */
export class Dispatch {
  constructor(
    /** The condition of the program's first instruction, whose place this index takes. */
    readonly first: Test | null,
    /** The numbers of the instructions that run whatever the lookups give, ascending. */
    readonly always: Int32Array,
    /** Per indexed path: its slot. */
    readonly slots: Int32Array,
    /** Per indexed path: its top-level key, or null for a nested path (read through the table). */
    readonly keys: readonly (string | null)[],
    /** Per indexed path: value → the numbers of the instructions it admits, ascending. */
    readonly admits: readonly Map<unknown, Int32Array>[],
  ) {}
}

/**
 * Links the programs of a bundle as they are emitted: gives a program an
 * index when it is worth it, one per distinct list of tests.
 */
export class ProgramLinker {
  readonly #paths: PathTable;
  /** A number per distinct test, for the signatures of lists of tests. */
  readonly #ids = new Map<Test | null, number>();
  readonly #made = new Map<string, Dispatch>();

  constructor(paths: PathTable) {
    this.#paths = paths;
  }

  /** Links the program just emitted at `start` in `code` (call once per program, in order). */
  link(code: unknown[], start: number): void {
    const tests: (Test | null)[] = [];
    const guards: (Guard | undefined)[] = [];
    let end = Infinity; // where the records begin: the lowest return
    for (let pc = start; pc < end; pc += 4) {
      const test = code[pc] as Test | null;
      const ifTrue = code[pc + 2] as number;
      const ifFalse = code[pc + 3] as number;
      if (ifTrue < NO_CANDIDATE) end = Math.min(end, -ifTrue - 2);
      if (ifFalse < NO_CANDIDATE) end = Math.min(end, -ifFalse - 2);
      if (test === null) {
        tests.push(null);
        guards.push(undefined);
        break; // an unconditional instruction is the last
      }
      tests.push(test);
      // Indexed only when a false test moves on to the next instruction, or ends the program
      // (only the last instruction has NO_CANDIDATE there, and `end` is known by then: the
      // first step's instructions come first and return the first record).
      const fallsThrough = ifFalse === pc + 4 || (ifFalse === NO_CANDIDATE && pc + 4 >= end);
      guards.push(fallsThrough ? guardOf(test) : undefined);
    }
    const counts = new Map<number, number>();
    for (const guard of guards) {
      if (guard !== undefined) counts.set(guard.slot, (counts.get(guard.slot) ?? 0) + 1);
    }
    const slots = [...counts].filter(([, n]) => n >= MIN_PER_PATH)
      .sort((a, b) => b[1] - a[1] || a[0] - b[0]).slice(0, MAX_PATHS).map(([slot]) => slot);
    let indexed = 0;
    for (const slot of slots) indexed += counts.get(slot)!;
    if (indexed < MIN_INDEXED) return;
    const chosen = new Set(slots);
    let signature = "";
    for (let i = 0; i < tests.length; i++) {
      const id = this.#idOf(tests[i]!);
      signature += chosen.has(guards[i]?.slot ?? -1) ? `${id}*,` : `${id},`;
    }
    let dispatch = this.#made.get(signature);
    if (dispatch === undefined) {
      dispatch = this.#make(tests, guards, slots);
      this.#made.set(signature, dispatch);
    }
    code[start] = dispatch;
  }

  /** The number of `test`, numbering it the first time. */
  #idOf(test: Test | null): number {
    let id = this.#ids.get(test);
    if (id === undefined) this.#ids.set(test, id = this.#ids.size);
    return id;
  }

  #make(tests: (Test | null)[], guards: (Guard | undefined)[], slots: number[]): Dispatch {
    const paths = this.#paths;
    const always: number[] = [];
    const admits = slots.map(() => new Map<unknown, number[]>());
    for (let i = 0; i < tests.length; i++) {
      const guard = guards[i];
      const s = guard === undefined ? -1 : slots.indexOf(guard.slot);
      if (s < 0) {
        always.push(i);
        continue;
      }
      for (const value of guard!.values) {
        // Map keys are SameValueZero: -0 finds 0, as `===` does.
        const list = admits[s]!.get(value);
        if (list === undefined) admits[s]!.set(value, [i]);
        else if (list.at(-1) !== i) list.push(i);
      }
    }
    return new Dispatch(
      tests[0]!,
      Int32Array.from(always),
      Int32Array.from(slots),
      slots.map((slot) => paths.parents[slot]! < 0 ? paths.keys[slot]! : null),
      admits.map((map) => new Map([...map].map(([value, list]) => [value, Int32Array.from(list)]))),
    );
  }
}

/**
 * Runs the program at `start` through its index, in an evaluation of
 * `paths` already open: the offset of the winning candidate's record, or -1.
 * The same as running every instruction in turn (`runInstructions`), but an
 * instruction the lookups do not admit is taken as false without running.
 */
export function runDispatched(
  dispatch: Dispatch,
  code: readonly unknown[],
  paths: PathTable,
  start: number,
  context: Record<string, unknown>,
): number {
  const { slots, keys, admits } = dispatch;
  // The admitted instructions of every path, merged (paths admit disjoint instructions).
  let admitted: Int32Array = NONE;
  for (let s = 0; s < slots.length; s++) {
    const key = keys[s]!;
    // A top-level key is read as its tests read it; they prove ownership themselves.
    const value = key !== null ? context[key] : readPath(paths, slots[s]!, context);
    const found = admits[s]!.get(value);
    if (found !== undefined) admitted = admitted.length === 0 ? found : merge(admitted, found);
  }
  const always = dispatch.always;
  let a = 0; // next in `always`
  let b = 0; // next in `admitted`
  let tested = 0; // memo bits of the tests that have run
  let passed = 0; // memo bits of the tests that were true
  let from = 0; // the instruction control has reached
  for (;;) {
    while (a < always.length && always[a]! < from) a++;
    while (b < admitted.length && admitted[b]! < from) b++;
    let i: number;
    if (a < always.length) {
      i = always[a]!;
      if (b < admitted.length && admitted[b]! < i) i = admitted[b]!;
    } else if (b < admitted.length) {
      i = admitted[b]!;
    } else {
      // Every instruction left is false and moves on: past the last, no candidate.
      return -1;
    }
    const pc = start + i * 4;
    const test = i === 0 ? dispatch.first : code[pc] as Test | null;
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
    if (next < 0) return next === NO_CANDIDATE ? -1 : -next - 2;
    from = (next - start) >> 2;
  }
}

/** Two ascending lists of distinct numbers, merged. */
function merge(x: Int32Array, y: Int32Array): Int32Array {
  const out = new Int32Array(x.length + y.length);
  let i = 0, j = 0, k = 0;
  while (i < x.length && j < y.length) out[k++] = x[i]! < y[j]! ? x[i++]! : y[j++]!;
  while (i < x.length) out[k++] = x[i++]!;
  while (j < y.length) out[k++] = y[j++]!;
  return out;
}
