import assert from "node:assert/strict";
import { parseRetryAfter, pollDelay } from "../../src/clients/_poll_delay.ts";
import { test } from "./_remote_fixtures.ts";

const base = { intervalMs: 30_000, maxBackoffMs: 300_000, unauthorized: false, retryAfterMs: null };
const randoms = Array.from({ length: 101 }, (_, i) => Math.min(i / 100, 1 - 1e-12));

test("pollDelay() keeps a success within ±10 % of the interval", () => {
  for (const random of randoms) {
    const delay = pollDelay({ ...base, failures: 0, random });
    assert.ok(delay >= 27_000 && delay <= 33_000, `${delay}`);
  }
  assert.equal(pollDelay({ ...base, failures: 0, random: 0 }), 27_000);
  assert.equal(pollDelay({ ...base, failures: 0, random: 0.5 }), 30_000);
});

test("pollDelay() after n failures waits between half and all of min(cap, interval × 2^(n-1))", () => {
  for (let failures = 1; failures <= 1_100; failures += failures < 12 ? 1 : 97) {
    const cap = Math.min(300_000, 30_000 * 2 ** (failures - 1));
    for (const random of randoms) {
      const delay = pollDelay({ ...base, failures, random });
      assert.ok(delay >= cap / 2 && delay <= cap, `${failures} failures: ${delay}`);
      assert.ok(Number.isInteger(delay));
    }
  }
  assert.deepEqual(
    [1, 2, 3, 4, 5, 6].map((failures) => pollDelay({ ...base, failures, random: 1 - 1e-12 })),
    [30_000, 60_000, 120_000, 240_000, 300_000, 300_000],
  );
});

test("pollDelay() after 401/403 waits at the cap", () => {
  assert.equal(pollDelay({ ...base, failures: 1, unauthorized: true, random: 1 - 1e-12 }), 300_000);
  assert.equal(pollDelay({ ...base, failures: 1, unauthorized: true, random: 0 }), 150_000);
});

test("pollDelay() honours Retry-After up to the cap", () => {
  assert.equal(pollDelay({ ...base, failures: 1, retryAfterMs: 90_000, random: 0 }), 90_000);
  assert.equal(pollDelay({ ...base, failures: 1, retryAfterMs: 1_000, random: 0 }), 15_000);
  assert.equal(pollDelay({ ...base, failures: 1, retryAfterMs: 3_600_000, random: 0 }), 300_000);
});

test("parseRetryAfter() reads delay-seconds and the three HTTP date forms", () => {
  const now = Date.UTC(1994, 10, 6, 8, 49, 0);
  assert.equal(parseRetryAfter("120", now), 120_000);
  assert.equal(parseRetryAfter(" 0 ", now), 0);
  assert.equal(parseRetryAfter("Sun, 06 Nov 1994 08:49:37 GMT", now), 37_000);
  assert.equal(parseRetryAfter("Sunday, 06-Nov-94 08:49:37 GMT", now), 37_000);
  assert.equal(parseRetryAfter("Sun Nov  6 08:49:37 1994", now), 37_000);
  assert.equal(parseRetryAfter("Sun, 06 Nov 1994 08:00:00 GMT", now), 0);
  for (const bad of [null, "", "-1", "1.5", "soon", "12abc", "Sun, garbage"]) {
    assert.equal(parseRetryAfter(bad, now), null, `${bad}`);
  }
});

test("pollDelay() never exceeds what a timer can wait (2^31 - 1 ms): beyond, it fires at once", () => {
  // The options accept intervals up to 2^31 - 1 ms; the +10 % jitter must not push a delay past
  // it, or setTimeout fires after 1 ms and the client polls in a loop.
  const longest = { ...base, intervalMs: 2_147_483_647, maxBackoffMs: 2_147_483_647 };
  for (const random of randoms) {
    for (const failures of [0, 1, 2, 40]) {
      const delay = pollDelay({ ...longest, failures, random });
      assert.ok(delay > 0 && delay <= 2_147_483_647, `${failures} failures: ${delay}`);
    }
  }
  assert.equal(pollDelay({ ...longest, failures: 0, random: 1 - 1e-12 }), 2_147_483_647);
});
