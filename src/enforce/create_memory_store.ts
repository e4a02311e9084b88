// This module is browser compatible.
/**
 * The in-memory throttle store: one process's buckets in a `Map` with a cap,
 * least recently used first out, and no timer. See docs/enforcement.md
 * "Stores".
 *
 * @module
 */
import {
  checkOptions,
  describeValue,
  type Fields,
  refusedField,
} from "../_internal/check_options.ts";
import { type Clock, SYSTEM_CLOCK } from "../public/clock.ts";
import { clockField } from "../_internal/check_options.ts";
import { countRequest, type WindowState } from "./sliding_window.ts";
import type { ThrottleStore } from "./types.ts";

/** Buckets kept by default. */
export const DEFAULT_MAX_BUCKETS = 10_000;

/** Options of {@link createMemoryStore}. */
export interface MemoryStoreOptions {
  /**
   * Buckets kept at most (default {@link DEFAULT_MAX_BUCKETS}). A new bucket
   * beyond it evicts the least recently used one, forgetting its counts.
   * Each bucket holds at most 21 counters.
   */
  maxBuckets?: number;
  /**
   * The clock: windows are counted on its monotonic `now()` (ms). Default:
   * the system clock (`performance.now()`), so a change of the wall clock
   * never frees or blocks a bucket. The store sets no timer.
   */
  clock?: Clock;
}

/** A {@link ThrottleStore} in this process's memory, with the number of buckets it holds. */
export interface MemoryStore extends ThrottleStore {
  /** Buckets held now. */
  readonly size: number;
}

/** The options of {@link createMemoryStore}, for the library's one option checker. */
const MEMORY_STORE_FIELDS: Fields = {
  maxBuckets: {
    check: (value) =>
      Number.isSafeInteger(value) && (value as number) >= 1
        ? undefined
        : `must be a whole number of at least 1; got ${describeValue(value)}`,
  },
  clock: clockField,
  now: refusedField(
    "was replaced by clock (an object with now(), wallNow(), setTimeout() and clearTimeout(); see the README's changelog)",
  ),
};

/**
 * Creates an in-memory store. Its counts are this process's only: several
 * instances of a service each admit `limit` (use the Redis store to share
 * them). Memory is bounded by `maxBuckets` × 21 counters; nothing runs between
 * calls, so it never keeps a process alive.
 *
 * @example Ten admitted, the eleventh refused
 * ```ts
 * import { createMemoryStore } from "./create_memory_store.ts";
 * import assert from "node:assert/strict";
 *
 * let now = 0; // a hand-moved clock: the store reads only now()
 * const clock = { now: () => now, wallNow: () => now, setTimeout: () => 0, clearTimeout() {} };
 * const store = createMemoryStore({ clock });
 * for (let i = 0; i < 10; i++) assert.ok((await store.hit("tenant-1", 10, 60e6)).admitted);
 * const refused = await store.hit("tenant-1", 10, 60e6);
 * assert.equal(refused.admitted, false);
 * assert.equal(refused.retryMicros, 63e6); // the window, plus up to one slot of 3 s
 * now = 63_000;
 * assert.ok((await store.hit("tenant-1", 10, 60e6)).admitted);
 * ```
 */
export function createMemoryStore(options: MemoryStoreOptions = {}): MemoryStore {
  checkOptions(options, MEMORY_STORE_FIELDS, "createMemoryStore");
  const maxBuckets = options.maxBuckets ?? DEFAULT_MAX_BUCKETS;
  const clock = options.clock ?? SYSTEM_CLOCK;
  // Insertion order is recency order: a used bucket is moved to the end.
  const buckets = new Map<string, WindowState>();
  return {
    system: "memory",
    get size() {
      return buckets.size;
    },
    hit(bucket, limit, windowMicros) {
      let state = buckets.get(bucket);
      if (state === undefined) {
        if (buckets.size >= maxBuckets) buckets.delete(buckets.keys().next().value!);
        state = { slots: [], counts: [] };
      } else {
        buckets.delete(bucket);
      }
      buckets.set(bucket, state);
      return Promise.resolve(
        countRequest(state, Math.floor(clock.now() * 1000), limit, windowMicros),
      );
    },
  };
}
