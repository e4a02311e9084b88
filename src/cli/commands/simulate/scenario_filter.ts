/**
 * `simulate --run <regex>`: which scenarios run, by name. The pattern is a
 * JavaScript regular expression (with the `u` flag) searched in each
 * scenario's name. JavaScript's engine backtracks, so a pattern can take
 * time exponential in the length of a name; the guard here refuses the
 * classic shape of that (an unbounded quantifier applied to a group that
 * holds one, `(a+)+`, `(\w*\s?)*`) and patterns over 256 characters. It
 * does not detect every slow pattern (overlapping alternatives under a
 * quantifier, `(a|a)*`, pass): the pattern is the user's, run on the user's
 * suites (`docs/cli.md`, "simulate").
 *
 * @module
 */
import { usageError } from "../../kit/errors.ts";

/** Longest `--run` pattern accepted, in UTF-16 code units. */
export const MAX_RUN_PATTERN = 256;

/**
 * The test of a scenario name for `--run`.
 *
 * @throws {CliError} `USAGE_ERROR`: not a regular expression, too long, or
 * an unbounded quantifier of a group that holds one.
 */
export function scenarioFilter(pattern: string): (name: string) => boolean {
  const shown = JSON.stringify(pattern.length > 60 ? `${pattern.slice(0, 60)}…` : pattern);
  if (pattern.length > MAX_RUN_PATTERN) {
    throw usageError(`--run takes a pattern of at most ${MAX_RUN_PATTERN} characters`);
  }
  let regex: RegExp;
  try {
    regex = new RegExp(pattern, "u");
  } catch (error) {
    throw usageError(
      `--run ${shown} is not a regular expression: ${(error as Error).message}`,
      "for example --run 'free plan' or --run '^billing: '",
    );
  }
  const nested = nestedQuantifier(pattern);
  if (nested !== null) {
    throw usageError(
      `--run ${shown} repeats a group that itself repeats (at character ${
        nested + 1
      }), which can take time exponential in a name's length`,
      "write it without a quantifier on a group that holds one: (ab+)+ as (ab+)(ab+)*, or use a plain substring",
    );
  }
  return (name) => regex.test(name);
}

/**
 * The index of the first unbounded quantifier (`*`, `+`, `{n,}`) applied to
 * a group that holds an unbounded quantifier, or null. Escapes and
 * character classes are skipped; lookarounds count as groups.
 */
export function nestedQuantifier(pattern: string): number | null {
  /** Per open group: whether an unbounded quantifier occurs in it. */
  const groups: boolean[] = [false];
  let i = 0;
  while (i < pattern.length) {
    const c = pattern[i]!;
    if (c === "\\") {
      i += 2;
      continue;
    }
    if (c === "[") {
      i = endOfClass(pattern, i);
      continue;
    }
    if (c === "(") {
      groups.push(false);
      i++;
      continue;
    }
    if (c === ")" && groups.length > 1) {
      const repeats = groups.pop()!;
      const after = unboundedQuantifierAt(pattern, i + 1);
      if (after > 0 && repeats) return i + 1;
      if (repeats || after > 0) groups[groups.length - 1] = true;
      i += 1 + Math.max(after, 0);
      continue;
    }
    const quantifier = unboundedQuantifierAt(pattern, i);
    if (quantifier > 0) {
      groups[groups.length - 1] = true;
      i += quantifier;
      continue;
    }
    i++;
  }
  return null;
}

/** Length of an unbounded quantifier (`*`, `+`, `{n,}`, with a lazy `?`) at `i`; 0 when none. */
function unboundedQuantifierAt(pattern: string, i: number): number {
  const c = pattern[i];
  let length = 0;
  if (c === "*" || c === "+") length = 1;
  else if (c === "{") {
    const m = /^\{\d+,\}/.exec(pattern.slice(i, i + 20));
    if (m !== null) length = m[0].length;
  }
  if (length > 0 && pattern[i + length] === "?") length++;
  return length;
}

/** The index after the character class starting at `start` (`[`), escapes skipped. */
function endOfClass(pattern: string, start: number): number {
  let i = start + 1;
  while (i < pattern.length && pattern[i] !== "]") i += pattern[i] === "\\" ? 2 : 1;
  return i + 1;
}
