// This module is browser compatible.
/**
 * What a compiled test needs of the context to be true, in the terms an
 * index can look up once per evaluation: its **admission**, a list of
 * {@link Atom}s, each a fact about the value read at one path (it is one of
 * a few constants; it is present; it is absent; it is a number in an
 * interval). A test can be true only when at least one of its atoms holds:
 * a necessary condition, never a sufficient one (the test still decides).
 * Wide programs index their instructions by these atoms
 * (`program_dispatch.ts`), so that an evaluation tests only the
 * instructions some fact of the request admits.
 *
 * How the value is read for each atom (docs/bundle-format.md
 * "Conditions"): a nested path through own properties of plain objects (the
 * path table); a top-level key as the tests read it, `context[key]`, which
 * may be an inherited value: that only admits more (the test then proves
 * ownership and is false), except for {@link ABSENT}, which the index
 * computes from the own value (an inherited value reads as absent).
 *
 * @module
 */
import type { Test } from "../compile_condition.ts";
import { shapeOf } from "../compile_condition.ts";
import {
  AND,
  CONTAINS,
  CONTAINS_ALL,
  CONTAINS_ANY,
  ENDS_WITH,
  EQ,
  EQ_NULL,
  GT,
  GTE,
  IN,
  type InList,
  LIKE,
  LT,
  LTE,
  NOT,
  OR,
  PRESENT as PRESENT_LEAF,
  ROLLOUT,
  SEMVER,
  STARTS_WITH,
} from "../_condition_code.ts";

/** The value is one of `values` (compared as `===`, `0` and `-0` alike; none null or NaN). */
export const ONE_OF = 0;
/** The value is an interval's number (`toComparableNumber`, the ordering tests' reading). */
export const RANGE = 1;
/** The own value is neither absent nor null. */
export const PRESENT = 2;
/** The own value is absent or null. */
export const ABSENT = 3;

/** One fact about the value at a path (see the module's description). */
export interface Atom {
  readonly kind: typeof ONE_OF | typeof RANGE | typeof PRESENT | typeof ABSENT;
  /** The path's slot in the table the test reads through. */
  readonly slot: number;
  /** {@link ONE_OF}: the values. */
  readonly values: readonly unknown[];
  /** {@link RANGE}: the lower bound (-Infinity: none) and whether it is excluded. */
  readonly low: number;
  readonly lowOpen: boolean;
  /** {@link RANGE}: the upper bound (Infinity: none) and whether it is excluded. */
  readonly high: number;
  readonly highOpen: boolean;
}

/** The atoms of a test: it can be true only when one of them holds. */
export type Admission = readonly Atom[];

const admissions = new WeakMap<Test, Admission | null>();

/** The admission of a compiled test, if it has one (see the module's description). */
export function admissionOf(test: Test): Admission | undefined {
  let found = admissions.get(test);
  if (found === undefined) admissions.set(test, found = admission(test, false));
  return found ?? undefined;
}

/** The admission of `test`, or of its negation; null when it has none. */
function admission(test: Test, negated: boolean): Admission | null {
  const shape = shapeOf(test);
  switch (shape.kind) {
    case NOT:
      return admission((shape as { tests: readonly [Test] }).tests[0], !negated);
    case AND:
    case OR: {
      const tests = (shape as { tests: readonly Test[] }).tests;
      // `and`, or a negated `or` (an `and` of the negations): any one child's admission holds.
      // `or`, or a negated `and`: one of every child's atoms holds, so all of them are needed.
      const any = (shape.kind === AND) !== negated;
      return any ? best(tests, negated) : union(tests, negated);
    }
    default: {
      const leaf = shape as { kind: number; slot: number; operand: unknown };
      return negated ? negatedLeaf(leaf.kind, leaf.slot) : leafAdmission(leaf);
    }
  }
}

/** The most selective admission among the children's (by {@link score}); null when none has one. */
function best(tests: readonly Test[], negated: boolean): Admission | null {
  let chosen: Admission | null = null;
  for (const test of tests) {
    const found = admission(test, negated);
    if (found !== null && (chosen === null || score(found) > score(chosen))) chosen = found;
  }
  return chosen;
}

/** Every child's atoms; null when a child has no admission. */
function union(tests: readonly Test[], negated: boolean): Admission | null {
  const atoms: Atom[] = [];
  for (const test of tests) {
    const found = admission(test, negated);
    if (found === null) return null;
    atoms.push(...found);
  }
  return atoms;
}

/**
 * How selective an admission is likely to be: its weakest atom's kind (a
 * constant narrows most, an interval less, absence and presence least).
 */
function score(atoms: Admission): number {
  let worst = 3;
  for (const atom of atoms) {
    const s = atom.kind === ONE_OF ? 3 : atom.kind === RANGE ? 2 : atom.kind === ABSENT ? 1 : 0;
    if (s < worst) worst = s;
  }
  return worst;
}

function atom(kind: Atom["kind"], slot: number): Atom {
  return { kind, slot, values: [], low: -Infinity, lowOpen: true, high: Infinity, highOpen: true };
}

function range(slot: number, low: number, lowOpen: boolean, high: number, highOpen: boolean): Atom {
  return { kind: RANGE, slot, values: [], low, lowOpen, high, highOpen };
}

/** A leaf's admission (kinds and operands of `_condition_code.ts`). */
function leafAdmission(leaf: { kind: number; slot: number; operand: unknown }): Admission | null {
  const { slot, operand } = leaf;
  switch (leaf.kind) {
    case EQ:
      return isLookupValue(operand) ? [{ ...atom(ONE_OF, slot), values: [operand] }] : null;
    case IN: {
      const list = operand as InList;
      const values = [...new Set(list.values.filter(isLookupValue))];
      const atoms: Atom[] = values.length > 0 ? [{ ...atom(ONE_OF, slot), values }] : [];
      // null listed: an absent value matches too.
      if (list.matchesNull) atoms.push(atom(ABSENT, slot));
      return atoms.length > 0 ? atoms : null;
    }
    case EQ_NULL:
      return [atom(ABSENT, slot)];
    case PRESENT_LEAF:
      return [atom(PRESENT, slot)];
    case GT:
      return [range(slot, operand as number, true, Infinity, true)];
    case GTE:
      return [range(slot, operand as number, false, Infinity, true)];
    case LT:
      return [range(slot, -Infinity, true, operand as number, true)];
    case LTE:
      return [range(slot, -Infinity, true, operand as number, false)];
    // The operators added after the specification's are false on an absent or null value
    // (an array, a string or a value that buckets is needed): their values are not looked up.
    case CONTAINS:
    case CONTAINS_ANY:
    case CONTAINS_ALL:
    case STARTS_WITH:
    case ENDS_WITH:
    case LIKE:
    case SEMVER:
    case ROLLOUT:
      return [atom(PRESENT, slot)];
    default:
      // `neq` (true for almost every value) and a leaf false whatever the context.
      return null;
  }
}

/** The admission of a negated leaf: only presence and absence negate into one. */
function negatedLeaf(kind: number, slot: number): Admission | null {
  if (kind === PRESENT_LEAF) return [atom(ABSENT, slot)];
  if (kind === EQ_NULL) return [atom(PRESENT, slot)];
  return null;
}

/** A value an index can look up: a primitive that `===` can match (not null, not NaN). */
function isLookupValue(value: unknown): boolean {
  return typeof value === "string" || typeof value === "boolean" ||
    (typeof value === "number" && value === value);
}
