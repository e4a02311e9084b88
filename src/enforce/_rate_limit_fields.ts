// This module is browser compatible.
/**
 * The `RateLimit-Policy` and `RateLimit` response fields of
 * draft-ietf-httpapi-ratelimit-headers (revision 10, and unchanged for these
 * fields since): Structured Field Lists (RFC 9651) of one Item, a String
 * naming the policy, with `q` (quota) and `w` (window, whole seconds) on the
 * policy and `r` (available quota) and `t` (seconds) on the limit. No `pk`:
 * the partition key would echo a context value. See docs/enforcement.md
 * "Response fields".
 *
 * @module
 */
/** Printable ASCII but `"`, `\\` and `%`: written as it is. */
const PLAIN = /^[\x20\x21\x23\x24\x26-\x5b\x5d-\x7e]*$/;

/**
 * A Structured Field String: printable ASCII with `"` and `\` escaped.
 * Other characters are percent-encoded as UTF-8 (a lone surrogate as
 * U+FFFD), so the field is always valid.
 */
export function sfString(text: string): string {
  if (PLAIN.test(text)) return `"${text}"`;
  let out = '"';
  for (const char of text) {
    const code = char.codePointAt(0)!;
    if (code === 0x22 || code === 0x5c) out += `\\${char}`;
    else if (code >= 0x20 && code <= 0x7e && char !== "%") out += char;
    else {
      for (const byte of new TextEncoder().encode(char)) {
        out += `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
      }
    }
  }
  return `${out}"`;
}

/** Whole seconds, rounded up, of a positive µs duration. */
export function ceilSeconds(micros: number): number {
  return Math.ceil(micros / 1e6);
}

/** `RateLimit-Policy: "<name>";q=<limit>;w=<window seconds, rounded up, at least 1>`. */
export function rateLimitPolicy(name: string, limit: number, windowMicros: number): string {
  return `${sfString(name)};q=${limit};w=${Math.max(1, ceilSeconds(windowMicros))}`;
}

/** `RateLimit: <quoted name>;r=<remaining>;t=<seconds>`, without `t` when `seconds` is negative. */
export function rateLimit(quotedName: string, remaining: number, seconds: number): string {
  return `${quotedName};r=${remaining}${seconds >= 0 ? `;t=${seconds}` : ""}`;
}
