// This module is browser compatible.
/**
 * Condition code: what a compiled condition is made of. `compile_condition.ts`
 * turns a condition's tree into a {@link Shape} (a leaf: its kind, the path it
 * reads, its operand; or `and`, `or`, `not` of shapes), and each shape into a
 * closure: a leaf into one specialised to its kind by {@link leafTest}, which
 * holds the one definition of how conditions compare (docs/bundle-format.md
 * "Conditions"); `and`, `or`, `not` into closures over their children's.
 * Shapes also give the admissions the index of wide programs is built from
 * (`dispatch/admission.ts`, `dispatch/program_dispatch.ts`).
 *
 * (A single loop running conditions laid out as leaf instructions with jumps
 * was measured against these closures: it cost 15-25 % on the three-rule
 * scenarios, where every test runs, and gained nothing on wide targets, where
 * the index decides which tests run.)
 *
 * @module
 */
import {
  isConditionValue,
  isFiniteNumber,
  isNonEmptyString,
  toComparableNumber,
} from "../_internal/guards.ts";
import { type PathTable, readPath } from "./_path_table.ts";
import { compileLikePattern, likeMatches, type LikePattern } from "./operators/like_pattern.ts";
import { compareSemver, parseSemver, type Semver, semverHolds } from "./operators/semver.ts";
import { inRollout, type RolloutOperand, rolloutOperand } from "./operators/rollout.ts";
import { SEMVER_COMPARISONS } from "../public/vocabulary.ts";

// Leaf kinds.
/** `eq` a value that is not null. */
export const EQ = 0;
/** `eq` null: absent or null. */
export const EQ_NULL = 2;
/** `neq`/`ne` a value that is not null. */
export const NEQ = 4;
/** `neq` null, and `exists`: present and not null. */
export const PRESENT = 6;
export const GT = 8;
export const GTE = 10;
export const LT = 12;
export const LTE = 14;
/** `in`: the operand is an {@link InList}. */
export const IN = 16;
/** False whatever the context (a malformed node, an unknown operator). */
export const NEVER = 18;
/** Not a leaf: `and` of the shape's tests. */
export const AND = 20;
/** Not a leaf: `or` of the shape's tests. */
export const OR = 21;
/** Not a leaf: `not` of the shape's one test. */
export const NOT = 22;
/** `contains`: an array holding the operand (a JSON primitive). */
export const CONTAINS = 24;
/** `containsAny`: the operand is a {@link ValueList}. */
export const CONTAINS_ANY = 26;
/** `containsAll`: the operand is a {@link ValueList}. */
export const CONTAINS_ALL = 28;
/** `startsWith`: the operand is the prefix. */
export const STARTS_WITH = 30;
/** `endsWith`: the operand is the suffix. */
export const ENDS_WITH = 32;
/** `like`: the operand is a compiled {@link LikePattern}. */
export const LIKE = 34;
/** `semver`: the operand is a {@link SemverOperand}. */
export const SEMVER = 36;
/** `rollout`: the operand is a {@link RolloutOperand}. */
export const ROLLOUT = 38;

/** The values of an `in` leaf that can match (JSON primitives), and how to look them up. */
export interface InList {
  readonly values: readonly unknown[];
  /** Whether null is listed: then an absent value matches too. */
  readonly matchesNull: boolean;
  /** The values as a set, for a long list. */
  readonly set: ReadonlySet<unknown> | null;
}

/** The values of `containsAny` and `containsAll` (JSON primitives, each once), and how to look them up. */
export interface ValueList {
  readonly values: readonly unknown[];
  /** The values as a set, for a long list. */
  readonly set: ReadonlySet<unknown> | null;
}

/** A `semver` leaf's comparison and version. */
export interface SemverOperand {
  readonly cmp: string;
  readonly version: Semver;
}

/** What a compiled condition is: a leaf, or `and`/`or`/`not` of compiled tests. */
export type Shape =
  | {
    readonly kind: number;
    /** The top-level key read, or null for a nested path (read through `slot`). */
    readonly key: string | null;
    readonly slot: number;
    readonly operand: unknown;
  }
  | { readonly kind: typeof AND | typeof OR; readonly tests: readonly object[] }
  | { readonly kind: typeof NOT; readonly tests: readonly [object] };

// How each leaf kind compares the value read (`undefined`: absent) with its
// operand: the one definition of how conditions compare (docs/bundle-format.md
// "Conditions"). `leafTest` wraps each in the closures below, which call it by
// name so that the JIT inlines it: a comparator passed as a value would be one
// call site for every kind, a call per leaf the JIT cannot inline.
const eq = (value: unknown, operand: unknown): boolean => value === operand;
const eqNull = (value: unknown): boolean => value == null; // absent or null
const neq = (value: unknown, operand: unknown): boolean => value !== operand;
const present = (value: unknown): boolean => value != null;
const gt = (value: unknown, bound: number): boolean => toComparableNumber(value) > bound;
const gte = (value: unknown, bound: number): boolean => toComparableNumber(value) >= bound;
const lt = (value: unknown, bound: number): boolean => toComparableNumber(value) < bound;
const lte = (value: unknown, bound: number): boolean => toComparableNumber(value) <= bound;
const contains = (value: unknown, operand: unknown): boolean =>
  Array.isArray(value) && arrayHas(value, operand);
const containsAny = (value: unknown, list: ValueList): boolean =>
  Array.isArray(value) && sharesAny(value, list);
const containsAll = (value: unknown, list: ValueList): boolean =>
  Array.isArray(value) && holdsAll(value, list);
const startsWith = (value: unknown, prefix: string): boolean =>
  typeof value === "string" && value.startsWith(prefix);
const endsWith = (value: unknown, suffix: string): boolean =>
  typeof value === "string" && value.endsWith(suffix);
const like = (value: unknown, pattern: LikePattern): boolean =>
  typeof value === "string" && likeMatches(pattern, value);
const semver = (value: unknown, operand: SemverOperand): boolean => {
  if (typeof value !== "string") return false;
  const version = parseSemver(value);
  return version !== null && semverHolds(operand.cmp, compareSemver(version, operand.version));
};

/** A compiled leaf: a test of the request context. */
type LeafTest = (ctx: Record<string, unknown>) => boolean;

const never: LeafTest = () => false;

/**
 * A leaf as a closure specialised to its kind. A top-level key is read from
 * the context and proven an own property only when the result differs from
 * what an absent value gives (an inherited value reads as absent): `&&` own
 * where absent is false, `|| !own` where it is true. A nested path is read
 * through {@link readPath} (once per evaluation of `paths`, through own
 * properties of plain objects).
 */
export function leafTest(
  kind: number,
  key: string | null,
  slot: number,
  operand: unknown,
  paths: PathTable,
): LeafTest {
  const o = operand as number;
  if (key !== null) {
    const k = key;
    switch (kind) {
      case EQ:
        return (ctx) => eq(ctx[k], operand) && Object.hasOwn(ctx, k);
      case EQ_NULL:
        return (ctx) => eqNull(ctx[k]) || !Object.hasOwn(ctx, k);
      case NEQ:
        return (ctx) => neq(ctx[k], operand) || !Object.hasOwn(ctx, k);
      case PRESENT:
        return (ctx) => present(ctx[k]) && Object.hasOwn(ctx, k);
      case GT:
        return (ctx) => gt(ctx[k], o) && Object.hasOwn(ctx, k);
      case GTE:
        return (ctx) => gte(ctx[k], o) && Object.hasOwn(ctx, k);
      case LT:
        return (ctx) => lt(ctx[k], o) && Object.hasOwn(ctx, k);
      case LTE:
        return (ctx) => lte(ctx[k], o) && Object.hasOwn(ctx, k);
      case IN: {
        const list = operand as InList;
        const absent = list.matchesNull;
        return absent
          ? (ctx) => matches(list, ctx[k]) || !Object.hasOwn(ctx, k)
          : (ctx) => matches(list, ctx[k]) && Object.hasOwn(ctx, k);
      }
      // The operators added after the specification's: an absent value is false for each.
      case CONTAINS:
        return (ctx) => contains(ctx[k], operand) && Object.hasOwn(ctx, k);
      case CONTAINS_ANY: {
        const list = operand as ValueList;
        return (ctx) => containsAny(ctx[k], list) && Object.hasOwn(ctx, k);
      }
      case CONTAINS_ALL: {
        const list = operand as ValueList;
        return (ctx) => containsAll(ctx[k], list) && Object.hasOwn(ctx, k);
      }
      case STARTS_WITH: {
        const prefix = operand as string;
        return (ctx) => startsWith(ctx[k], prefix) && Object.hasOwn(ctx, k);
      }
      case ENDS_WITH: {
        const suffix = operand as string;
        return (ctx) => endsWith(ctx[k], suffix) && Object.hasOwn(ctx, k);
      }
      case LIKE: {
        const pattern = operand as LikePattern;
        return (ctx) => like(ctx[k], pattern) && Object.hasOwn(ctx, k);
      }
      case SEMVER: {
        const version = operand as SemverOperand;
        return (ctx) => semver(ctx[k], version) && Object.hasOwn(ctx, k);
      }
      case ROLLOUT: {
        const rollout = operand as RolloutOperand;
        return (ctx) => inRollout(rollout, ctx[k]) && Object.hasOwn(ctx, k);
      }
      default:
        return never;
    }
  }
  switch (kind) {
    case EQ:
      return (ctx) => eq(readPath(paths, slot, ctx), operand);
    case EQ_NULL:
      return (ctx) => eqNull(readPath(paths, slot, ctx));
    case NEQ:
      return (ctx) => neq(readPath(paths, slot, ctx), operand);
    case PRESENT:
      return (ctx) => present(readPath(paths, slot, ctx));
    case GT:
      return (ctx) => gt(readPath(paths, slot, ctx), o);
    case GTE:
      return (ctx) => gte(readPath(paths, slot, ctx), o);
    case LT:
      return (ctx) => lt(readPath(paths, slot, ctx), o);
    case LTE:
      return (ctx) => lte(readPath(paths, slot, ctx), o);
    case IN: {
      const list = operand as InList;
      return (ctx) => matches(list, readPath(paths, slot, ctx));
    }
    case CONTAINS:
      return (ctx) => contains(readPath(paths, slot, ctx), operand);
    case CONTAINS_ANY: {
      const list = operand as ValueList;
      return (ctx) => containsAny(readPath(paths, slot, ctx), list);
    }
    case CONTAINS_ALL: {
      const list = operand as ValueList;
      return (ctx) => containsAll(readPath(paths, slot, ctx), list);
    }
    case STARTS_WITH: {
      const prefix = operand as string;
      return (ctx) => startsWith(readPath(paths, slot, ctx), prefix);
    }
    case ENDS_WITH: {
      const suffix = operand as string;
      return (ctx) => endsWith(readPath(paths, slot, ctx), suffix);
    }
    case LIKE: {
      const pattern = operand as LikePattern;
      return (ctx) => like(readPath(paths, slot, ctx), pattern);
    }
    case SEMVER: {
      const version = operand as SemverOperand;
      return (ctx) => semver(readPath(paths, slot, ctx), version);
    }
    case ROLLOUT: {
      const rollout = operand as RolloutOperand;
      return (ctx) => inRollout(rollout, readPath(paths, slot, ctx));
    }
    default:
      return never;
  }
}

/** A leaf's comparison: its kind and operand (an {@link InList} for `in`, the bound for ordering). */
export interface LeafOperation {
  readonly kind: number;
  readonly operand: unknown;
}

/**
 * The comparison a leaf condition as written makes, or null when it is
 * malformed (false whatever the context): `eq`/`neq` of a JSON primitive
 * (null compares with absent too), ordering against a finite bound, `in` of
 * primitives, `exists`. Compiled tests and traces both start here.
 */
export function leafOperation(node: Record<string, unknown>): LeafOperation | null {
  switch (node.op) {
    case "eq":
    case "neq":
    case "ne": {
      // `eq` compares JSON primitives strictly; an absent value compares as null.
      const expected = node.value;
      if (!isConditionValue(expected)) return null;
      const eq = node.op === "eq";
      return expected === null
        ? { kind: eq ? EQ_NULL : PRESENT, operand: null }
        : { kind: eq ? EQ : NEQ, operand: expected };
    }
    case "gt":
    case "gte":
    case "lt":
    case "lte": {
      // Ordering compares numbers; a value that is not a finite number or numeric string is false.
      const bound = toComparableNumber(node.value);
      if (Number.isNaN(bound)) return null;
      const kind = node.op === "gt" ? GT : node.op === "gte" ? GTE : node.op === "lt" ? LT : LTE;
      return { kind, operand: bound };
    }
    case "in": {
      if (!Array.isArray(node.values)) return null;
      // Objects and arrays never match; an absent value compares as null.
      const values = node.values.filter(isConditionValue);
      const list: InList = {
        values,
        matchesNull: values.includes(null),
        set: values.length > 8 ? new Set<unknown>(values) : null,
      };
      return { kind: IN, operand: list };
    }
    case "exists":
      return { kind: PRESENT, operand: null };
    default:
      return addedOperation(node);
  }
}

const SEMVER_CMPS: ReadonlySet<unknown> = new Set(SEMVER_COMPARISONS);

/**
 * The comparison of a leaf of an operator added after the specification's,
 * or null when its payload is malformed (which validation refuses, with
 * `CONDITION_MALFORMED` at the field: `tests/engine/added_operators_test.ts`
 * checks that both agree).
 */
function addedOperation(node: Record<string, unknown>): LeafOperation | null {
  switch (node.op) {
    case "contains":
      return isConditionValue(node.value) ? { kind: CONTAINS, operand: node.value } : null;
    case "containsAny":
    case "containsAll": {
      const values = node.values;
      if (!Array.isArray(values) || values.length === 0 || !values.every(isConditionValue)) {
        return null;
      }
      const distinct = [...new Set(values)];
      const list: ValueList = {
        values: distinct,
        set: distinct.length > 8 ? new Set(distinct) : null,
      };
      return { kind: node.op === "containsAny" ? CONTAINS_ANY : CONTAINS_ALL, operand: list };
    }
    case "startsWith":
    case "endsWith":
      return typeof node.value === "string"
        ? { kind: node.op === "startsWith" ? STARTS_WITH : ENDS_WITH, operand: node.value }
        : null;
    case "like": {
      const pattern = compileLikePattern(node.pattern);
      return pattern === null ? null : { kind: LIKE, operand: pattern };
    }
    case "semver": {
      if (!SEMVER_CMPS.has(node.cmp) || typeof node.value !== "string") return null;
      const version = parseSemver(node.value);
      if (version === null) return null;
      const operand: SemverOperand = { cmp: node.cmp as string, version };
      return { kind: SEMVER, operand };
    }
    case "rollout": {
      const { salt, to, bucketing } = node;
      const from = node.from === undefined ? 0 : node.from;
      if (
        !isNonEmptyString(salt) || !isPercent(to) || !isPercent(from) || from > to ||
        (bucketing !== undefined && bucketing !== "fraction" && bucketing !== "mod100")
      ) return null;
      return { kind: ROLLOUT, operand: rolloutOperand(salt, from, to, bucketing === "mod100") };
    }
    default:
      return null;
  }
}

/** A number from 0 to 100. */
function isPercent(value: unknown): value is number {
  return isFiniteNumber(value) && value >= 0 && value <= 100;
}

/**
 * Compares a value read (undefined: absent) as a leaf of `kind` does: what
 * traces explain, with the comparisons above. Ownership is the caller's:
 * an inherited value must be passed as absent.
 */
export function compareLeaf(kind: number, value: unknown, operand: unknown): boolean {
  switch (kind) {
    case EQ:
      return eq(value, operand);
    case EQ_NULL:
      return eqNull(value);
    case NEQ:
      return neq(value, operand);
    case PRESENT:
      return present(value);
    case GT:
      return gt(value, operand as number);
    case GTE:
      return gte(value, operand as number);
    case LT:
      return lt(value, operand as number);
    case LTE:
      return lte(value, operand as number);
    case IN:
      return matches(operand as InList, value);
    case CONTAINS:
      return contains(value, operand);
    case CONTAINS_ANY:
      return containsAny(value, operand as ValueList);
    case CONTAINS_ALL:
      return containsAll(value, operand as ValueList);
    case STARTS_WITH:
      return startsWith(value, operand as string);
    case ENDS_WITH:
      return endsWith(value, operand as string);
    case LIKE:
      return like(value, operand as LikePattern);
    case SEMVER:
      return semver(value, operand as SemverOperand);
    case ROLLOUT:
      return inRollout(operand as RolloutOperand, value);
    default:
      return false;
  }
}

/** Whether `in`'s list matches a value read (undefined: absent). */
function matches(list: InList, value: unknown): boolean {
  if (value === undefined) return list.matchesNull;
  // A Set uses SameValueZero, which would match NaN with NaN; `===` never does.
  if (list.set !== null) return value === value && list.set.has(value);
  const values = list.values;
  for (let i = 0; i < values.length; i++) if (values[i] === value) return true;
  return false;
}

/**
 * Whether an array holds `operand` (a JSON primitive) as an element of its
 * own, compared with `===` as `eq` compares (objects and arrays inside never
 * match). A hole, which reads as inherited, is not an element.
 */
function arrayHas(array: readonly unknown[], operand: unknown): boolean {
  for (let i = 0; i < array.length; i++) {
    if (array[i] === operand && Object.hasOwn(array, i)) return true;
  }
  return false;
}

/** Whether an array holds one of the list's values. */
function sharesAny(array: readonly unknown[], list: ValueList): boolean {
  const set = list.set;
  if (set === null) {
    const values = list.values;
    for (let v = 0; v < values.length; v++) if (arrayHas(array, values[v])) return true;
    return false;
  }
  for (let i = 0; i < array.length; i++) {
    const item = array[i];
    // A Set uses SameValueZero, which would match NaN with NaN; no value is NaN, so none does.
    if (set.has(item) && Object.hasOwn(array, i)) return true;
  }
  return false;
}

/** Whether an array holds every value of the list. */
function holdsAll(array: readonly unknown[], list: ValueList): boolean {
  const set = list.set;
  if (set === null) {
    const values = list.values;
    for (let v = 0; v < values.length; v++) if (!arrayHas(array, values[v])) return false;
    return true;
  }
  if (array.length < set.size) return false;
  const found = new Set<unknown>();
  for (let i = 0; i < array.length; i++) {
    const item = array[i];
    if (set.has(item) && Object.hasOwn(array, i)) {
      found.add(item);
      if (found.size === set.size) return true;
    }
  }
  return false;
}
