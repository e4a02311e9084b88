// This module is browser compatible.
/**
 * Canonical JSON written straight into UTF-8 bytes: keys sorted by UTF-16
 * code units, no whitespace, and exactly the escaping and number format of
 * `JSON.stringify` (then UTF-8 encoded, as `TextEncoder` would). Writing
 * bytes directly avoids building a large string of many small pieces, then
 * encoding it again: about four times faster on an 8 MiB bundle.
 *
 * @module
 */
import { PolicyError } from "../public/policy_error.ts";

/** Nesting deeper than this cannot come from a valid bundle; refuse it rather than overflow the stack. */
export const MAX_JSON_DEPTH = 512;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const HEX = "0123456789abcdef";
/** `JSON.stringify`'s short escapes of control characters, by code unit. */
const SHORT_ESCAPES: Record<number, number> = {
  0x08: 0x62, // \b
  0x09: 0x74, // \t
  0x0a: 0x6e, // \n
  0x0c: 0x66, // \f
  0x0d: 0x72, // \r
};

/** Strings at least this long that need no care are written by the runtime's encoder. */
const NATIVE_MIN_LENGTH = 64;
/** What the encoder would not write as JSON.stringify does: escapes, and surrogates (lone ones are escaped). */
// deno-lint-ignore no-control-regex -- control characters are exactly what it finds
const NEEDS_CARE = /[\u0000-\u001f"\\\ud800-\udfff]/;
const ENCODER = new TextEncoder();

/** A growable UTF-8 buffer with a canonical JSON serialiser. */
export class Utf8Writer {
  #buffer: Uint8Array<ArrayBuffer>;
  #length = 0;

  /** @param capacity The expected size in bytes. */
  constructor(capacity = 1024) {
    this.#buffer = new Uint8Array(Math.max(16, Math.ceil(capacity)));
  }

  /** The bytes written so far, in a buffer of their own. */
  bytes(): Uint8Array<ArrayBuffer> {
    return this.#buffer.slice(0, this.#length);
  }

  /** Serialises any value; `undefined`, functions and symbols become `null`, as array entries do. */
  value(value: unknown, depth: number): void {
    switch (typeof value) {
      case "string":
        return this.#string(value);
      case "number":
        if (!Number.isFinite(value)) {
          // JSON.stringify would write null: a signature over that could not tell
          // 1e400 (which parses to Infinity) from null, whose meaning differs.
          throw new PolicyError(
            "BUNDLE_INVALID",
            `the document holds a number that is not finite (${value}); JSON cannot represent it (a literal such as 1e400 overflows)`,
          );
        }
        return this.#ascii(String(value));
      case "boolean":
        return this.#ascii(value ? "true" : "false");
      case "bigint":
        throw new TypeError("Do not know how to serialize a BigInt");
      case "object":
        if (value === null) return this.#ascii("null");
        if (depth >= MAX_JSON_DEPTH) throw tooDeep();
        return Array.isArray(value)
          ? this.#array(value, depth)
          : this.#object(value as Record<string, unknown>, depth);
      default:
        return this.#ascii("null");
    }
  }

  #array(array: unknown[], depth: number): void {
    this.#byte(0x5b); // [
    for (let i = 0; i < array.length; i++) {
      if (i > 0) this.#byte(0x2c); // ,
      this.value(array[i], depth + 1);
    }
    this.#byte(0x5d); // ]
  }

  #object(record: Record<string, unknown>, depth: number): void {
    const keys = sortKeys(Object.keys(record));
    this.#byte(0x7b); // {
    let first = true;
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i]!;
      const v = record[key];
      // Left out, as JSON.stringify leaves them out of objects.
      if (v === undefined || typeof v === "function" || typeof v === "symbol") continue;
      if (!first) this.#byte(0x2c); // ,
      first = false;
      this.#string(key);
      this.#byte(0x3a); // :
      this.value(v, depth + 1);
    }
    this.#byte(0x7d); // }
  }

  /** A JSON string literal: ASCII copied as is, the rest escaped or UTF-8 encoded. */
  #string(text: string): void {
    if (text.length >= NATIVE_MIN_LENGTH && !NEEDS_CARE.test(text)) {
      // Nothing to escape and no surrogate: the runtime's encoder writes
      // exactly these bytes, at memory speed (a long string is otherwise
      // the slowest thing in a bundle to write).
      this.#reserve(text.length * 3 + 2);
      const buffer = this.#buffer;
      buffer[this.#length++] = QUOTE;
      this.#length += ENCODER.encodeInto(text, buffer.subarray(this.#length)).written;
      buffer[this.#length++] = QUOTE;
      return;
    }
    this.#reserve(text.length * 6 + 2); // the longest output of one code unit is "\u00xx"
    const buffer = this.#buffer;
    let at = this.#length;
    buffer[at++] = QUOTE;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c < 0x80) {
        if (c >= 0x20 && c !== QUOTE && c !== BACKSLASH) {
          buffer[at++] = c;
        } else if (c === QUOTE || c === BACKSLASH || SHORT_ESCAPES[c] !== undefined) {
          buffer[at++] = BACKSLASH;
          buffer[at++] = c === QUOTE || c === BACKSLASH ? c : SHORT_ESCAPES[c]!;
        } else {
          at = writeUnicodeEscape(buffer, at, c);
        }
      } else if (c < 0x800) {
        buffer[at++] = 0xc0 | (c >> 6);
        buffer[at++] = 0x80 | (c & 0x3f);
      } else if (c < 0xd800 || c > 0xdfff) {
        buffer[at++] = 0xe0 | (c >> 12);
        buffer[at++] = 0x80 | ((c >> 6) & 0x3f);
        buffer[at++] = 0x80 | (c & 0x3f);
      } else {
        const next = i + 1 < text.length ? text.charCodeAt(i + 1) : 0;
        if (c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
          // A surrogate pair: one code point, four bytes.
          const point = ((c - 0xd800) << 10) + (next - 0xdc00) + 0x10000;
          buffer[at++] = 0xf0 | (point >> 18);
          buffer[at++] = 0x80 | ((point >> 12) & 0x3f);
          buffer[at++] = 0x80 | ((point >> 6) & 0x3f);
          buffer[at++] = 0x80 | (point & 0x3f);
          i++;
        } else {
          at = writeUnicodeEscape(buffer, at, c); // a lone surrogate, as JSON.stringify writes it
        }
      }
    }
    buffer[at++] = QUOTE;
    this.#length = at;
  }

  /** Text known to be ASCII with nothing to escape (numbers, literals). */
  #ascii(text: string): void {
    this.#reserve(text.length);
    const buffer = this.#buffer;
    let at = this.#length;
    for (let i = 0; i < text.length; i++) buffer[at++] = text.charCodeAt(i);
    this.#length = at;
  }

  #byte(byte: number): void {
    this.#reserve(1);
    this.#buffer[this.#length++] = byte;
  }

  #reserve(count: number): void {
    const needed = this.#length + count;
    if (needed <= this.#buffer.length) return;
    const grown = new Uint8Array(Math.max(needed, this.#buffer.length * 2));
    grown.set(this.#buffer.subarray(0, this.#length));
    this.#buffer = grown;
  }
}

/** The error for a document nesting deeper than {@link MAX_JSON_DEPTH}. */
export function tooDeep(): PolicyError {
  return new PolicyError(
    "BUNDLE_INVALID",
    `the document nests deeper than ${MAX_JSON_DEPTH} levels; flatten it`,
  );
}

/** Writes `\uXXXX` (lowercase hex, as JSON.stringify does); returns the new end. */
function writeUnicodeEscape(buffer: Uint8Array, at: number, c: number): number {
  buffer[at++] = BACKSLASH;
  buffer[at++] = 0x75; // u
  for (let shift = 12; shift >= 0; shift -= 4) buffer[at++] = HEX.charCodeAt((c >> shift) & 0xf);
  return at;
}

/** Sorts keys by UTF-16 code units; insertion sort for the small objects bundles are made of. */
function sortKeys(keys: string[]): string[] {
  if (keys.length > 16) return keys.sort();
  for (let i = 1; i < keys.length; i++) {
    const key = keys[i]!;
    let j = i - 1;
    while (j >= 0 && keys[j]! > key) {
      keys[j + 1] = keys[j]!;
      j--;
    }
    keys[j + 1] = key;
  }
  return keys;
}
