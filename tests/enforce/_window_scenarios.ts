/**
 * Request timelines for the counting algorithm, and the guarantee of
 * docs/enforcement.md checked on the answers: the sliding-window tests run
 * them against `countRequest`, the Redis tests against the Lua script.
 *
 * @module
 */
import assert from "node:assert/strict";
import fc from "../_fast_check.ts";
import { SLOTS } from "../../src/enforce/sliding_window.ts";
import type { ThrottleCount } from "../../src/enforce/types.ts";
import { testSeed } from "../_random.ts";

export { fc };

/** The seed of the timeline properties (POLICY_TEST_SEED replays another run). */
export const SEED = testSeed(0x5eed_0017);

/** A bucket's limit and window, a start time, and requests at non-decreasing times. */
export interface Timeline {
  limit: number;
  window: number;
  start: number;
  /**
   * Each step: µs after the previous request, then that many requests at
   * once, under the step's own limit when it has one (a reload changed it).
   */
  steps: { advance: number; requests: number; limit?: number }[];
}

/** Timelines with small limits and windows, advancing by 0, a little, about a slot or a window. */
export const timeline: fc.Arbitrary<Timeline> = fc.record({
  limit: fc.integer({ min: 0, max: 8 }),
  window: fc.oneof(fc.integer({ min: 1, max: 100 }), fc.integer({ min: 1, max: 10_000_000 })),
  // Zero, and a Redis server clock of late 2026 in µs: the arithmetic must stay exact.
  start: fc.constantFrom(0, 1_795_454_303_123_457),
}).chain((base) => {
  const slot = Math.ceil(base.window / SLOTS);
  const advance = fc.oneof(
    fc.constant(0),
    fc.integer({ min: 1, max: 3 }),
    fc.integer({ min: 0, max: 2 * slot }),
    fc.integer({ min: base.window - slot, max: base.window + 2 * slot }),
  );
  const step = fc.record({ advance, requests: fc.integer({ min: 1, max: 4 }) });
  return fc.array(step, { minLength: 1, maxLength: 30 }).map((steps) => ({ ...base, steps }));
});

/**
 * Timelines whose limit changes from step to step, as reloads change a
 * rule's limit while its bucket keeps counting: each step draws a limit of 0
 * to 8, or keeps the last one.
 */
export const varyingTimeline: fc.Arbitrary<Timeline> = timeline.chain((t) =>
  fc.array(fc.option(fc.integer({ min: 0, max: 8 }), { freq: 2 }), {
    minLength: t.steps.length,
    maxLength: t.steps.length,
  }).map((limits) => {
    let limit = t.limit;
    const steps = t.steps.map((step, i) => ({ ...step, limit: limit = limits[i] ?? limit }));
    return { ...t, steps };
  })
);

/** One answer with the time of its request, and the limit it was checked under. */
export interface Answer {
  at: number;
  count: ThrottleCount;
  limit?: number;
}

/** Runs `timeline` through `hit` (the store under test at a given time and limit), request by request. */
export async function play(
  { start, steps, limit: base }: Timeline,
  hit: (now: number, limit: number) => ThrottleCount | Promise<ThrottleCount>,
): Promise<Answer[]> {
  const answers: Answer[] = [];
  let now = start;
  for (const { advance, requests, limit = base } of steps) {
    now += advance;
    for (let i = 0; i < requests; i++) {
      answers.push({ at: now, count: await hit(now, limit), limit });
    }
  }
  return answers;
}

/**
 * The guarantee, on the answers of one bucket: no interval of `window` µs
 * holds more admissions than the limit the last of them was admitted under
 * (`limit` when it never changes; so never more than the largest limit in
 * force), and a request is refused only when its limit were admitted in the
 * `(SLOTS + 1) × slot` µs before it (`window + slot` when SLOTS divides the
 * window).
 */
export function assertGuarantee(
  { limit, window }: Pick<Timeline, "limit" | "window">,
  answers: readonly Answer[],
): void {
  const slot = Math.ceil(window / SLOTS);
  const admitted = answers.filter((a) => a.count.admitted);
  for (const a of admitted) assert.notEqual(a.limit ?? limit, 0, "a limit of 0 admits nothing");
  // The admissions within `window` before each one (itself included): at most its limit.
  for (let j = 0, i = 0; j < admitted.length; j++) {
    while (admitted[j]!.at - admitted[i]!.at > window) i++;
    const mine = admitted[j]!.limit ?? limit;
    assert.ok(
      j - i + 1 <= mine,
      `${j - i + 1} admitted within ${window} µs (${admitted[i]!.at} to ${
        admitted[j]!.at
      }), the last under a limit of ${mine}`,
    );
  }
  // Answers come in time order: count the admissions of the last 21 slots with a moving start.
  const before: number[] = [];
  let oldest = 0;
  let previous = -Infinity;
  for (const answer of answers) {
    assert.equal(answer.count.nowMicros, answer.at);
    assert.ok(answer.at >= previous, "answers in time order");
    previous = answer.at;
    while (oldest < before.length && before[oldest]! <= answer.at - (SLOTS + 1) * slot) oldest++;
    if (answer.count.admitted) {
      before.push(answer.at);
      continue;
    }
    const recent = before.length - oldest;
    const mine = answer.limit ?? limit;
    assert.ok(
      recent >= mine,
      `refused at ${answer.at} under a limit of ${mine} with only ${recent} admitted before it`,
    );
  }
}
