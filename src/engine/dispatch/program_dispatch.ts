// This module is browser compatible.
/**
 * Dispatch on what the context holds: a program (`../_target_program.ts`)
 * whose tests need the values at a few paths to be something in particular
 * (one of a few constants, a number in an interval, present, absent) gets an
 * index from those facts to the instructions that can be true, so that an
 * evaluation reads each such path once, looks up what its value admits, and
 * runs only the instructions it can reach and the index admits, instead of
 * every test in rank order.
 *
 * An instruction is indexed when its test has an admission
 * (`admission.ts`: facts of which one holds whenever the test is
 * true; `eq`, `in`, ordering tests, `exists` and `eq null`, `not` of those
 * last two, the operators added after the specification's (present),
 * `and` by its most selective child, `or` by all of its children) on paths the
 * program indexes, and a false test moves on to the next instruction (or,
 * for the last one, to "no candidate"). An instruction the index does not
 * admit has a false test, so skipping it is what running it would have done:
 * the winner is the same, by construction (and a property test compares both
 * on random wide targets, `tests/engine/program_dispatch_test.ts`). Every
 * other instruction (`neq`, an unconditional candidate, a test on a path
 * the program does not index) runs as before.
 *
 * Per indexed path the index keeps: a map from each constant to the
 * instructions it admits; the instructions admitted when the value is
 * present, and when it is absent; and the ordering tests' intervals, as
 * sorted bounds (`dispatch/range_groups.ts`: one binary search admits the
 * tests whose interval holds the number read).
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
import type { Test } from "../compile_condition.ts";
import { ABSENT, type Admission, admissionOf, ONE_OF, PRESENT } from "./admission.ts";
import { admittedAt, type Interval, type RangeGroup, rangeGroups } from "./range_groups.ts";
import { withSharedTests } from "./shared_tests.ts";
import { type PathTable, readPath } from "../_path_table.ts";
import { NO_CANDIDATE } from "../_program_layout.ts";
import { toComparableNumber } from "../../_internal/guards.ts";

/** A program gets an index when at least this many of its instructions are indexed. */
const MIN_INDEXED = 4;
/** A path is indexed when at least this many instructions of the program test it. */
const MIN_PER_PATH = 2;
/** At most this many paths per program are looked up. */
const MAX_PATHS = 8;

const NONE: Int32Array = new Int32Array(0);

/** What the index keeps for one path (see the module's description). */
export class IndexedPath {
  constructor(
    /** Its slot in the path table. */
    readonly slot: number,
    /** Its top-level key, or null for a nested path (read through the table). */
    readonly key: string | null,
    /** Value → the instructions it admits; null when no test names a constant. */
    readonly oneOf: Map<unknown, Int32Array> | null,
    /** The instructions admitted when the value is present (not absent or null). */
    readonly present: Int32Array,
    /** The instructions admitted when the value is absent or null. */
    readonly absent: Int32Array,
    /** The ordering tests' groups; empty when there are none. */
    readonly ranges: readonly RangeGroup[],
  ) {}
}

/** The index of one program (see the module's description). */
export class Dispatch {
  constructor(
    /**
     * Per instruction, its test (the first's place in the code is this
     * index's), with the parts that instructions run whatever the lookups
     * give share remembered (`dispatch/shared_tests.ts`).
     */
    readonly tests: readonly (Test | null)[],
    /** The numbers of the instructions that run whatever the lookups give, ascending. */
    readonly always: Int32Array,
    /** The indexed paths. */
    readonly paths: readonly IndexedPath[],
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
  readonly #made = new Map<string, Dispatch | null>();

  constructor(paths: PathTable) {
    this.#paths = paths;
  }

  /** Links the program just emitted at `start` in `code` (call once per program, in order). */
  link(code: unknown[], start: number): void {
    const tests: (Test | null)[] = [];
    const indexable: boolean[] = [];
    let end = Infinity; // where the records begin: the lowest return
    for (let pc = start; pc < end; pc += 4) {
      const test = code[pc] as Test | null;
      const ifTrue = code[pc + 2] as number;
      const ifFalse = code[pc + 3] as number;
      if (ifTrue < NO_CANDIDATE) end = Math.min(end, -ifTrue - 2);
      if (ifFalse < NO_CANDIDATE) end = Math.min(end, -ifFalse - 2);
      tests.push(test);
      // Indexed only when a false test moves on to the next instruction, or ends the program
      // (only the last instruction has NO_CANDIDATE there, and `end` is known by then: the
      // first step's instructions come first and return the first record).
      indexable.push(
        test !== null && (ifFalse === pc + 4 || (ifFalse === NO_CANDIDATE && pc + 4 >= end)),
      );
      if (test === null) break; // an unconditional instruction is the last
    }
    if (tests.length < MIN_INDEXED) return;
    let signature = "";
    for (let i = 0; i < tests.length; i++) {
      const test = tests[i]!;
      signature += test === null ? "-" : `${this.#idOf(test)}${indexable[i] ? "*" : ""},`;
    }
    let dispatch = this.#made.get(signature);
    if (dispatch === undefined) {
      const admissions = tests.map((test, i) => indexable[i] ? admissionOf(test!) : undefined);
      dispatch = this.#make(tests, admissions);
      this.#made.set(signature, dispatch);
    }
    if (dispatch !== null) code[start] = dispatch;
  }

  /** The number of `test`, numbering it the first time. */
  #idOf(test: Test): number {
    let id = this.#ids.get(test);
    if (id === undefined) this.#ids.set(test, id = this.#ids.size);
    return id;
  }

  /** The index of a program's instructions, or null when too few would be indexed. */
  #make(tests: (Test | null)[], admissions: (Admission | undefined)[]): Dispatch | null {
    // The paths most instructions' admissions read, each read by at least two.
    const counts = new Map<number, number>();
    for (const atoms of admissions) {
      if (atoms === undefined) continue;
      for (const slot of new Set(atoms.map((a) => a.slot))) {
        counts.set(slot, (counts.get(slot) ?? 0) + 1);
      }
    }
    const slots = [...counts].filter(([, n]) => n >= MIN_PER_PATH)
      .sort((a, b) => b[1] - a[1] || a[0] - b[0]).slice(0, MAX_PATHS).map(([slot]) => slot);
    const chosen = new Set(slots);
    // An instruction is indexed when every atom of its admission is on a chosen path.
    const indexed = admissions.map((atoms) =>
      atoms !== undefined && atoms.every((a) => chosen.has(a.slot)) ? atoms : undefined
    );
    if (indexed.filter((atoms) => atoms !== undefined).length < MIN_INDEXED) return null;
    const always: number[] = [];
    const oneOf = slots.map(() => new Map<unknown, number[]>());
    const present = slots.map((): number[] => []);
    const absent = slots.map((): number[] => []);
    const intervals = slots.map((): Interval[] => []);
    const add = (list: number[], i: number) => {
      if (list.at(-1) !== i) list.push(i);
    };
    for (let i = 0; i < tests.length; i++) {
      const atoms = indexed[i];
      if (atoms === undefined) {
        always.push(i);
        continue;
      }
      for (const a of atoms) {
        const s = slots.indexOf(a.slot);
        if (a.kind === ONE_OF) {
          for (const value of a.values) {
            // Map keys are SameValueZero: -0 finds 0, as `===` does.
            const list = oneOf[s]!.get(value);
            if (list === undefined) oneOf[s]!.set(value, [i]);
            else add(list, i);
          }
        } else if (a.kind === PRESENT) {
          add(present[s]!, i);
        } else if (a.kind === ABSENT) {
          add(absent[s]!, i);
        } else {
          intervals[s]!.push({ instruction: i, ...a });
        }
      }
    }
    const table = this.#paths;
    return new Dispatch(
      withSharedTests(tests, always, table),
      Int32Array.from(always),
      slots.map((slot, s) =>
        new IndexedPath(
          slot,
          table.parents[slot]! < 0 ? table.keys[slot]! : null,
          oneOf[s]!.size === 0
            ? null
            : new Map([...oneOf[s]!].map(([value, list]) => [value, Int32Array.from(list)])),
          Int32Array.from(present[s]!),
          Int32Array.from(absent[s]!),
          rangeGroups(intervals[s]!),
        )
      ),
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
  const found = new Admitted();
  admit(found, dispatch.paths, paths, context);
  const always = dispatch.always;
  const { first, more } = found;
  // Where each list of `more` is read next.
  const cursors = more === null ? null : new Int32Array(more.length);
  let a = 0; // next in `always`
  let b = 0; // next in `first`
  let tested = 0; // memo bits of the tests that have run
  let passed = 0; // memo bits of the tests that were true
  let from = 0; // the instruction control has reached
  for (;;) {
    // The next instruction at or after `from` that runs: in `always` or admitted by a list.
    while (a < always.length && always[a]! < from) a++;
    while (b < first.length && first[b]! < from) b++;
    let i = a < always.length ? always[a]! : NO_INSTRUCTION;
    if (b < first.length && first[b]! < i) i = first[b]!;
    if (more !== null) {
      for (let k = 0; k < more.length; k++) {
        const list = more[k]!;
        let c = cursors![k]!;
        while (c < list.length && list[c]! < from) c++;
        cursors![k] = c;
        if (c < list.length && list[c]! < i) i = list[c]!;
      }
    }
    // Every instruction left is false and moves on: past the last, no candidate.
    if (i === NO_INSTRUCTION) return -1;
    const pc = start + i * 4;
    const test = dispatch.tests[i] as Test | null;
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

/** Above every instruction number. */
const NO_INSTRUCTION = 0x7fffffff;

/** The lists of instructions an evaluation's lookups found: the first, then the others. */
class Admitted {
  first: Int32Array = NONE;
  more: Int32Array[] | null = null;

  add(list: Int32Array): void {
    if (list.length === 0) return;
    if (this.first.length === 0) this.first = list;
    else (this.more ??= []).push(list);
  }
}

/**
 * Finds the instructions the values at the indexed paths admit: every path
 * read once, its facts looked up. An instruction may be in several lists.
 */
function admit(
  found: Admitted,
  indexed: readonly IndexedPath[],
  paths: PathTable,
  context: Record<string, unknown>,
): void {
  for (let s = 0; s < indexed.length; s++) {
    const path = indexed[s]!;
    const key = path.key;
    // A top-level key is read as its tests read it; they prove ownership themselves.
    const value = key !== null ? context[key] : readPath(paths, path.slot, context);
    if (path.oneOf !== null) {
      const list = path.oneOf.get(value);
      if (list !== undefined) found.add(list);
    }
    const { present, absent } = path;
    if (present.length + absent.length > 0) {
      // Absent as the tests read it: an inherited value is absent.
      const isAbsent = value == null ||
        (key !== null && absent.length > 0 && !Object.hasOwn(context, key));
      found.add(isAbsent ? absent : present);
    }
    const ranges = path.ranges;
    if (ranges.length === 0) continue;
    const x = toComparableNumber(value);
    if (x !== x) continue; // not a number: no interval holds it
    for (let g = 0; g < ranges.length; g++) found.add(admittedAt(ranges[g]!, x));
  }
}
