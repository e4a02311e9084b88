// This module is browser compatible.
// Shared value checks of the bundle format.
import { EFFECT_TYPES, type EffectType } from "../public/vocabulary.ts";

/** Conditions nest at most this deep; deeper is `CONDITION_TOO_DEEP`. */
export const MAX_CONDITION_DEPTH = 64;

/** True for an object that is not an array and not null. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** True for a plain object: its prototype is `Object.prototype` or `null`. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** True for a string with at least one character. */
export function isNonEmptyString(value: unknown): value is string {
  return typeof value === "string" && value.length > 0;
}

/** True for a finite number. */
export function isFiniteNumber(value: unknown): value is number {
  return typeof value === "number" && Number.isFinite(value);
}

/** True for a JSON primitive usable as a condition value. */
export function isConditionValue(value: unknown): value is string | number | boolean | null {
  return value === null || typeof value === "string" || typeof value === "boolean" ||
    isFiniteNumber(value);
}

/** True when `value` is one of the five effect types. */
export function isEffectType(value: unknown): value is EffectType {
  return typeof value === "string" && (EFFECT_TYPES as readonly string[]).includes(value);
}

const JSON_NUMBER = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?$/;

/**
 * Numeric coercion of ordering comparisons: a finite number, or a string that
 * is exactly a JSON number literal with a finite value; anything else is NaN
 * (so every comparison with it is false).
 */
export function toComparableNumber(value: unknown): number {
  if (typeof value === "number") return Number.isFinite(value) ? value : NaN;
  if (typeof value === "string" && JSON_NUMBER.test(value)) {
    const n = Number(value);
    return Number.isFinite(n) ? n : NaN;
  }
  return NaN;
}

/** {@link jsonProblems}: `value` nests deeper than the limit. */
export const TOO_DEEP = 1;
/** {@link jsonProblems}: `value` holds a number that is not finite. */
export const NOT_FINITE = 2;
/**
 * {@link jsonProblems}: an object in `value` does not list its keys in
 * ascending UTF-16 code unit order, the canonical payload's
 * (`canonical_payload.ts`). Not a problem of the value, a fact about it: the
 * load pipeline then writes the payload with its own writer instead of
 * `JSON.stringify`.
 */
export const KEYS_OUT_OF_ORDER = 4;

/**
 * What is wrong with `value` as JSON, in one walk that allocates nothing:
 * {@link TOO_DEEP} when it nests deeper than `limit` levels of objects and
 * arrays (the walk stops there, and says nothing else), otherwise
 * {@link NOT_FINITE} when it holds a number that is not finite, and
 * {@link KEYS_OUT_OF_ORDER} when an object's keys are out of order; 0 when
 * none of these.
 */
export function jsonProblems(value: unknown, limit: number): number {
  if (typeof value === "number") return Number.isFinite(value) ? 0 : NOT_FINITE;
  if (typeof value !== "object" || value === null) return 0;
  if (limit <= 0) return TOO_DEEP;
  let found = 0;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const item = value[i];
      // Numbers and strings here, not in a call: most values of a bundle are leaves.
      if (typeof item === "number") {
        if (!Number.isFinite(item)) found |= NOT_FINITE;
      } else if (typeof item === "object" && item !== null) {
        found |= jsonProblems(item, limit - 1);
        if (found & TOO_DEEP) return TOO_DEEP;
      }
    }
    return found;
  }
  // for-in allocates nothing (Object.values would, for every object of the bundle).
  let previous: string | undefined;
  for (const key in value) {
    if (previous !== undefined && !(previous < key)) found |= KEYS_OUT_OF_ORDER;
    previous = key;
    const child = (value as Record<string, unknown>)[key];
    if (typeof child === "number") {
      if (!Number.isFinite(child) && Object.hasOwn(value, key)) found |= NOT_FINITE;
    } else if (typeof child === "object" && child !== null && Object.hasOwn(value, key)) {
      found |= jsonProblems(child, limit - 1);
      if (found & TOO_DEEP) return TOO_DEEP;
    }
  }
  return found;
}

/**
 * The JSON Pointer, relative to `value`, of the first number inside `value`
 * that is not finite, or null when there is none. JSON has no such numbers:
 * one comes from a literal that overflows (`1e400` parses to `Infinity`) or
 * from a JavaScript object (`NaN`). The canonical payload cannot represent
 * them (`JSON.stringify` writes `null`), so a bundle holding one is refused.
 * Call it on values whose depth is already bounded. The top-level property
 * `skip`, if given, is not looked at.
 */
export function findNonFiniteNumber(value: unknown, skip?: string): string | null {
  if (typeof value === "number") return Number.isFinite(value) ? null : "";
  if (typeof value !== "object" || value === null) return null;
  for (const [key, child] of Object.entries(value)) {
    if (key === skip) continue;
    const found = findNonFiniteNumber(child);
    if (found !== null) return `/${key.replaceAll("~", "~0").replaceAll("/", "~1")}${found}`;
  }
  return null;
}
