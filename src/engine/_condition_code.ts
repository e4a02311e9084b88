// This module is browser compatible.
/**
 * Condition code: what a compiled condition runs. A condition's tree
 * (`and`, `or`, `not` over leaves) is laid out as a list of leaf
 * instructions with jumps, {@link LEAF_SIZE} slots each:
 *
 *     kind, key, slot, operand, ifTrue, ifFalse
 *
 * `kind` says what the leaf compares (its operator, and whether it reads a
 * top-level `key` of the context or a nested path's `slot` in the path
 * table), `operand` what with; `ifTrue` and `ifFalse` are the offset of the
 * next leaf, or {@link TRUE} / {@link FALSE} for the condition's outcome.
 * `and`, `or` and `not` are only jumps: `and` moves to its next child on
 * true and ends false on false, `or` the other way round, `not` swaps its
 * child's exits. So one loop, {@link runCondition}, runs any condition with
 * no call per node, and each leaf is one `switch` case: the one definition of
 * how conditions compare (docs/bundle-format.md "Conditions"). A bundle's
 * conditions are laid out in its code array, beside the programs that run
 * them (`_program_dispatch.ts`); a compiled test (`compile_condition.ts`)
 * lays out its own on its first call.
 *
 * @module
 */
import { toComparableNumber } from "../_internal/guards.ts";
import { type PathTable, readPath } from "./_path_table.ts";

/** Slots of a leaf instruction. */
export const LEAF_SIZE = 6;
/** A jump that ends the condition true. */
export const TRUE = -1;
/** A jump that ends the condition false. */
export const FALSE = -2;

// Leaf kinds: each comparison on a top-level key (even), then on a nested path (odd).
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

/** A compiled condition before it is laid out: a leaf, or `and`/`or`/`not` of compiled tests. */
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

/**
 * Lays out the condition of `shape` at the end of `code`, `ifTrue` and
 * `ifFalse` being where its outcomes go; returns the offset of its first
 * leaf. `shapeOf` gives the shapes of its children. Linear in the tree's
 * size; recursion is bounded by the depth conditions may nest.
 */
export function layOut(
  code: unknown[],
  shape: Shape,
  shapeOf: (test: object) => Shape,
  ifTrue = TRUE,
  ifFalse = FALSE,
): number {
  switch (shape.kind) {
    case AND: {
      const tests = (shape as { tests: readonly object[] }).tests;
      let entry = ifTrue;
      for (let i = tests.length - 1; i >= 0; i--) {
        entry = layOut(code, shapeOf(tests[i]!), shapeOf, entry, ifFalse);
      }
      return entry;
    }
    case OR: {
      const tests = (shape as { tests: readonly object[] }).tests;
      let entry = ifFalse;
      for (let i = tests.length - 1; i >= 0; i--) {
        entry = layOut(code, shapeOf(tests[i]!), shapeOf, ifTrue, entry);
      }
      return entry;
    }
    case NOT: {
      const [test] = (shape as { tests: readonly [object] }).tests;
      return layOut(code, shapeOf(test), shapeOf, ifFalse, ifTrue);
    }
    default: {
      const leaf = shape as { kind: number; key: string | null; slot: number; operand: unknown };
      const at = code.length;
      // A top-level key's kind is even, a nested path's odd; NEVER reads nothing.
      const kind = leaf.kind === NEVER || leaf.key !== null ? leaf.kind : leaf.kind + 1;
      code.push(kind, leaf.key, leaf.slot, leaf.operand);
      code.push(ifTrue, ifFalse);
      return at;
    }
  }
}

/**
 * Runs the condition whose first leaf is at `at` in `code` against a
 * context: its outcome. A top-level key is read from the context and proven
 * an own property only when the result depends on it; a nested path is read
 * through {@link readPath} (once per evaluation of `paths`, through own
 * properties of plain objects). An absent value is `undefined`: `eq` null
 * and `in` a list holding null match it, ordering operators never do.
 */
export function runCondition(
  code: readonly unknown[],
  at: number,
  paths: PathTable,
  ctx: Record<string, unknown>,
): boolean {
  for (;;) {
    const kind = code[at] as number;
    let result: boolean;
    if (kind === NEVER) {
      result = false;
    } else if ((kind & 1) === 0) {
      // A top-level key: compare, then prove ownership only when the result depends on it.
      const key = code[at + 1] as string;
      const value = ctx[key];
      switch (kind) {
        case EQ:
          result = value === code[at + 3] && Object.hasOwn(ctx, key);
          break;
        case EQ_NULL:
          result = value == null || !Object.hasOwn(ctx, key);
          break;
        case NEQ:
          result = value !== code[at + 3] || !Object.hasOwn(ctx, key);
          break;
        case PRESENT:
          result = value != null && Object.hasOwn(ctx, key);
          break;
        case GT:
          result = toComparableNumber(value) > (code[at + 3] as number) && Object.hasOwn(ctx, key);
          break;
        case GTE:
          result = toComparableNumber(value) >= (code[at + 3] as number) &&
            Object.hasOwn(ctx, key);
          break;
        case LT:
          result = toComparableNumber(value) < (code[at + 3] as number) && Object.hasOwn(ctx, key);
          break;
        case LTE:
          result = toComparableNumber(value) <= (code[at + 3] as number) &&
            Object.hasOwn(ctx, key);
          break;
        case IN: {
          const list = code[at + 3] as InList;
          result = matches(list, value);
          // An inherited value reads as absent: ownership matters only if that changes the result.
          if (result !== list.matchesNull && !Object.hasOwn(ctx, key)) result = list.matchesNull;
          break;
        }
        default:
          result = false;
      }
    } else {
      const value = readPath(paths, code[at + 2] as number, ctx);
      switch (kind) {
        case EQ + 1:
          result = value === code[at + 3];
          break;
        case EQ_NULL + 1:
          result = value == null;
          break;
        case NEQ + 1:
          result = value !== code[at + 3];
          break;
        case PRESENT + 1:
          result = value != null;
          break;
        case GT + 1:
          result = toComparableNumber(value) > (code[at + 3] as number);
          break;
        case GTE + 1:
          result = toComparableNumber(value) >= (code[at + 3] as number);
          break;
        case LT + 1:
          result = toComparableNumber(value) < (code[at + 3] as number);
          break;
        case LTE + 1:
          result = toComparableNumber(value) <= (code[at + 3] as number);
          break;
        case IN + 1:
          result = matches(code[at + 3] as InList, value);
          break;
        default:
          result = false;
      }
    }
    const next = code[result ? at + 4 : at + 5] as number;
    if (next < 0) return next === TRUE;
    at = next;
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
