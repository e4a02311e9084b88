// This module is browser compatible.
/**
 * Describing a value for a message: the one way values given by a caller or
 * a user are quoted (a short prefix, never something that looks like a
 * secret), and the redaction the CLI applies to everything it prints. It
 * depends on nothing, so the CLI's start-up modules load it alone.
 *
 * @module
 */

/**
 * A value described for a message, the one way values given by a caller or
 * a user are quoted: strings quoted and cut to a short prefix (at most 60
 * characters in all), and not shown at all when their first kilobyte looks
 * like a secret ({@link looksLikeSecret}: a value pasted into the wrong
 * option or flag is often one; key material further on is never among the
 * characters shown); numbers as they are; others by type.
 */
export function describeValue(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "string") {
    // Only what could overlap the 60 characters shown is looked at: a run of key material that
    // starts there shows within the first kilobyte, and scanning a 7 MB value whole took longer
    // than reading the file it came from.
    if (looksLikeSecret(value.slice(0, SECRET_SCAN_CHARS))) return SECRET_NOT_SHOWN;
    const text = JSON.stringify(value.slice(0, 60));
    return text.length > 60 ? `${text.slice(0, 56)}…"` : text;
  }
  if (typeof value === "number") return String(value);
  return typeof value;
}

/** How much of a string {@link describeValue} looks at for key material. */
const SECRET_SCAN_CHARS = 1024;

/** What {@link describeValue} says instead of a value that looks like a secret. */
export const SECRET_NOT_SHOWN = "a value that looks like a secret (not shown)";

/** What {@link redactSecrets} puts in place of text that looks like a secret. */
export const REDACTED = "<not shown: looks like a secret>";

/**
 * A PEM block: a BEGIN line, then on the next lines its body up to the END
 * line (or the end of the text). A BEGIN line alone, as messages quote it
 * for guidance, is not key material.
 */
const PEM_TEXT =
  /-----BEGIN [A-Z0-9 ]{1,40}-----[ \t]*\r?\n[\s\S]*?(?:-----END [A-Z0-9 ]{1,40}-----|$)/g;
/**
 * Runs of hex digits, and of the base64 (and base64url) alphabet: those of
 * 32 characters or more are candidates. The length is checked on the match,
 * not in the pattern: V8 backtracks `{32,}` one stack entry per character,
 * and a run of a few million characters (a hostile file's value) overflowed
 * the stack, where `+` runs in constant stack.
 */
const HEX_RUN = /[0-9a-fA-F]+/g;
const BASE64_RUN = /[A-Za-z0-9+/=_-]+/g;
/** The shortest run that can be key material. */
const MIN_SECRET_RUN = 32;

/**
 * True for a base64 run that looks random: upper case, lower case and
 * digits all present, and the kind of character changing between at least
 * 40 % of neighbours (random base64 changes at about 64 %; words, paths and
 * camelCase names far less often).
 */
function randomLooking(run: string): boolean {
  const kind = (c: string) =>
    c >= "a" && c <= "z" ? 0 : c >= "A" && c <= "Z" ? 1 : c >= "0" && c <= "9" ? 2 : 3;
  const seen = [0, 0, 0, 0];
  let changes = 0;
  for (let i = 0; i < run.length; i++) {
    const k = kind(run[i]!);
    seen[k]!++;
    if (i > 0 && k !== kind(run[i - 1]!)) changes++;
  }
  return seen[0]! > 0 && seen[1]! > 0 && seen[2]! > 0 && changes >= 0.4 * (run.length - 1);
}

/**
 * `text` with everything that looks like key material replaced by
 * {@link REDACTED}: PEM text, runs of 32 or more hex digits (except a
 * `sha256:` checksum), and long random-looking base64. The CLI passes every
 * diagnostic it prints (errors, hints, warnings, notes) through it, so that a
 * secret pasted into a flag, a path or a configuration field is not printed
 * back, whatever message it ends up in.
 */
export function redactSecrets(text: string): string {
  return text
    .replace(PEM_TEXT, REDACTED)
    .replace(
      HEX_RUN,
      (run, offset: number, whole: string) =>
        run.length < MIN_SECRET_RUN ||
          (run.length === 64 && whole.slice(offset - 7, offset) === "sha256:")
          ? run
          : REDACTED,
    )
    .replace(
      BASE64_RUN,
      (run) => run.length >= MIN_SECRET_RUN && randomLooking(run) ? REDACTED : run,
    );
}

/** True when `text` holds something that looks like key material (see {@link redactSecrets}). */
export function looksLikeSecret(text: string): boolean {
  return redactSecrets(text) !== text;
}
