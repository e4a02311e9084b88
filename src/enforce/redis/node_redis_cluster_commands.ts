// This module is browser compatible.
/**
 * The adapter for cluster clients of the `redis` package (node-redis
 * `createCluster()`).
 *
 * @module
 */
import { PolicyError } from "../../public/policy_error.ts";
import type { RedisCommands } from "./types.ts";

/** The members of a node-redis cluster client the adapter uses. */
export interface NodeRedisClusterLike {
  /**
   * node-redis's raw command call on a cluster: the key that picks the node,
   * whether the command only reads, and the command
   * (`cluster.sendCommand(key, false, ["EVALSHA", …])`).
   */
  sendCommand(
    firstKey: string | undefined,
    isReadonly: boolean | undefined,
    args: string[],
  ): Promise<unknown>;
  /** The node serving a hash slot: present on cluster clients only. */
  getSlotMaster(slot: number): unknown;
}

/**
 * {@link RedisCommands} over a connected cluster client of the `redis`
 * package (`createCluster()`). Each check goes to the master serving its
 * key's hash slot; the client follows `MOVED` and `ASK` redirections and
 * keeps its own connections, reconnection and offline-queue settings
 * (docs/enforcement.md "Redis Cluster").
 *
 * @example
 * ```ts ignore
 * import { createCluster } from "redis";
 * import { createRedisStore, nodeRedisClusterCommands } from "@policy/runtime/enforce/redis";
 *
 * const cluster = await createCluster({
 *   rootNodes: [{ url: "redis://10.0.0.1:6379" }, { url: "redis://10.0.0.2:6379" }],
 * }).connect();
 * const store = createRedisStore(nodeRedisClusterCommands(cluster));
 * ```
 */
export function nodeRedisClusterCommands(cluster: NodeRedisClusterLike): RedisCommands {
  if (typeof cluster?.sendCommand !== "function" || typeof cluster.getSlotMaster !== "function") {
    throw new PolicyError(
      "INVALID_OPTIONS",
      "nodeRedisClusterCommands needs a cluster client of the redis package (createCluster()); for a client of one server (createClient()) use nodeRedisCommands",
    );
  }
  // Never read-only: the check writes, so it goes to the master, never to a replica.
  return { send: (command, key) => cluster.sendCommand(key, false, [...command]) };
}
