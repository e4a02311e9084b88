// This module is browser compatible.
/**
 * Condition code: what a compiled condition is made of. `compile_condition.ts`
 * turns a condition's tree into a {@link Shape} (a leaf: its kind, the path it
 * reads, its operand; or `and`, `or`, `not` of shapes), and each shape into a
 * closure: a leaf into one specialised to its kind by {@link leafTest}, which
 * holds the one definition of how conditions compare (docs/bundle-format.md
 * "Conditions"); `and`, `or`, `not` into closures over their children's.
 * Shapes also give the guards the eq/in index of wide programs is built from
 * (`_program_dispatch.ts`).
 *
 * (A single loop running conditions laid out as leaf instructions with jumps
 * was measured against these closures: it cost 15-25 % on the three-rule
 * scenarios, where every test runs, and gained nothing on wide targets, where
 * the index decides which tests run.)
 *
 * @module
 */
import { isConditionValue, toComparableNumber } from "../_internal/guards.ts";
import { type PathTable, readPath } from "./_path_table.ts";

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

/** The values of an `in` leaf that can match (JSON primitives), and how to look them up. */
export interface InList {
  readonly values: readonly unknown[];
  /** Whether null is listed: then an absent value matches too. */
  readonly matchesNull: boolean;
  /** The values as a set, for a long list. */
  readonly set: ReadonlySet<unknown> | null;
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
      return null;
  }
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
