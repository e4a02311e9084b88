/**
 * Where a JSON Pointer (RFC 6901) points in the text of a JSON document: the
 * character range of the value, so that a click on an issue selects its
 * place in the editor. Works on JSON with comments and trailing commas (the
 * drafts and suites people write), needs no parse tree, and is linear in the
 * text: one forward scan, containers skipped by counting brackets.
 *
 * @module
 */
import { parseJson } from "../src/engine/parse_json.ts";

/** A range of the text, in UTF-16 code units: `[start, end)`. */
export interface TextRange {
  start: number;
  end: number;
  /**
   * True when the range is the value the pointer names; false when the
   * pointer names something missing (a field an issue says is required) and
   * the range is its nearest existing ancestor.
   */
  exact: boolean;
}

/** The segments of a JSON Pointer (`/a~1b/0` → `["a/b", "0"]`); `""` is the whole document. */
export function pointerSegments(pointer: string): string[] | null {
  if (pointer === "") return [];
  if (!pointer.startsWith("/")) return null;
  return pointer.slice(1).split("/").map((s) => s.replaceAll("~1", "/").replaceAll("~0", "~"));
}

/**
 * The range of the value `pointer` names in `text`, or of its nearest
 * existing ancestor (`exact: false`); null when the text has no value at
 * all or the pointer is malformed. Text that is not valid JSON is read as
 * far as it goes.
 */
export function locatePointer(text: string, pointer: string): TextRange | null {
  const segments = pointerSegments(pointer);
  if (segments === null) return null;
  const scanner = new Scanner(text);
  let start = scanner.skipBlank(0);
  if (start >= text.length) return null;
  for (const segment of segments) {
    const inner = scanner.child(start, segment);
    if (inner === null) {
      return { start, end: scanner.skipValue(start), exact: false };
    }
    start = inner;
  }
  return { start, end: scanner.skipValue(start), exact: true };
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const SLASH = 0x2f;
const STAR = 0x2a;

class Scanner {
  constructor(private readonly text: string) {}

  /** The position of the first character at or after `i` that is not blank or a comment. */
  skipBlank(i: number): number {
    const text = this.text;
    for (;;) {
      const c = text.charCodeAt(i);
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) {
        i++;
      } else if (c === SLASH && text.charCodeAt(i + 1) === SLASH) {
        const end = text.indexOf("\n", i + 2);
        i = end < 0 ? text.length : end + 1;
      } else if (c === SLASH && text.charCodeAt(i + 1) === STAR) {
        const end = text.indexOf("*/", i + 2);
        i = end < 0 ? text.length : end + 2;
      } else {
        return i;
      }
    }
  }

  /** The position after the string whose opening quote is at `i`. */
  skipString(i: number): number {
    const text = this.text;
    for (i++; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) return i + 1;
    }
    return text.length;
  }

  /** The position after the value starting at `i`. */
  skipValue(i: number): number {
    const text = this.text;
    const c = text.charCodeAt(i);
    if (c === QUOTE) return this.skipString(i);
    if (c !== 0x7b && c !== 0x5b) {
      // A number or a literal: up to the next delimiter.
      while (i < text.length && !/[\s,\]}/]/.test(text[i]!)) i++;
      return i;
    }
    let depth = 0;
    while (i < text.length) {
      const d = text.charCodeAt(i);
      if (d === QUOTE) {
        i = this.skipString(i);
        continue;
      }
      if (d === SLASH) {
        const next = this.skipBlank(i);
        if (next > i) {
          i = next;
          continue;
        }
      }
      if (d === 0x7b || d === 0x5b) depth++;
      else if (d === 0x7d || d === 0x5d) {
        depth--;
        if (depth === 0) return i + 1;
      }
      i++;
    }
    return text.length;
  }

  /** The start of the member `segment` of the object or array at `i`, or null. */
  child(i: number, segment: string): number | null {
    const text = this.text;
    const open = text.charCodeAt(i);
    if (open === 0x5b) {
      if (!/^(0|[1-9][0-9]*)$/.test(segment)) return null;
      let wanted = Number(segment);
      let at = this.skipBlank(i + 1);
      while (at < text.length && text.charCodeAt(at) !== 0x5d) {
        if (wanted === 0) return at;
        wanted--;
        at = this.afterMember(this.skipValue(at));
        if (at < 0) return null;
      }
      return null;
    }
    if (open !== 0x7b) return null;
    let at = this.skipBlank(i + 1);
    let found: number | null = null;
    while (at < text.length && text.charCodeAt(at) === QUOTE) {
      const keyEnd = this.skipString(at);
      const key = decodeKey(text.slice(at, keyEnd));
      const colon = this.skipBlank(keyEnd);
      if (text.charCodeAt(colon) !== 0x3a) return found;
      const value = this.skipBlank(colon + 1);
      // The last of duplicate keys is the one that counts, as in JSON.parse.
      if (key === segment) found = value;
      at = this.afterMember(this.skipValue(value));
      if (at < 0) break;
    }
    return found;
  }

  /** After a member ending at `i`: the start of the next member, or -1 at the container's end. */
  private afterMember(i: number): number {
    const at = this.skipBlank(i);
    if (this.text.charCodeAt(at) !== 0x2c) return -1;
    return this.skipBlank(at + 1);
  }
}

/** The key a JSON string token means (`"a\u002fb"` → `a/b`); the raw text when it does not decode. */
function decodeKey(token: string): string {
  if (!token.includes("\\")) return token.slice(1, -1);
  try {
    const value = parseJson(token);
    return typeof value === "string" ? value : token;
  } catch {
    return token;
  }
}
