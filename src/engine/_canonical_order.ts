// This module is browser compatible.
// Whether `JSON.stringify` of a value already is its canonical JSON: true when
// every object's own keys are in ascending UTF-16 code unit order and nothing
// in it serialises differently from the canonical writer (`_utf8_writer.ts`).
// One walk that allocates nothing; anything unusual gives false, and the
// caller falls back to the writer, which is right for every input.
import { MAX_JSON_DEPTH } from "./_utf8_writer.ts";

/**
 * True when `JSON.stringify(value)` is the canonical JSON of `value`: plain
 * objects and arrays only, keys in order at every depth, finite numbers,
 * nesting within the writer's limit, and no `toJSON` anyone could have added
 * to the prototypes JSON.stringify consults.
 */
export function isCanonicallyOrdered(value: unknown): boolean {
  return prototypesAsBuilt() && ordered(value, 0);
}

/**
 * True when nobody has added to the prototypes what `JSON.stringify` or a
 * `for…in` walk would consult: a `toJSON` on `Object.prototype` or
 * `Array.prototype`, or an enumerable key on `Object.prototype`.
 */
export function prototypesAsBuilt(): boolean {
  const objectToJson = (Object.prototype as { toJSON?: unknown }).toJSON;
  const arrayToJson = (Array.prototype as { toJSON?: unknown }).toJSON;
  if (objectToJson !== undefined || arrayToJson !== undefined) return false;
  for (const _ in {}) return false;
  return true;
}

function ordered(value: unknown, depth: number): boolean {
  switch (typeof value) {
    case "string":
    case "boolean":
      return true;
    case "number":
      return Number.isFinite(value);
    case "object":
      break;
    default:
      return false; // undefined, functions, symbols, bigints
  }
  if (value === null) return true;
  if (depth >= MAX_JSON_DEPTH) return false;
  if (Array.isArray(value)) {
    if (Object.getPrototypeOf(value) !== Array.prototype) return false;
    for (let i = 0; i < value.length; i++) {
      if (!ordered(value[i], depth + 1)) return false;
    }
    return true;
  }
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return false;
  let previous: string | null = null;
  for (const key in value) {
    if (previous !== null && !(previous < key)) return false;
    if (!ordered((value as Record<string, unknown>)[key], depth + 1)) return false;
    previous = key;
  }
  return true;
}
