// This module is browser compatible.
/**
 * The adapter for clients of the `ioredis` package.
 *
 * @module
 */
import { PolicyError } from "../../public/policy_error.ts";
import type { RedisCommands } from "./types.ts";

/** The member of an ioredis client the adapter uses. */
export interface IoredisClientLike {
  /** ioredis's raw command call (`redis.call("TIME", [])`); a cluster finds the key itself. */
  call(command: string, args: string[]): Promise<unknown>;
}

/**
 * {@link RedisCommands} over an ioredis client: `new Redis()`, or
 * `new Cluster()` for Redis Cluster, which sends each check to the master
 * serving its key's hash slot and follows `MOVED` and `ASK` redirections
 * (docs/enforcement.md "Redis Cluster"). The client keeps its own
 * connection, reconnection and offline-queue settings.
 *
 * @example
 * ```ts ignore
 * import Redis from "ioredis";
 * import { createRedisStore, ioredisCommands } from "@policy/runtime/enforce/redis";
 *
 * const store = createRedisStore(ioredisCommands(new Redis("redis://127.0.0.1:6379")));
 * ```
 */
export function ioredisCommands(client: IoredisClientLike): RedisCommands {
  if (typeof client?.call !== "function") {
    throw new PolicyError(
      "INVALID_OPTIONS",
      "ioredisCommands needs an ioredis client (new Redis()); for the redis package use nodeRedisCommands",
    );
  }
  return {
    send: ([name, ...args]) => {
      if (name === undefined) return Promise.reject(new Error("empty Redis command"));
      return client.call(name, args);
    },
  };
}
