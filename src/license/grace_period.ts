/**
 * The grace period: the toolkit works without a licence for 30 days,
 * counted from the first use recorded in the state folder (`POLICY_HOME`).
 *
 * @module
 */

/** Length of the grace period, in days (`docs/license.md`, "The grace period"). */
export const GRACE_PERIOD_DAYS = 30;

const DAY_MS = 86_400_000;

/** Where a grace period stands at a given time. */
export interface GracePeriod {
  startedAt: Date;
  /** `startedAt` + 30 days: from this instant on the grace period is over. */
  endsAt: Date;
  /** Whole days left, rounded up (30 on the first day, 1 on the last); 0 when over. */
  daysLeft: number;
  over: boolean;
}

/**
 * The grace period that started at `startedAt`, seen at `now`. A start in
 * the future (a clock set back) counts as starting now: never more than
 * 30 days are left.
 *
 * @example
 * ```ts
 * import { gracePeriod } from "./grace_period.ts";
 * import assert from "node:assert/strict";
 *
 * const start = new Date("2026-01-01T00:00:00Z");
 * assert.equal(gracePeriod(start, start).daysLeft, 30);
 * assert.equal(gracePeriod(start, new Date("2026-01-30T12:00:00Z")).daysLeft, 1);
 * assert.equal(gracePeriod(start, new Date("2026-01-31T00:00:00Z")).over, true);
 * ```
 */
export function gracePeriod(startedAt: Date, now: Date): GracePeriod {
  const endsAt = new Date(startedAt.getTime() + GRACE_PERIOD_DAYS * DAY_MS);
  const remaining = endsAt.getTime() - now.getTime();
  const over = remaining <= 0;
  return {
    startedAt,
    endsAt,
    daysLeft: over ? 0 : Math.min(GRACE_PERIOD_DAYS, Math.ceil(remaining / DAY_MS)),
    over,
  };
}
