import { booleanField, checkOptions, NO_OPTIONS } from "../_internal/check_options.ts";
// This module is browser compatible.
/**
 * JSON exactly as written, on every runtime.
 *
 * The V8 of some runtimes (Deno 2.9 among them; see `docs/security.md`,
 * "JSON exactly as written") has a `JSON.parse` bug: once a key holding a
 * literal backslash has been parsed, a later object whose key is written with
 * an escape (`"\u0065lseEffect"`) can get the earlier key instead of its own.
 * The result depends on what the process parsed before, so one file could
 * mean two things. {@link parseJson} keeps `JSON.parse` for the common case
 * and reads a document whose keys hold escapes with its own strict parser,
 * which gives the object the text means.
 *
 * @module
 */

/** Options of {@link parseJson}. */
export interface ParseJsonOptions {
  /**
   * Also accept `//` and `/* *\/` comments and trailing commas (JSONC), as the
   * configuration and authoring documents do. Default false: strict JSON.
   */
  comments?: boolean;
}

/**
 * A text that is not JSON. The message names the position (line and column,
 * from 1) and what was expected, never the text itself, so that a file that
 * is not what its path promised is not quoted into logs.
 */
export class JsonParseError extends SyntaxError {
  /** Offset of the problem in the text, in UTF-16 code units. */
  readonly offset: number;
  /** Line of the problem, from 1. */
  readonly line: number;
  /** Column of the problem, from 1 (UTF-16 code units). */
  readonly column: number;
  /** What is wrong, without the position. */
  readonly reason: string;

  /** Creates the error for `reason` at `offset` of `text`. */
  constructor(reason: string, text: string, offset: number) {
    let line = 1;
    let lineStart = 0;
    for (let i = text.indexOf("\n"); i !== -1 && i < offset; i = text.indexOf("\n", i + 1)) {
      line++;
      lineStart = i + 1;
    }
    const column = offset - lineStart + 1;
    super(`${reason} at line ${line}, column ${column}`);
    this.name = "JsonParseError";
    this.offset = offset;
    this.line = line;
    this.column = column;
    this.reason = reason;
  }
}

/**
 * Parses JSON text into the value it means, like `JSON.parse` without a
 * reviver: same numbers, same key order, `__proto__` as an ordinary own key,
 * the last of duplicate keys wins. Unlike `JSON.parse`, the result never
 * depends on what the process parsed before (see the module doc), and a
 * failure is a {@link JsonParseError} that does not quote the text.
 *
 * Cost: `JSON.parse` plus one search for a backslash; a text that has
 * backslashes is also scanned once for escaped keys, and only a text with an
 * escaped key is parsed a second time by the strict parser (linear in the
 * text, a few times slower than `JSON.parse`).
 *
 * @throws {JsonParseError} When the text is not JSON (or JSONC, with `comments`).
 *
 * @example Escaped keys mean what they say
 * ```ts
 * import { parseJson } from "./parse_json.ts";
 * import assert from "node:assert/strict";
 *
 * assert.deepEqual(parseJson('{"\\u0065lseEffect":{"type":"deny"}}'), { elseEffect: { type: "deny" } });
 * assert.deepEqual(parseJson('{"a":1, /* note *\/ "b":[2,],}', { comments: true }), { a: 1, b: [2] });
 * assert.throws(() => parseJson("root:x:0:0"), { name: "JsonParseError", line: 1, column: 1 });
 * ```
 */
export function parseJson(text: string, options: ParseJsonOptions = NO_OPTIONS): unknown {
  if (options !== NO_OPTIONS) checkOptions(options, { comments: booleanField }, "parseJson");
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    // Not strict JSON: JSONC, or an error to report with its position.
    return new StrictParser(text, options.comments === true).parse();
  }
  if (text.indexOf("\\") === -1 || !hasEscapedKey(text)) return value;
  value = undefined; // the collector may take the misread copy while the text is read again
  return new StrictParser(text, false).parse();
}

/**
 * True when a key of the JSON text `text` holds an escape. The text must be
 * valid JSON: a backslash is then always inside a string, and a string
 * followed by `:` is a key. Linear: each string with a backslash is scanned
 * once, from its first backslash to its end.
 */
export function hasEscapedKey(text: string): boolean {
  let at = text.indexOf("\\");
  while (at !== -1) {
    let i = at;
    for (; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) break;
    }
    // i is at the string's closing quote.
    let next = i + 1;
    while (isWhitespace(text.charCodeAt(next))) next++;
    if (text.charCodeAt(next) === COLON) return true;
    at = text.indexOf("\\", i + 1);
  }
  return false;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const COMMA = 0x2c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const SLASH = 0x2f;
const STAR = 0x2a;
const MINUS = 0x2d;

function isWhitespace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

/** The character code each one-letter escape stands for. */
const ESCAPES: Record<number, number> = {
  0x22: 0x22, // \"
  0x5c: 0x5c, // \\
  0x2f: 0x2f, // \/
  0x62: 0x08, // \b
  0x66: 0x0c, // \f
  0x6e: 0x0a, // \n
  0x72: 0x0d, // \r
  0x74: 0x09, // \t
};

const HEX4 = /^[0-9a-fA-F]{4}$/;

type Container = unknown[] | Record<string, unknown>;

/**
 * A strict JSON parser (RFC 8259), with JSONC comments and trailing commas
 * when asked. Iterative, so nesting depth costs heap, not stack: a text of
 * any depth is parsed or refused, never a stack overflow.
 */
class StrictParser {
  private i = 0;
  private readonly buffer = new Uint16Array(4096);

  constructor(private readonly text: string, private readonly comments: boolean) {}

  parse(): unknown {
    const text = this.text;
    const stack: Container[] = [];
    const keys: string[] = [];
    let value: unknown;
    value: for (;;) {
      this.skip();
      const c = text.charCodeAt(this.i);
      if (c === OPEN_BRACE) {
        this.i++;
        this.skip();
        if (text.charCodeAt(this.i) === CLOSE_BRACE) {
          this.i++;
          value = {};
        } else {
          stack.push({});
          keys.push(this.key());
          continue value;
        }
      } else if (c === OPEN_BRACKET) {
        this.i++;
        this.skip();
        if (text.charCodeAt(this.i) === CLOSE_BRACKET) {
          this.i++;
          value = [];
        } else {
          stack.push([]);
          continue value;
        }
      } else {
        value = this.scalar(c);
      }
      // A value is complete: add it to the containers it closes.
      for (;;) {
        const top = stack[stack.length - 1];
        if (top === undefined) {
          this.skip();
          if (this.i < text.length) this.fail("unexpected text after the JSON value");
          return value;
        }
        const isArray = Array.isArray(top);
        if (isArray) top.push(value);
        else setOwn(top, keys.pop()!, value);
        this.skip();
        const next = text.charCodeAt(this.i);
        const close = isArray ? CLOSE_BRACKET : CLOSE_BRACE;
        if (next === COMMA) {
          this.i++;
          this.skip();
          if (!(this.comments && text.charCodeAt(this.i) === close)) {
            if (!isArray) keys.push(this.key());
            continue value;
          }
        } else if (next !== close) {
          this.fail(isArray ? "expected ',' or ']'" : "expected ',' or '}'");
        }
        this.i++;
        value = stack.pop();
      }
    }
  }

  /** A property name and its colon; leaves the position after the colon. */
  private key(): string {
    if (this.text.charCodeAt(this.i) !== QUOTE) {
      this.fail("expected a property name in double quotes");
    }
    const key = this.string();
    this.skip();
    if (this.text.charCodeAt(this.i) !== COLON) this.fail("expected ':' after a property name");
    this.i++;
    return key;
  }

  private scalar(c: number): unknown {
    if (c === QUOTE) return this.string();
    if (c === MINUS || isDigit(c)) return this.number();
    if (this.text.startsWith("true", this.i)) {
      this.i += 4;
      return true;
    }
    if (this.text.startsWith("false", this.i)) {
      this.i += 5;
      return false;
    }
    if (this.text.startsWith("null", this.i)) {
      this.i += 4;
      return null;
    }
    if (Number.isNaN(c)) this.fail("unexpected end of the text: a value is missing");
    return this.fail("unexpected character: expected a value");
  }

  /** A string token; the position is at its opening quote. */
  private string(): string {
    const text = this.text;
    const start = this.i + 1;
    let i = start;
    for (;;) {
      const c = text.charCodeAt(i);
      if (c === QUOTE) {
        this.i = i + 1;
        return text.slice(start, i);
      }
      if (c === BACKSLASH) return this.escapedString(start, i);
      if (c < 0x20 || i >= text.length) this.stringFail(i);
      i++;
    }
  }

  /**
   * The rest of a string that holds escapes, from `start` (its first
   * character) with the first backslash at `i`. Characters are copied into
   * a buffer flushed every few thousand, so a string of escapes costs the
   * same per character as any other.
   */
  private escapedString(start: number, i: number): string {
    const text = this.text;
    const buffer = this.buffer;
    const parts: string[] = [text.slice(start, i)];
    let n = 0;
    for (;;) {
      if (n >= buffer.length - 1) {
        parts.push(String.fromCharCode.apply(null, buffer.subarray(0, n) as unknown as number[]));
        n = 0;
      }
      const c = text.charCodeAt(i);
      if (c === QUOTE) break;
      if (c === BACKSLASH) {
        const e = text.charCodeAt(i + 1);
        if (e === 0x75 /* u */) {
          const hex = text.slice(i + 2, i + 6);
          if (!HEX4.test(hex)) this.fail("invalid \\u escape in a string", i);
          buffer[n++] = parseInt(hex, 16);
          i += 6;
        } else {
          const escaped = ESCAPES[e];
          if (escaped === undefined) this.fail("invalid escape in a string", i);
          buffer[n++] = escaped;
          i += 2;
        }
      } else if (c < 0x20 || i >= text.length) {
        this.stringFail(i);
      } else {
        buffer[n++] = c;
        i++;
      }
    }
    parts.push(String.fromCharCode.apply(null, buffer.subarray(0, n) as unknown as number[]));
    this.i = i + 1;
    return parts.join("");
  }

  private stringFail(i: number): never {
    return this.fail(
      i >= this.text.length
        ? "unexpected end of the text inside a string"
        : "control character in a string (it must be escaped)",
      i,
    );
  }

  private number(): number {
    const text = this.text;
    const start = this.i;
    let i = start;
    if (text.charCodeAt(i) === MINUS) i++;
    if (text.charCodeAt(i) === 0x30) {
      i++;
    } else if (isDigit(text.charCodeAt(i))) {
      while (isDigit(text.charCodeAt(i))) i++;
    } else {
      this.fail("invalid number", i);
    }
    if (text.charCodeAt(i) === 0x2e /* . */) {
      i++;
      if (!isDigit(text.charCodeAt(i))) this.fail("invalid number: a digit must follow '.'", i);
      while (isDigit(text.charCodeAt(i))) i++;
    }
    const e = text.charCodeAt(i);
    if (e === 0x65 || e === 0x45) {
      i++;
      const sign = text.charCodeAt(i);
      if (sign === 0x2b || sign === MINUS) i++;
      if (!isDigit(text.charCodeAt(i))) this.fail("invalid number: the exponent has no digits", i);
      while (isDigit(text.charCodeAt(i))) i++;
    }
    this.i = i;
    // The same conversion JSON.parse applies to the same literal.
    return Number(text.slice(start, i));
  }

  /** Skips whitespace and, in JSONC, comments. */
  private skip(): void {
    const text = this.text;
    let i = this.i;
    for (;;) {
      const c = text.charCodeAt(i);
      if (isWhitespace(c)) {
        i++;
      } else if (c === SLASH && this.comments) {
        const d = text.charCodeAt(i + 1);
        if (d === SLASH) {
          const end = text.indexOf("\n", i + 2);
          i = end === -1 ? text.length : end + 1;
        } else if (d === STAR) {
          const end = text.indexOf("*/", i + 2);
          if (end === -1) this.fail("unterminated /* comment", i);
          i = end + 2;
        } else {
          break;
        }
      } else {
        break;
      }
    }
    this.i = i;
  }

  private fail(reason: string, at: number = this.i): never {
    if (at >= this.text.length && !reason.startsWith("unexpected end")) {
      reason = "unexpected end of the text: " + reason;
    }
    throw new JsonParseError(reason, this.text, at);
  }
}

/** `container[key] = value` as JSON.parse does it: `__proto__` is an own data property. */
function setOwn(container: Record<string, unknown>, key: string, value: unknown): void {
  if (key === "__proto__") {
    Object.defineProperty(container, key, {
      value,
      writable: true,
      enumerable: true,
      configurable: true,
    });
  } else {
    container[key] = value;
  }
}
