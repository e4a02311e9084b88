// This module is browser compatible.
/**
 * The adapter for clients of the `redis` package (node-redis).
 *
 * @module
 */
import { PolicyError } from "../../public/policy_error.ts";
import type { RedisCommands } from "./types.ts";

/** The member of a node-redis client the adapter uses. */
export interface NodeRedisClientLike {
  /** node-redis's raw command call (`client.sendCommand(["TIME"])`). */
  sendCommand(args: string[]): Promise<unknown>;
}

/**
 * {@link RedisCommands} over a connected client of the `redis` package
 * (`createClient()`; for `createCluster()` use `nodeRedisClusterCommands`).
 * The client keeps its own
 * connection, reconnection and offline-queue settings.
 *
 * @example
 * ```ts ignore
 * import { createClient } from "redis";
 * import { createRedisStore, nodeRedisCommands } from "@policy/runtime/enforce/redis";
 *
 * const client = await createClient({ url: "redis://127.0.0.1:6379" }).connect();
 * const store = createRedisStore(nodeRedisCommands(client));
 * ```
 */
export function nodeRedisCommands(client: NodeRedisClientLike): RedisCommands {
  if (typeof client?.sendCommand !== "function") {
    throw new PolicyError(
      "INVALID_OPTIONS",
      "nodeRedisCommands needs a client of the redis package (createClient()); for ioredis use ioredisCommands",
    );
  }
  // A cluster client's sendCommand takes the routing key first: given the command there, it
  // would fail every check.
  if (typeof (client as { getSlotMaster?: unknown }).getSlotMaster === "function") {
    throw new PolicyError(
      "INVALID_OPTIONS",
      "nodeRedisCommands got a cluster client (createCluster()): use nodeRedisClusterCommands",
    );
  }
  return { send: (command) => client.sendCommand([...command]) };
}
