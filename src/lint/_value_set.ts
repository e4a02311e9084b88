// This module is browser compatible.
/**
 * Sets of values that one context path can hold, for the condition analysis
 * of `_condition_facts.ts`. A set is always an over-approximation: every
 * value the analysis says a path "cannot" hold truly cannot satisfy what was
 * asked, and a set found empty is truly empty. Precision is given up
 * (never soundness) wherever being exact would cost more than linear time.
 *
 * The value a condition reads at a path is one of: absent, `null`, `true`,
 * `false`, a finite number, a string, or anything else (objects, arrays,
 * and values JSON cannot hold such as `NaN`); docs/bundle-format.md
 * "Conditions" says how each operator treats each of them.
 *
 * Sets are immutable once built; a {@link ValueSet} being built is copied
 * on its first change (`clone()` costs O(1): the inner `Set`s are copied
 * only when changed), so accumulating k sets costs the sum of their sizes.
 *
 * @module
 */
import { toComparableNumber } from "../_internal/guards.ts";

/** The value is absent (or `undefined`). */
export const ABSENT = 1;
/** The value is `null`. */
export const NULL = 2;
/** The value is `true`. */
export const TRUE = 4;
/** The value is `false`. */
export const FALSE = 8;
/** Objects, arrays, and numbers that are not finite: they equal no condition value and are not numeric. */
export const OTHER = 16;
/** Every kind above. */
export const ALL_BITS = ABSENT | NULL | TRUE | FALSE | OTHER;

/** The `except` of a set that excludes nothing (shared: sets copy it before they change it). */
const NOTHING: Set<never> = new Set();

/**
 * A set of finite numbers, or of strings, as `only` (when not null: the
 * members are among these) and three filters every member passes: not in
 * `except`; numeric value (a number itself, a string's value by the
 * ordering operators' coercion) within the interval `lo..hi`; and for a
 * string that is not numeric, `nonNumeric`. Filters apply lazily, so
 * narrowing a large `only` set costs nothing until it is tested for
 * emptiness.
 */
export class ScalarSet<T extends number | string> {
  #onlyOwned = false;
  #exceptOwned = false;

  constructor(
    readonly kind: "number" | "string",
    public only: Set<T> | null,
    public except: Set<T>,
    public lo = -Infinity,
    public loIn = false,
    public hi = Infinity,
    public hiIn = false,
    /** Strings only: whether strings that are not numeric are members. */
    public nonNumeric = kind === "string",
  ) {}

  /** Every finite number, or every string. */
  static all<T extends number | string>(
    kind: "number" | "string",
  ): ScalarSet<T> {
    return new ScalarSet<T>(kind, null, NOTHING);
  }

  /** Exactly `values`. */
  static of<T extends number | string>(
    kind: "number" | "string",
    values: Set<T>,
  ): ScalarSet<T> {
    return new ScalarSet<T>(kind, values, NOTHING);
  }

  /** Every member except `values`. */
  static except<T extends number | string>(
    kind: "number" | "string",
    values: Set<T>,
  ): ScalarSet<T> {
    return new ScalarSet<T>(kind, null, values);
  }

  /** The members whose numeric value is in the interval (no other string). */
  static numericRange<T extends number | string>(
    kind: "number" | "string",
    lo: number,
    loIn: boolean,
    hi: number,
    hiIn: boolean,
    nonNumeric: boolean,
  ): ScalarSet<T> {
    return new ScalarSet<T>(kind, null, NOTHING, lo, loIn, hi, hiIn, nonNumeric);
  }

  /** A copy that shares the inner sets until it changes them. */
  clone(): ScalarSet<T> {
    return new ScalarSet<T>(
      this.kind,
      this.only,
      this.except,
      this.lo,
      this.loIn,
      this.hi,
      this.hiIn,
      this.nonNumeric,
    );
  }

  /** True when `value` is a member. */
  has(value: T): boolean {
    if (this.only !== null && !this.only.has(value)) return false;
    if (this.except.has(value)) return false;
    const n = this.kind === "number" ? value as number : toComparableNumber(value);
    return Number.isNaN(n) ? this.nonNumeric : this.#inRange(n);
  }

  /** True when there is no member. O(size of `only`) at most. */
  isEmpty(): boolean {
    if (this.only !== null) {
      for (const value of this.only) if (this.has(value)) return false;
      return true;
    }
    if (this.nonNumeric) return false; // infinitely many strings, `except` is finite
    if (this.#rangeIsEmpty()) return true;
    // A non-empty interval of reals holds infinitely many numbers, and any
    // number has infinitely many spellings as a numeric string ("5", "5.0", …):
    // only a one-point interval of numbers can be used up by `except`.
    return this.kind === "number" && this.lo === this.hi && this.except.has(this.lo as T);
  }

  /** Narrows this set (being built) to the members of `other` too. */
  intersectWith(other: ScalarSet<T>): void {
    if (other.lo > this.lo || (other.lo === this.lo && !other.loIn)) {
      this.lo = other.lo;
      this.loIn = other.loIn;
    }
    if (other.hi < this.hi || (other.hi === this.hi && !other.hiIn)) {
      this.hi = other.hi;
      this.hiIn = other.hiIn;
    }
    this.nonNumeric &&= other.nonNumeric;
    if (other.except.size > 0) {
      const except = this.#ownExcept();
      for (const value of other.except) except.add(value);
    }
    if (other.only !== null) {
      if (this.only === null) {
        this.only = other.only;
        this.#onlyOwned = false;
      } else {
        // Filters are already combined: the members are in both lists.
        this.only = intersection(this.only, other.only);
        this.#onlyOwned = true;
      }
    }
  }

  /**
   * Widens this set (being built) to hold the members of `other` too; the
   * result may hold more than the union (an over-approximation).
   */
  widenWith(other: ScalarSet<T>): void {
    if (this.only !== null) this.#materialize();
    if (this.only !== null && other.only !== null) {
      const only = this.#ownOnly();
      for (const value of other.only) if (other.has(value)) only.add(value);
      return;
    }
    if (this.only !== null) {
      // Points, widened by a set given by filters: those filters, minus
      // nothing that the points hold.
      const points = this.only;
      this.only = null;
      this.#onlyOwned = false;
      this.#takeRange(other);
      this.nonNumeric = other.nonNumeric;
      this.except = other.except;
      this.#exceptOwned = false;
      for (const value of points) this.#admit(value);
      return;
    }
    if (other.only !== null) {
      for (const value of other.only) if (other.has(value)) this.#admit(value);
      return;
    }
    if (this.#rangeIsEmpty()) {
      this.#takeRange(other);
    } else if (!other.#rangeIsEmpty()) {
      if (other.lo < this.lo || (other.lo === this.lo && other.loIn)) {
        this.lo = other.lo;
        this.loIn = other.loIn;
      }
      if (other.hi > this.hi || (other.hi === this.hi && other.hiIn)) {
        this.hi = other.hi;
        this.hiIn = other.hiIn;
      }
    }
    this.nonNumeric ||= other.nonNumeric;
    // Excluded from the widened set: what both exclude.
    this.except = intersection(this.except, other.except);
    this.#exceptOwned = true;
  }

  #takeRange(other: ScalarSet<T>): void {
    this.lo = other.lo;
    this.loIn = other.loIn;
    this.hi = other.hi;
    this.hiIn = other.hiIn;
  }

  /** Makes `value` a member of this set (given by filters, being built). */
  #admit(value: T): void {
    if (this.except.has(value)) this.#ownExcept().delete(value);
    const n = this.kind === "number" ? value as number : toComparableNumber(value);
    if (Number.isNaN(n)) {
      this.nonNumeric = true;
      return;
    }
    if (this.#rangeIsEmpty()) {
      this.lo = this.hi = n;
      this.loIn = this.hiIn = true;
      return;
    }
    if (n < this.lo || (n === this.lo && !this.loIn)) {
      this.lo = n;
      this.loIn = true;
    }
    if (n > this.hi || (n === this.hi && !this.hiIn)) {
      this.hi = n;
      this.hiIn = true;
    }
  }

  /** Applies the filters to `only` once, so that it holds exactly the members. */
  #materialize(): void {
    const only = this.only!;
    if (
      this.except.size === 0 && this.lo === -Infinity && this.hi === Infinity &&
      (this.nonNumeric || this.kind === "number")
    ) return;
    const kept = new Set<T>();
    for (const value of only) if (this.has(value)) kept.add(value);
    this.only = kept;
    this.#onlyOwned = true;
    this.except = NOTHING;
    this.#exceptOwned = false;
    this.lo = -Infinity;
    this.loIn = false;
    this.hi = Infinity;
    this.hiIn = false;
    this.nonNumeric = this.kind === "string";
  }

  #inRange(n: number): boolean {
    return (n > this.lo || (n === this.lo && this.loIn)) &&
      (n < this.hi || (n === this.hi && this.hiIn));
  }

  #rangeIsEmpty(): boolean {
    return this.lo > this.hi || (this.lo === this.hi && !(this.loIn && this.hiIn));
  }

  #ownOnly(): Set<T> {
    if (!this.#onlyOwned) {
      this.only = new Set(this.only);
      this.#onlyOwned = true;
    }
    return this.only!;
  }

  #ownExcept(): Set<T> {
    if (!this.#exceptOwned) {
      this.except = new Set(this.except);
      this.#exceptOwned = true;
    }
    return this.except;
  }
}

/** The members of both sets, in time proportional to the smaller. */
function intersection<T>(a: ReadonlySet<T>, b: ReadonlySet<T>): Set<T> {
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  const both = new Set<T>();
  for (const value of small) if (large.has(value)) both.add(value);
  return both;
}

/** The values one path can hold: the kinds of {@link ALL_BITS}, numbers and strings. */
export class ValueSet {
  constructor(
    public bits: number,
    /** null: no number. */
    public numbers: ScalarSet<number> | null,
    /** null: no string. */
    public strings: ScalarSet<string> | null,
  ) {}

  /** Every value. */
  static all(): ValueSet {
    return new ValueSet(ALL_BITS, ScalarSet.all("number"), ScalarSet.all("string"));
  }

  /** A copy that shares the inner sets until it changes them. */
  clone(): ValueSet {
    return new ValueSet(this.bits, this.numbers?.clone() ?? null, this.strings?.clone() ?? null);
  }

  /** True when the set has no value. */
  isEmpty(): boolean {
    return this.bits === 0 && (this.numbers === null || this.numbers.isEmpty()) &&
      (this.strings === null || this.strings.isEmpty());
  }

  /** Narrows this set (being built) to the values of `other` too. */
  intersectWith(other: ValueSet): void {
    this.bits &= other.bits;
    if (this.numbers !== null) {
      if (other.numbers === null) this.numbers = null;
      else this.numbers.intersectWith(other.numbers);
    }
    if (this.strings !== null) {
      if (other.strings === null) this.strings = null;
      else this.strings.intersectWith(other.strings);
    }
  }

  /** Widens this set (being built) to the values of `other` too (over-approximated). */
  widenWith(other: ValueSet): void {
    this.bits |= other.bits;
    if (other.numbers !== null) {
      if (this.numbers === null) this.numbers = other.numbers.clone();
      else this.numbers.widenWith(other.numbers);
    }
    if (other.strings !== null) {
      if (this.strings === null) this.strings = other.strings.clone();
      else this.strings.widenWith(other.strings);
    }
  }
}
