// This module is browser compatible.
/**
 * `text` as a message quotes it: at most `max` characters, the last of a
 * longer one an ellipsis.
 *
 * @example
 * ```ts
 * import { cutText } from "./cut_text.ts";
 * import assert from "node:assert/strict";
 *
 * assert.equal(cutText("abcdef", 4), "abc…");
 * assert.equal(cutText("abcd", 4), "abcd");
 * ```
 */
export function cutText(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
