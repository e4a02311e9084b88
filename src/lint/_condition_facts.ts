// This module is browser compatible.
/**
 * What can be proven about a condition: a box holding every context on
 * which it is true, and one holding every context on which it is false
 * (`_box.ts`). An empty box proves the condition never true (or never
 * false). The analysis reads a condition exactly as the engine compiles it
 * (`src/engine/compile_condition.ts`, docs/bundle-format.md "Conditions"):
 * `ctx.` stripped once, `ne`, `args` and `arg` as legacy spellings, absent
 * compared as `null`, the ordering operators' numeric coercion. A malformed
 * node or an unknown operator proves nothing (validation already warns about
 * it), so nothing that contains one is ever reported because of it. The
 * operators added after the specification's prove what kind of value makes
 * them true (an array, a string, a version, a value with a bucket), and a
 * rollout whose range holds no bucket is never true.
 *
 * Linear in the size of the condition times its depth (at most 64).
 *
 * @module
 */
import {
  isConditionValue,
  isRecord,
  MAX_CONDITION_DEPTH,
  toComparableNumber,
} from "../_internal/guards.ts";
import { Box, Intersection, Widening } from "./_box.ts";
import { ABSENT, ALL_BITS, FALSE, NULL, OTHER, ScalarSet, TRUE, ValueSet } from "./_value_set.ts";
import { compileLikePattern } from "../engine/operators/like_pattern.ts";

/** Boxes of the contexts on which a condition is true, and false. */
export interface ConditionFacts {
  readonly whenTrue: Box;
  readonly whenFalse: Box;
}

/** A condition that is constant: never true, or never false. */
export interface ConstantCondition {
  /** JSON Pointer segments from the condition analysed down to this node. */
  readonly at: readonly (string | number)[];
  /** What it never is. */
  readonly never: "true" | "false";
  /** The path whose values run out ("" when there is none to name). */
  readonly path: string;
}

const UNKNOWN: ConditionFacts = { whenTrue: Box.TOP, whenFalse: Box.TOP };

/**
 * The facts of a condition; pushes onto `constants` every constant node
 * that is not inside a constant node (the outermost ones), in tree order.
 */
export function analyzeCondition(node: unknown, constants: ConstantCondition[]): ConditionFacts {
  return new Walk(constants).node(node, 1);
}

class Walk {
  readonly #at: (string | number)[] = [];
  constructor(readonly constants: ConstantCondition[]) {}

  node(node: unknown, depth: number): ConditionFacts {
    // Deeper than the engine allows is a validation error: nothing to prove.
    if (depth > MAX_CONDITION_DEPTH || !isRecord(node)) return UNKNOWN;
    const mark = this.constants.length;
    const facts = this.#facts(node, depth);
    const never = facts.whenTrue.isEmpty ? "true" : facts.whenFalse.isEmpty ? "false" : null;
    if (never !== null) {
      this.constants.length = mark; // inner constants are explained by this one
      const box = never === "true" ? facts.whenTrue : facts.whenFalse;
      this.constants.push({ at: [...this.#at], never, path: box.emptyAt! });
    }
    return facts;
  }

  #facts(node: Record<string, unknown>, depth: number): ConditionFacts {
    switch (node.op) {
      case "and":
      case "or": {
        const key = node.conditions !== undefined ? "conditions" : "args";
        const list = node[key];
        if (!Array.isArray(list) || list.length === 0) return UNKNOWN;
        const all = new Intersection();
        const any = new Widening();
        const isAnd = node.op === "and";
        for (let i = 0; i < list.length; i++) {
          this.#at.push(key, i);
          const child = this.node(list[i], depth + 1);
          this.#at.length -= 2;
          all.add(isAnd ? child.whenTrue : child.whenFalse);
          any.add(isAnd ? child.whenFalse : child.whenTrue);
        }
        return isAnd
          ? { whenTrue: all.finish(), whenFalse: any.finish() }
          : { whenTrue: any.finish(), whenFalse: all.finish() };
      }
      case "not": {
        const key = node.condition !== undefined ? "condition" : "arg";
        if (!isRecord(node[key])) return UNKNOWN;
        this.#at.push(key);
        const child = this.node(node[key], depth + 1);
        this.#at.length -= 1;
        return { whenTrue: child.whenFalse, whenFalse: child.whenTrue };
      }
      default:
        return leafFacts(node);
    }
  }
}

/** Facts of a condition that reads the context itself. */
function leafFacts(node: Record<string, unknown>): ConditionFacts {
  if (typeof node.path !== "string") return UNKNOWN;
  const path = node.path.startsWith("ctx.") ? node.path.slice(4) : node.path;
  switch (node.op) {
    case "eq":
    case "neq":
    case "ne": {
      if (!isConditionValue(node.value)) return UNKNOWN;
      const facts = equalsOneOf(path, [node.value]);
      return node.op === "eq" ? facts : { whenTrue: facts.whenFalse, whenFalse: facts.whenTrue };
    }
    case "in":
      if (!Array.isArray(node.values)) return UNKNOWN;
      // Objects and arrays among the values never match.
      return equalsOneOf(path, node.values.filter(isConditionValue));
    case "exists":
      return {
        whenTrue: Box.at(path, allBut(ABSENT | NULL)),
        whenFalse: Box.at(path, new ValueSet(ABSENT | NULL, null, null)),
      };
    case "gt":
    case "gte":
    case "lt":
    case "lte": {
      const bound = toComparableNumber(node.value);
      if (Number.isNaN(bound)) return UNKNOWN;
      return ordering(path, node.op, bound);
    }
    case "contains":
    case "containsAny":
    case "containsAll":
      // True only for an array (an `OTHER` value); any array may also make it false.
      return { whenTrue: Box.at(path, new ValueSet(OTHER, null, null)), whenFalse: Box.TOP };
    case "startsWith":
    case "endsWith":
      if (typeof node.value !== "string") return UNKNOWN;
      return strings(path, node.value === "");
    case "like":
      return likeFacts(path, node.pattern);
    case "semver":
      // True only for a version, which is a string no number literal spells (it has two dots).
      return {
        whenTrue: Box.at(
          path,
          new ValueSet(0, null, ScalarSet.numericRange("string", 1, false, 0, false, true)),
        ),
        whenFalse: Box.TOP,
      };
    case "rollout":
      return rolloutFacts(path, node);
    default:
      return UNKNOWN;
  }
}

/**
 * A condition true only for strings: every string when `everyString`
 * (then false for every other value), else some of them (false for any
 * value, as far as the analysis knows).
 */
function strings(path: string, everyString: boolean): ConditionFacts {
  return {
    whenTrue: Box.at(path, new ValueSet(0, null, ScalarSet.all("string"))),
    whenFalse: everyString
      ? Box.at(path, new ValueSet(ALL_BITS, ScalarSet.all("number"), null))
      : Box.TOP,
  };
}

/** `like`: a pattern without `*` is one string; one made of stars alone matches every string. */
function likeFacts(path: string, pattern: unknown): ConditionFacts {
  const compiled = compileLikePattern(pattern);
  if (compiled === null) return UNKNOWN;
  const parts = compiled.parts;
  if (parts.length === 1) {
    const only = new Set([parts[0]!]);
    return {
      whenTrue: Box.at(path, new ValueSet(0, null, ScalarSet.of("string", only))),
      whenFalse: Box.at(
        path,
        new ValueSet(ALL_BITS, ScalarSet.all("number"), ScalarSet.except("string", only)),
      ),
    };
  }
  return strings(path, parts.every((part) => part === ""));
}

/**
 * `rollout`: true only for a non-empty string or a number (a whole one, but
 * a set of numbers cannot say so), and for none when no bucket is in
 * `[from, to)`; false for every value that has a bucket when every bucket
 * is in it (`[0, 100)` of `fraction`, `[0, 99]` of `mod100`).
 */
function rolloutFacts(path: string, node: Record<string, unknown>): ConditionFacts {
  const from = node.from === undefined ? 0 : node.from;
  const to = node.to;
  if (typeof from !== "number" || typeof to !== "number") return UNKNOWN;
  const mod100 = node.bucketing === "mod100";
  const noEmpty = ScalarSet.except("string", new Set([""]));
  // The buckets are [0, 100) (fraction) or the whole numbers 0 to 99 (mod100).
  const lowest = mod100 ? Math.max(0, Math.ceil(from)) : from;
  const possible = mod100 ? lowest <= 99 && lowest < to : from < to;
  const always = from <= 0 && (mod100 ? to > 99 : to >= 100);
  return {
    whenTrue: possible
      ? Box.at(path, new ValueSet(0, ScalarSet.all("number"), noEmpty))
      : Box.empty(path),
    whenFalse: always
      ? Box.at(
        path,
        new ValueSet(ALL_BITS, ScalarSet.all("number"), ScalarSet.of("string", new Set([""]))),
      )
      : Box.TOP,
  };
}

/** Every value but the kinds of `bits`. */
function allBut(bits: number): ValueSet {
  const values = ValueSet.all();
  values.bits &= ~bits;
  return values;
}

/** `in`: the value equals one of `values` (an absent value compares as null). */
function equalsOneOf(
  path: string,
  values: readonly (string | number | boolean | null)[],
): ConditionFacts {
  let bits = 0;
  const numbers = new Set<number>();
  const strings = new Set<string>();
  for (const value of values) {
    if (value === null) bits |= ABSENT | NULL;
    else if (value === true) bits |= TRUE;
    else if (value === false) bits |= FALSE;
    else if (typeof value === "number") numbers.add(value);
    else strings.add(value);
  }
  const matching = new ValueSet(
    bits,
    numbers.size === 0 ? null : ScalarSet.of("number", numbers),
    strings.size === 0 ? null : ScalarSet.of("string", strings),
  );
  const others = new ValueSet(
    ALL_BITS & ~bits,
    ScalarSet.except("number", numbers),
    ScalarSet.except("string", strings),
  );
  return { whenTrue: Box.at(path, matching), whenFalse: Box.at(path, others) };
}

/**
 * `gt`, `gte`, `lt`, `lte`: true for numbers, and numeric strings, in the
 * interval; false for those outside it and for every value that is not
 * numeric.
 */
function ordering(path: string, op: "gt" | "gte" | "lt" | "lte", bound: number): ConditionFacts {
  // Inclusive ends: the bound itself is inside for gte and lte, outside for gt and lt.
  const boundIn = op === "gte" || op === "lte";
  const [lo, loIn, hi, hiIn] = op === "gt" || op === "gte"
    ? [bound, boundIn, Infinity, false]
    : [-Infinity, false, bound, boundIn];
  // The complement interval, among numbers.
  const [outLo, outLoIn, outHi, outHiIn] = lo === -Infinity
    ? [hi, !hiIn, Infinity, false]
    : [-Infinity, false, lo, !loIn];
  return {
    whenTrue: Box.at(
      path,
      new ValueSet(
        0,
        ScalarSet.numericRange("number", lo, loIn, hi, hiIn, false),
        ScalarSet.numericRange("string", lo, loIn, hi, hiIn, false),
      ),
    ),
    whenFalse: Box.at(
      path,
      new ValueSet(
        ALL_BITS,
        ScalarSet.numericRange("number", outLo, outLoIn, outHi, outHiIn, false),
        ScalarSet.numericRange("string", outLo, outLoIn, outHi, outHiIn, true),
      ),
    ),
  };
}
