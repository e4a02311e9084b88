// This module is browser compatible.
/**
 * The Redis throttle store: one limit shared by every process and machine
 * that counts in the same Redis or Redis Cluster. Bring your client — the
 * `redis` package (`nodeRedisCommands`, `nodeRedisClusterCommands` for
 * `createCluster()`) or `ioredis` (`ioredisCommands`, for `new Redis()` and
 * `new Cluster()`); this module imports neither. See docs/enforcement.md
 * "Stores" and "Redis Cluster".
 *
 * @example When Redis does not answer, the enforcer applies `whenStoreFails`
 * ```ts
 * import { createRedisStore } from "./mod.ts";
 * import { createEnforcer } from "../mod.ts";
 * import assert from "node:assert/strict";
 *
 * // A client whose every command fails, as when Redis is unreachable.
 * const unreachable = { send: () => Promise.reject(new Error("connect ECONNREFUSED")) };
 * const errors: string[] = [];
 * const enforcer = createEnforcer({
 *   store: createRedisStore(unreachable),
 *   whenStoreFails: "open",
 *   onError: (error) => void errors.push(error.code),
 * });
 * const verdict = await enforcer.enforce({
 *   decision: "throttle",
 *   reason: "rule",
 *   policyKey: "api",
 *   ruleId: "per-tenant",
 *   throttle: { limit: 10, windowSeconds: 60, key: "tenant" },
 * }, { tenant: "acme" });
 * assert.ok(verdict.proceed); // served, uncounted
 * assert.deepEqual(errors, ["THROTTLE_STORE_UNAVAILABLE"]);
 * ```
 *
 * @example With ioredis
 * ```ts ignore
 * import Redis from "ioredis";
 * import { createEnforcer } from "@policy/runtime/enforce";
 * import { createRedisStore, ioredisCommands } from "@policy/runtime/enforce/redis";
 *
 * const enforcer = createEnforcer({
 *   store: createRedisStore(ioredisCommands(new Redis(process.env.REDIS_URL))),
 *   onError: (error) => console.error(error.code, error.message),
 * });
 * ```
 *
 * @module
 */
export * from "./types.ts";
export * from "./create_redis_store.ts";
export * from "./node_redis_commands.ts";
export * from "./node_redis_cluster_commands.ts";
export * from "./ioredis_commands.ts";
// The library's one clock, the type of this module's `clock` options.
export type { Clock } from "../../public/clock.ts";
