// The counting algorithm (docs/enforcement.md "The guarantee"): the bound on
// admissions, the bound on refusals, and exact Retry-After, remaining and
// reset values, on generated timelines.
import assert from "node:assert/strict";
import {
  countRequest,
  effectiveLimit,
  MAX_LIMIT,
  SLOTS,
  windowMicros,
  type WindowState,
} from "../../src/enforce/sliding_window.ts";
import { assertGuarantee, fc, play, SEED, timeline } from "./_window_scenarios.ts";

const copy = (state: WindowState): WindowState => structuredClone(state);

Deno.test("countRequest: never more than limit in any window, refused only when limit were admitted in the 21 slots before", async () => {
  await fc.assert(
    fc.asyncProperty(timeline, async (t) => {
      const state: WindowState = { slots: [], counts: [] };
      assertGuarantee(t, await play(t, (now) => countRequest(state, now, t.limit, t.window)));
    }),
    { seed: SEED, numRuns: 500 },
  );
});

Deno.test("countRequest: Retry-After, remaining and reset are exact for the next request", async () => {
  await fc.assert(
    fc.asyncProperty(timeline, async (t) => {
      const state: WindowState = { slots: [], counts: [] };
      await play(t, (now) => {
        const count = countRequest(state, now, t.limit, t.window);
        const probe = (at: number) => countRequest(copy(state), at, t.limit, t.window);
        if (!count.admitted) {
          if (t.limit === 0) {
            assert.equal(count.retryMicros, -1);
            assert.equal(probe(now + 100 * t.window).admitted, false);
          } else {
            assert.ok(count.retryMicros > 0);
            assert.equal(probe(now + count.retryMicros - 1).admitted, false, "not before");
            assert.equal(probe(now + count.retryMicros).admitted, true, "at retry");
          }
          return count;
        }
        assert.equal(count.retryMicros, 0);
        // `remaining` more are admitted at the same time, and no more.
        const same = copy(state);
        for (let i = 0; i < count.remaining; i++) {
          assert.ok(countRequest(same, now, t.limit, t.window).admitted, `#${i + 1} of remaining`);
        }
        assert.equal(countRequest(same, now, t.limit, t.window).admitted, false, "one too many");
        // Nothing frees up before reset; at reset at least one more fits.
        assert.ok(count.resetMicros > 0);
        const early = probe(now + count.resetMicros - 1);
        assert.ok(!early.admitted || early.remaining === count.remaining - 1);
        const atReset = probe(now + count.resetMicros);
        assert.ok(atReset.admitted && atReset.remaining >= count.remaining);
        return count;
      });
    }),
    { seed: SEED, numRuns: 300 },
  );
});

Deno.test("countRequest: a whole window later the bucket is empty again", () => {
  const state: WindowState = { slots: [], counts: [] };
  const window = 60_000_000;
  for (let i = 0; i < 3; i++) assert.ok(countRequest(state, 1_000, 3, window).admitted);
  assert.ok(!countRequest(state, 1_000, 3, window).admitted);
  const later = countRequest(state, 1_000 + window + Math.ceil(window / SLOTS), 3, window);
  assert.deepEqual([later.admitted, later.remaining], [true, 2]);
  assert.equal(state.slots.length, 1, "slots out of the window are dropped");
});

Deno.test("countRequest: a clock that steps back never uncounts", () => {
  const state: WindowState = { slots: [], counts: [] };
  const window = 10_000_000;
  for (let i = 0; i < 2; i++) assert.ok(countRequest(state, 50_000_000, 2, window).admitted);
  assert.equal(countRequest(state, 0, 2, window).admitted, false, "back 50 s: still counted");
  assert.equal(countRequest(state, 49_000_000, 2, window).admitted, false);
});

Deno.test("countRequest: a lower limit after a reload refuses until the count falls under it", () => {
  const state: WindowState = { slots: [], counts: [] };
  const window = 20_000_000; // slots of 1 s
  for (let s = 0; s < 5; s++) assert.ok(countRequest(state, s * 1e6, 10, window).admitted);
  const lowered = countRequest(state, 5e6, 2, window);
  assert.equal(lowered.admitted, false);
  assert.equal(lowered.remaining, 0);
  // Four of the five must leave: the fourth (slot 3) leaves at (3 + 21) s.
  assert.equal(lowered.retryMicros, 24e6 - 5e6);
  assert.ok(countRequest(state, 5e6, 10, window).admitted, "raised again: room at once");
});

Deno.test("effectiveLimit and windowMicros: whole requests, whole µs, bounded", () => {
  assert.equal(effectiveLimit(2.7), 2);
  assert.equal(effectiveLimit(0), 0);
  assert.equal(effectiveLimit(Infinity), MAX_LIMIT);
  assert.equal(effectiveLimit(1e300), MAX_LIMIT);
  assert.equal(windowMicros(60), 60_000_000);
  assert.equal(windowMicros(1e-9), 1, "rounded up: never shorter than asked");
  assert.equal(windowMicros(0.0000015), 2);
  assert.equal(windowMicros(Infinity), 3_155_760_000_000_000);
  assert.ok(Number.isSafeInteger(windowMicros(Infinity) + 1_795_454_303_123_457 * 2));
});
