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
  /** ioredis's raw command call (`redis.call("TIME", [])`). */
  call(command: string, args: string[]): Promise<unknown>;
}

/**
 * {@link RedisCommands} over an ioredis client (`new Redis()`, not a
 * cluster). The client keeps its own connection, reconnection and
 * offline-queue settings.
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
