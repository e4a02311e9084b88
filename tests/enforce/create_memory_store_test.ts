// The in-memory store: a cap on buckets with least-recently-used eviction,
// an injectable clock, a monotonic default clock, and no timer left behind.
import assert from "node:assert/strict";
import { createMemoryStore } from "../../src/enforce/mod.ts";
import { assertThrowsCode } from "../_assert_policy_error.ts";
import { FakeClock } from "../_fake_clock.ts";

const WINDOW = 60_000_000;

Deno.test("createMemoryStore: buckets are independent and counted to their limit", async () => {
  const store = createMemoryStore({ clock: new FakeClock({ now: 0 }) });
  for (let i = 0; i < 3; i++) assert.ok((await store.hit("a", 3, WINDOW)).admitted);
  assert.equal((await store.hit("a", 3, WINDOW)).admitted, false);
  assert.deepEqual(await store.hit("b", 3, WINDOW), {
    admitted: true,
    remaining: 2,
    resetMicros: 63_000_000,
    retryMicros: 0,
    nowMicros: 0,
  });
  assert.equal(store.size, 2);
});

Deno.test("createMemoryStore: a new bucket beyond maxBuckets evicts the least recently used", async () => {
  const store = createMemoryStore({ clock: new FakeClock({ now: 0 }), maxBuckets: 2 });
  assert.ok((await store.hit("a", 1, WINDOW)).admitted);
  assert.ok((await store.hit("b", 1, WINDOW)).admitted);
  assert.equal((await store.hit("a", 1, WINDOW)).admitted, false, "a is used again: b is older");
  assert.ok((await store.hit("c", 1, WINDOW)).admitted, "c evicts b");
  assert.equal(store.size, 2);
  assert.equal((await store.hit("a", 1, WINDOW)).admitted, false, "a kept its count");
  assert.ok((await store.hit("b", 1, WINDOW)).admitted, "b was forgotten");
});

Deno.test("createMemoryStore: memory stays bounded under many keys", async () => {
  const store = createMemoryStore({ maxBuckets: 100 });
  for (let i = 0; i < 10_000; i++) await store.hit(`tenant-${i}`, 5, WINDOW);
  assert.equal(store.size, 100);
});

Deno.test("createMemoryStore: the clock is in milliseconds, counted in whole µs", async () => {
  const clock = new FakeClock({ now: 1_000.0004 }); // ms
  const store = createMemoryStore({ clock });
  const first = await store.hit("a", 1, 1_000_000);
  assert.equal(first.nowMicros, 1_000_000);
  clock.tick(1_049.999); // just before the slot of the first request leaves
  assert.equal((await store.hit("a", 1, 1_000_000)).admitted, false);
  clock.tick(0.002);
  assert.ok((await store.hit("a", 1, 1_000_000)).admitted);
});

Deno.test("createMemoryStore: the default clock is monotonic (performance.now)", async () => {
  const store = createMemoryStore();
  const { nowMicros } = await store.hit("a", 1, WINDOW);
  assert.ok(Math.abs(nowMicros / 1000 - performance.now()) < 1_000);
});

Deno.test("createMemoryStore: bad options are INVALID_OPTIONS", () => {
  for (
    const options of [
      { maxBuckets: 0 },
      { maxBuckets: 1.5 },
      { now: () => 0 }, // replaced by clock
      { clock: () => 0 },
      { clock: { now: () => 0 } },
      { maxBucket: 5 },
    ]
  ) {
    assertThrowsCode(() => createMemoryStore(options as never), "INVALID_OPTIONS");
  }
});
