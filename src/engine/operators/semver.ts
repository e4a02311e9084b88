// This module is browser compatible.
/**
 * Versions as `semver` conditions read them (docs/bundle-format.md
 * "Conditions"): SemVer 2.0.0 (semver.org), with one optional leading `v`,
 * compared by precedence (SemVer §11): major, minor and patch numerically,
 * a pre-release below its release, pre-release identifiers one by one
 * (numeric ones numerically and below alphanumeric ones, alphanumeric ones
 * in ASCII order, more identifiers above fewer), build metadata ignored.
 * Numbers of any length compare exactly (as digit strings). Parsing is one
 * pass over the text, without a regular expression.
 *
 * Not exported by `mod.ts`.
 *
 * @module
 */

/** A parsed version: its numbers as digit strings (no leading zero), its pre-release identifiers. */
export interface Semver {
  readonly major: string;
  readonly minor: string;
  readonly patch: string;
  /** Pre-release identifiers, in order (empty for a release). */
  readonly pre: readonly string[];
}

/**
 * The regular expression of the same versions (for the JSON Schema, which
 * cannot run {@link parseSemver}): `tests/engine/semver_test.ts` checks that
 * both accept the same strings.
 */
export const SEMVER_PATTERN = "^v?(0|[1-9][0-9]*)\\.(0|[1-9][0-9]*)\\.(0|[1-9][0-9]*)" +
  "(?:-(?:0|[1-9][0-9]*|[0-9]*[A-Za-z-][0-9A-Za-z-]*)(?:\\.(?:0|[1-9][0-9]*|[0-9]*[A-Za-z-][0-9A-Za-z-]*))*)?" +
  "(?:\\+[0-9A-Za-z-]+(?:\\.[0-9A-Za-z-]+)*)?$";

const DOT = 0x2e;
const PLUS = 0x2b;
const MINUS = 0x2d;

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

/** [0-9A-Za-z-] */
function isIdentifierChar(c: number): boolean {
  return isDigit(c) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === MINUS;
}

/** The version `text` is, or null when it is not a SemVer 2.0.0 version (a leading `v` allowed). */
export function parseSemver(text: string): Semver | null {
  const n = text.length;
  let i = text.charCodeAt(0) === 0x76 /* v */ ? 1 : 0;
  const numbers: string[] = [];
  for (let part = 0; part < 3; part++) {
    const begin = i;
    while (i < n && isDigit(text.charCodeAt(i))) i++;
    if (i === begin || (i - begin > 1 && text.charCodeAt(begin) === 0x30)) return null;
    numbers.push(text.slice(begin, i));
    if (part < 2) {
      if (text.charCodeAt(i) !== DOT) return null;
      i++;
    }
  }
  const pre: string[] = [];
  if (i < n && text.charCodeAt(i) === MINUS) {
    i++;
    for (;;) {
      const begin = i;
      let digits = true;
      while (i < n && isIdentifierChar(text.charCodeAt(i))) {
        if (!isDigit(text.charCodeAt(i))) digits = false;
        i++;
      }
      if (i === begin) return null;
      // A numeric identifier has no leading zero.
      if (digits && i - begin > 1 && text.charCodeAt(begin) === 0x30) return null;
      pre.push(text.slice(begin, i));
      if (i < n && text.charCodeAt(i) === DOT) {
        i++;
        continue;
      }
      break;
    }
  }
  if (i < n && text.charCodeAt(i) === PLUS) {
    i++;
    for (;;) {
      const begin = i;
      while (i < n && isIdentifierChar(text.charCodeAt(i))) i++;
      if (i === begin) return null;
      if (i < n && text.charCodeAt(i) === DOT) {
        i++;
        continue;
      }
      break;
    }
  }
  if (i !== n) return null;
  return { major: numbers[0]!, minor: numbers[1]!, patch: numbers[2]!, pre };
}

/** Two digit strings without leading zeros, compared as numbers. */
function compareNumbers(a: string, b: string): number {
  if (a.length !== b.length) return a.length < b.length ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

function isNumeric(identifier: string): boolean {
  for (let i = 0; i < identifier.length; i++) if (!isDigit(identifier.charCodeAt(i))) return false;
  return true;
}

/** -1, 0 or 1: how `a` compares with `b` by SemVer precedence (build metadata ignored). */
export function compareSemver(a: Semver, b: Semver): number {
  const core = compareNumbers(a.major, b.major) || compareNumbers(a.minor, b.minor) ||
    compareNumbers(a.patch, b.patch);
  if (core !== 0) return core;
  // A pre-release is below its release.
  if (a.pre.length === 0 || b.pre.length === 0) {
    return a.pre.length === b.pre.length ? 0 : a.pre.length === 0 ? 1 : -1;
  }
  const shared = Math.min(a.pre.length, b.pre.length);
  for (let i = 0; i < shared; i++) {
    const x = a.pre[i]!;
    const y = b.pre[i]!;
    if (x === y) continue;
    const xNumeric = isNumeric(x);
    const yNumeric = isNumeric(y);
    if (xNumeric && yNumeric) return compareNumbers(x, y);
    if (xNumeric !== yNumeric) return xNumeric ? -1 : 1;
    return x < y ? -1 : 1;
  }
  return a.pre.length === b.pre.length ? 0 : a.pre.length < b.pre.length ? -1 : 1;
}

/** Whether `order` (the result of {@link compareSemver}) satisfies `cmp`. */
export function semverHolds(cmp: string, order: number): boolean {
  switch (cmp) {
    case "eq":
      return order === 0;
    case "neq":
      return order !== 0;
    case "gt":
      return order > 0;
    case "gte":
      return order >= 0;
    case "lt":
      return order < 0;
    case "lte":
      return order <= 0;
    default:
      return false;
  }
}
