/**
 * Durations on the command line and in the config (`--expires-in`,
 * `build.signing.expiresIn`; `docs/cli.md`, "Durations"): a whole number
 * and one unit, `90s`, `15m`, `12h`, `7d`.
 *
 * @module
 */

const UNIT_MS: Readonly<Record<string, number>> = {
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};

/** The shortest duration accepted: one second. */
export const MIN_DURATION_MS = 1_000;
/** The longest: 366 days (a statement meant to outlive a year is no freshness statement). */
export const MAX_DURATION_MS = 366 * 86_400_000;

const DURATION = /^([1-9][0-9]{0,9})([smhd])$/;

/**
 * The milliseconds `text` stands for, or what is wrong with it (a phrase):
 * exactly digits (no sign, no leading zero, no fraction) and one lowercase
 * unit, `s`, `m`, `h` or `d`, from 1 second to 366 days. Nothing else: no
 * spaces, no combinations (`1h30m`), no ISO 8601 (`PT1H`).
 *
 * @example
 * ```ts
 * import { parseDuration } from "./duration.ts";
 * import assert from "node:assert/strict";
 *
 * assert.equal(parseDuration("90s"), 90_000);
 * assert.equal(parseDuration("7d"), 604_800_000);
 * assert.equal(typeof parseDuration("1h30m"), "string");
 * assert.equal(typeof parseDuration("400d"), "string");
 * ```
 */
export function parseDuration(text: string): number | string {
  const match = DURATION.exec(text);
  if (match === null) {
    return "must be a whole number and one unit, s, m, h or d (90s, 15m, 12h, 7d)";
  }
  const ms = Number(match[1]) * UNIT_MS[match[2]!]!;
  if (ms < MIN_DURATION_MS || ms > MAX_DURATION_MS) {
    return "must be from 1s to 366d";
  }
  return ms;
}

/** `ms` for people: the largest whole units, two at most (`6d 23h`, `14m 5s`, `0s`). */
export function describeDuration(ms: number): string {
  let left = Math.max(0, Math.floor(ms / 1000));
  const parts: string[] = [];
  for (const [unit, size] of [["d", 86_400], ["h", 3_600], ["m", 60], ["s", 1]] as const) {
    if (left >= size && parts.length < 2) {
      parts.push(`${Math.floor(left / size)}${unit}`);
      left %= size;
    } else if (parts.length > 0) {
      break;
    }
  }
  return parts.length === 0 ? "0s" : parts.join(" ");
}
