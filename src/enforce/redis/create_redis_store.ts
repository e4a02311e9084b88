// This module is browser compatible.
/**
 * The Redis throttle store: several processes and machines share one limit.
 * Each check-and-count is one atomic Lua script using the Redis server's
 * clock. See docs/enforcement.md "Stores" and "When the store fails".
 *
 * @module
 */
import {
  checkOptions,
  describeValue,
  durationField,
  type Fields,
} from "../../_internal/check_options.ts";
import { type Clock, SYSTEM_CLOCK } from "../../public/clock.ts";
import { clockField } from "../../_internal/check_options.ts";
import { PolicyError } from "../../public/policy_error.ts";
import type { ThrottleStore } from "../types.ts";
import { bucketKey, checkAndCount } from "./_check_and_count.ts";
import type { RedisCommands } from "./types.ts";
import { describeThrown } from "../../_internal/describe_thrown.ts";

/** Milliseconds a check may take before it counts as failed, by default. */
export const DEFAULT_REDIS_TIMEOUT_MS = 200;

/** The prefix of bucket keys in Redis, by default. */
export const DEFAULT_REDIS_PREFIX = "policy:throttle:";

/** Options of {@link createRedisStore}. */
export interface RedisStoreOptions {
  /**
   * Prefix of the bucket keys, which are `<prefix>v2:<bucket>` (`v2`: the
   * key layout). Default {@link DEFAULT_REDIS_PREFIX}.
   */
  prefix?: string;
  /**
   * Milliseconds one check may take (default {@link DEFAULT_REDIS_TIMEOUT_MS}).
   * Beyond it the check fails with `THROTTLE_STORE_UNAVAILABLE` and the
   * enforcer applies `whenStoreFails`. A client that queues commands while
   * disconnected may still run the check later, counting the request.
   */
  timeoutMs?: number;
  /**
   * The clock whose monotonic `now()` and timers bound each check. Default:
   * the system clock.
   */
  clock?: Clock;
}

/**
 * The options of {@link createRedisStore}, for the library's one option
 * checker. `timeoutMs` is bounded as every timer option is: beyond 2^31 - 1
 * ms a timer fires at once, and the store's one timer would re-arm every
 * millisecond for as long as a check is pending.
 */
const REDIS_STORE_FIELDS: Fields = {
  prefix: {
    check: (value) =>
      typeof value === "string" ? undefined : `must be a string; got ${describeValue(value)}`,
  },
  timeoutMs: durationField,
  clock: clockField,
};

/**
 * Creates a store that counts in Redis, through `nodeRedisCommands(client)`,
 * `nodeRedisClusterCommands(cluster)` or `ioredisCommands(client)` (a
 * single server or a Redis Cluster: docs/enforcement.md "Redis Cluster"). Every call that fails — Redis unreachable,
 * too slow, or answering an error — rejects with a `PolicyError` of code
 * `THROTTLE_STORE_UNAVAILABLE`, which the enforcer reports to `onError`
 * and answers as `whenStoreFails` says (default: refuse, 503).
 *
 * @example
 * ```ts ignore
 * import { createClient } from "redis";
 * import { createEnforcer } from "@policy/runtime/enforce";
 * import { createRedisStore, nodeRedisCommands } from "@policy/runtime/enforce/redis";
 *
 * const client = await createClient({ url: process.env.REDIS_URL }).connect();
 * const enforcer = createEnforcer({
 *   store: createRedisStore(nodeRedisCommands(client), { timeoutMs: 100 }),
 *   whenStoreFails: "open", // keep serving, uncounted, while Redis is away
 *   onError: (error) => console.error(error.code, error.message),
 * });
 * ```
 */
export function createRedisStore(
  redis: RedisCommands,
  options: RedisStoreOptions = {},
): ThrottleStore {
  checkOptions(options, REDIS_STORE_FIELDS, "createRedisStore");
  const {
    prefix = DEFAULT_REDIS_PREFIX,
    timeoutMs = DEFAULT_REDIS_TIMEOUT_MS,
    clock = SYSTEM_CLOCK,
  } = options;
  if (typeof redis?.send !== "function") {
    throw new PolicyError(
      "INVALID_OPTIONS",
      "createRedisStore needs nodeRedisCommands(client), nodeRedisClusterCommands(cluster) or ioredisCommands(client)",
    );
  }

  // Every check of this store has the same timeout, so deadlines come in call order: one timer,
  // for the oldest pending check, serves them all, and none is left once nothing is pending.
  const pending = new Set<{ deadline: number; fail(error: PolicyError): void }>();
  let timer: unknown;
  const arm = () => {
    const oldest = pending.values().next().value;
    if (oldest === undefined || timer !== undefined) return;
    timer = clock.setTimeout(expire, Math.max(0, oldest.deadline - clock.now()));
  };
  const expire = () => {
    timer = undefined;
    const now = clock.now();
    for (const check of pending) {
      if (check.deadline > now) break;
      pending.delete(check);
      check.fail(
        new PolicyError(
          "THROTTLE_STORE_UNAVAILABLE",
          `Redis did not answer the throttle check within ${timeoutMs} ms; check that it is up and reachable`,
        ),
      );
    }
    arm();
  };
  const settle = (check: { deadline: number; fail(error: PolicyError): void }) => {
    if (!pending.delete(check)) return false; // timed out already
    if (pending.size === 0 && timer !== undefined) {
      clock.clearTimeout(timer);
      timer = undefined;
    }
    return true;
  };
  return {
    system: "redis",
    hit(bucket, limit, windowMicros) {
      return new Promise((resolve, reject) => {
        const check = { deadline: clock.now() + timeoutMs, fail: reject };
        pending.add(check);
        arm();
        checkAndCount(redis, bucketKey(prefix, bucket), limit, windowMicros).then(
          (count) => settle(check) && resolve(count),
          (error) => {
            if (!settle(check)) return;
            if (error instanceof PolicyError) return reject(error); // a reply that is not a count
            const why = describeThrown(error);
            reject(
              new PolicyError(
                "THROTTLE_STORE_UNAVAILABLE",
                `the Redis throttle check failed (${why}); check that Redis is up and reachable`,
                { cause: error },
              ),
            );
          },
        );
      });
    },
  };
}
