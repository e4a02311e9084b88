// This module is browser compatible.
/**
 * The context paths of a compiled bundle, and the values one evaluation has
 * read through them.
 *
 * Every distinct path a condition reads (one leading `ctx.` stripped), and
 * every prefix of one, gets a slot at compile time: its parent's slot (-1
 * for a top-level key) and its last segment, interned (see `intern`).
 * Conditions on a top-level key read the context directly (see
 * `compile_condition.ts`); for nested paths, an evaluation reads each slot
 * at most once, going through own properties of plain objects only (never anything
 * inherited: `__proto__`, `constructor`, a polluted `Object.prototype`), and
 * remembers the value for the rest of the evaluation: conditions that read
 * the same path, or paths with a common prefix, pay for the safety checks
 * once per request instead of once per condition, and then read an array.
 *
 * What an evaluation has read is kept per slot with the evaluation's number
 * (`stamps`): a value counts only while `gen` is the number it was read
 * under, so starting an evaluation clears nothing. An evaluation started
 * while another runs (a getter in a context that evaluates again) gets its
 * own number and gives the outer one back when it ends, so neither sees the
 * other's values. When an evaluation ends, the values it read are dropped:
 * nothing of a request stays referenced once it is decided.
 *
 * @module
 */
import { isPlainObject } from "../_internal/guards.ts";

/** Evaluation numbers wrap below this, clearing the stamps (they are small integers). */
const MAX_GEN = 0x3fffffff;
/** The stamp of a slot not read in any evaluation since the last wrap. */
const UNREAD = -2;
/** Paths longer than this are read with a loop rather than by recursion. */
const RECURSION_LIMIT = 16;
/** `gen` outside any evaluation: values are read, never remembered. */
const NONE = -1;
/** The parent of a slot that remembers a test's result (see `memoSlot`). */
const MEMO = -2;

/** Paths, their slots, and what the evaluation in progress has read through them. */
export class PathTable {
  /** Slot of each whole path asked for, while compiling. */
  readonly #paths = new Map<string, number>();
  /** Slots by parent slot (-1: the context) and segment, while compiling. */
  readonly #children = new Map<number, Map<string, number>>();
  /** Per slot: the slot of the path without its last segment, or -1. */
  readonly parents: number[] = [];
  /** Per slot: the number of segments of its path. */
  readonly depths: number[] = [];
  /** Per slot: the last segment of the path, interned. */
  readonly keys: string[] = [];
  /** Per slot: the evaluation whose value `values` holds. */
  readonly stamps: number[] = [];
  /** Per slot: the value read, or undefined (absent, inherited, or not through plain objects). */
  readonly values: unknown[] = [];
  /** The evaluation in progress, or -1. */
  gen = NONE;
  /**
   * For each evaluation in progress, from the outermost: the `gen` it
   * interrupted, then the slots it has read (cleared when it ends); in use
   * up to `top` (the array is kept to be reused).
   */
  readonly read: number[] = [];
  top = 0;
  #last = 0;
  readonly #maxGen: number;

  /** @param maxGen Evaluation numbers wrap after this one (lower only in tests). */
  constructor(maxGen = MAX_GEN) {
    this.#maxGen = maxGen;
  }

  /**
   * The slot of a condition's path (one leading `ctx.` stripped), made with
   * its prefixes when new. Linear in the path's length, without recursion.
   */
  slotOf(path: string): number {
    const stripped = path.startsWith("ctx.") ? path.slice(4) : path;
    const found = this.#paths.get(stripped);
    if (found !== undefined) return found;
    let slot = -1;
    for (const segment of stripped.split(".")) {
      let children = this.#children.get(slot);
      if (children === undefined) this.#children.set(slot, children = new Map());
      let child = children.get(segment);
      if (child === undefined) {
        child = this.keys.length;
        this.parents.push(slot);
        this.depths.push(slot < 0 ? 1 : this.depths[slot]! + 1);
        this.keys.push(intern(segment));
        this.stamps.push(UNREAD);
        this.values.push(undefined);
        children.set(segment, child);
      }
      slot = child;
    }
    this.#paths.set(stripped, slot);
    return slot;
  }

  /**
   * A slot that holds no path but a test's result, remembered for one
   * evaluation (`dispatch/shared_tests.ts`): it is stamped like a path's
   * value, and never read as a path.
   */
  memoSlot(): number {
    const slot = this.keys.length;
    this.parents.push(MEMO);
    this.depths.push(0);
    this.keys.push("");
    this.stamps.push(UNREAD);
    this.values.push(undefined);
    return slot;
  }

  /** Starts an evaluation; returns what {@link close} needs to end it. */
  open(): number {
    const mark = this.top++;
    this.read[mark] = this.gen;
    let gen = this.#last + 1;
    if (gen > this.#maxGen) {
      gen = 0;
      this.stamps.fill(UNREAD);
    }
    this.#last = this.gen = gen;
    return mark;
  }

  /**
   * Ends the evaluation that `open` returned `mark` for: forgets the values
   * it read (the table keeps nothing of a request once it is decided) and
   * gives the evaluation it interrupted, if any, back its number.
   */
  close(mark: number): void {
    const { read, values } = this;
    for (let i = this.top - 1; i > mark; i--) values[read[i]!] = undefined;
    this.gen = read[mark]!;
    this.top = mark;
  }
}

/** The value at `slot` in the evaluation in progress (see {@link PathTable}). */
export function readPath(
  table: PathTable,
  slot: number,
  context: Record<string, unknown>,
): unknown {
  return table.stamps[slot] === table.gen ? table.values[slot] : resolve(table, slot, context);
}

/**
 * Reads `slot`, after its parent when the parent has not been read in this
 * evaluation: by recursion for the first {@link RECURSION_LIMIT} segments of
 * a path, by a loop beyond.
 */
function resolve(table: PathTable, slot: number, context: Record<string, unknown>): unknown {
  const parent = table.parents[slot]!;
  if (parent < 0) return step(table, slot, context, true);
  let holder: unknown;
  if (table.stamps[parent] === table.gen) holder = table.values[parent];
  else if (table.depths[slot]! <= RECURSION_LIMIT) holder = resolve(table, parent, context);
  else return resolveChain(table, slot, context);
  return step(table, slot, holder, false);
}

/**
 * Reads `slot` and the prefixes of its path not read yet in this evaluation,
 * from the top down, with a loop: a path of a million segments needs no
 * stack. Outside an evaluation nothing counts as read, and nothing is kept.
 */
function resolveChain(table: PathTable, slot: number, context: Record<string, unknown>): unknown {
  const { parents, stamps, gen } = table;
  // The slots to read, from `slot` up; the last one's parent is the context or has been read.
  const chain: number[] = [];
  let top = slot;
  for (let parent = parents[top]!; parent >= 0 && stamps[parent] !== gen; parent = parents[top]!) {
    chain.push(top);
    top = parent;
  }
  const parent = parents[top]!;
  let value = step(table, top, parent < 0 ? context : table.values[parent], parent < 0);
  for (let i = chain.length - 1; i >= 0; i--) value = step(table, chain[i]!, value, false);
  return value;
}

/** Reads one segment of a path from `holder`, keeping the value for the evaluation in progress. */
function step(table: PathTable, slot: number, holder: unknown, isContext: boolean): unknown {
  let value: unknown = undefined;
  // The context itself is plain: checkRequest made sure.
  if (isContext || isPlainObject(holder)) {
    const key = table.keys[slot]!;
    value = (holder as Record<string, unknown>)[key];
    if (value !== undefined && !Object.hasOwn(holder as object, key)) value = undefined;
  }
  // A getter read above may have run an evaluation of its own: it has ended, and gen is ours again.
  if (table.gen !== NONE) {
    table.values[slot] = value;
    table.stamps[slot] = table.gen;
    table.read[table.top++] = slot;
  }
  return value;
}

/**
 * The same string, internalised: a key sliced or split from a path is a
 * fresh string, which V8 would otherwise look up in its string table when
 * a property is first read with it.
 */
function intern(key: string): string {
  return Object.keys({ [key]: 0 })[0] ?? key;
}
