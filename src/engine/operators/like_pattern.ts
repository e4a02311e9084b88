// This module is browser compatible.
/**
 * Patterns of `like` conditions (docs/bundle-format.md "Conditions"): `*`
 * matches any run of characters (also none), `\` makes the next character
 * literal (`\*`, `\\`), every other character matches itself, and a pattern
 * matches only a whole string. A pattern is compiled once into its literal
 * parts (the text before the first `*`, between stars, after the last);
 * matching checks the first and last parts at the ends and finds each
 * middle part at its leftmost place after the one before, which is where
 * any match can put it: one left-to-right pass, never backtracking, so the
 * cost is bounded by the string's length times the pattern's, and is
 * usually linear. Strings compare as UTF-16 code units, case-sensitive.
 *
 * Not exported by `mod.ts`.
 *
 * @module
 */

/** The longest pattern, in characters (Unicode code points, as a JSON Schema's maxLength counts). */
export const MAX_LIKE_PATTERN = 1024;

/** The regular expression of the patterns accepted (no lone `\` at the end), for the JSON Schema. */
export const LIKE_PATTERN_PATTERN = "^(?:[^\\\\]|\\\\[\\s\\S])*$";

/** A compiled pattern. */
export interface LikePattern {
  /** The literal parts between stars, in order; one part when the pattern has no `*`. */
  readonly parts: readonly string[];
}

/** The length of `text` in Unicode code points (a lone surrogate counts as one). */
export function codePointLength(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
    count++;
  }
  return count;
}

/**
 * The pattern compiled, or null when it is not one: not a string, longer
 * than {@link MAX_LIKE_PATTERN} characters, or ending in a lone `\`.
 */
export function compileLikePattern(pattern: unknown): LikePattern | null {
  if (typeof pattern !== "string" || pattern.length > 2 * MAX_LIKE_PATTERN) return null;
  if (pattern.length > MAX_LIKE_PATTERN && codePointLength(pattern) > MAX_LIKE_PATTERN) return null;
  const parts: string[] = [];
  let part = "";
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === "\\") {
      if (i + 1 === pattern.length) return null;
      part += pattern[++i];
    } else if (c === "*") {
      parts.push(part);
      part = "";
    } else {
      part += c;
    }
  }
  parts.push(part);
  return { parts };
}

/** Whether the whole of `text` matches the compiled pattern. */
export function likeMatches(pattern: LikePattern, text: string): boolean {
  const parts = pattern.parts;
  const first = parts[0]!;
  if (parts.length === 1) return text === first;
  const last = parts[parts.length - 1]!;
  // The first and last parts are anchored, and may not overlap.
  if (text.length < first.length + last.length) return false;
  if (!text.startsWith(first) || !text.endsWith(last)) return false;
  let from = first.length;
  const end = text.length - last.length;
  for (let i = 1; i < parts.length - 1; i++) {
    const part = parts[i]!;
    if (part.length === 0) continue;
    const at = text.indexOf(part, from);
    if (at < 0 || at + part.length > end) return false;
    from = at + part.length;
  }
  return true;
}

/**
 * The pattern written one way: runs of `*` as one, only `*` and `\`
 * escaped. Two patterns with the same canonical form match the same strings
 * (`*a` and `**a`, `\a` and `a`); `diffBundles` compares them so.
 */
export function canonicalLikePattern(pattern: LikePattern): string {
  const escape = (part: string) => part.replace(/[\\*]/g, (c) => `\\${c}`);
  const out: string[] = [];
  const parts = pattern.parts;
  for (let i = 0; i < parts.length; i++) {
    // An empty middle part is two stars in a row: one star says the same.
    if (i > 0 && i < parts.length - 1 && parts[i] === "") continue;
    out.push(escape(parts[i]!));
  }
  return out.join("*");
}
