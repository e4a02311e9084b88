/**
 * Connected `redis` (node-redis) and `ioredis` clients for the tests, the
 * benchmark and the hammering children, with their error events handled
 * (an unhandled `error` event would end the process when Redis goes away).
 *
 * @module
 */
import { createClient, createCluster } from "redis";
import { Cluster, Redis } from "ioredis";
import {
  ioredisCommands,
  nodeRedisClusterCommands,
  nodeRedisCommands,
  type RedisCommands,
} from "../../src/enforce/redis/mod.ts";

/**
 * The store's `timeoutMs` in tests that are not about timeouts: it only turns
 * a hang into a failure. A loaded CI machine can stall a process for longer
 * than the default 200 ms (a check then fails that the test expects to count).
 */
export const HANG_BOUND_MS = 10_000;

/** Which client library. */
export type ClientKind = "redis" | "ioredis";

/** A connected client, as the store sees it, and how to let it go. */
export interface TestRedisClient extends AsyncDisposable {
  commands: RedisCommands;
  /** The library's own client object (what other libraries, such as rate-limiter-flexible, take). */
  client: unknown;
  /** Errors the client emitted (connection lost, reconnect failures). */
  errors: Error[];
  /**
   * Resolves at the client's next `ready` event: call it while connected, and
   * it resolves once the client has reconnected (and, for ioredis, sent what
   * it queued meanwhile).
   */
  nextReady(): Promise<void>;
  close(): Promise<void>;
}

/** Connects a client of `kind` to `url`; `failFast` turns off its offline queue. */
export async function connectClient(
  kind: ClientKind,
  url: string,
  { failFast = false } = {},
): Promise<TestRedisClient> {
  const errors: Error[] = [];
  if (kind === "redis") {
    const client = createClient({
      url,
      disableOfflineQueue: failFast,
      socket: { reconnectStrategy: () => 50 },
    });
    client.on("error", (error: Error) => errors.push(error));
    await client.connect();
    const close = async () => {
      if (client.isOpen) client.destroy();
      await Promise.resolve();
    };
    const commands = nodeRedisCommands(client);
    const nextReady = () => new Promise<void>((resolve) => client.once("ready", () => resolve()));
    return { commands, client, errors, nextReady, close, [Symbol.asyncDispose]: close };
  }
  const client = new Redis(url, {
    lazyConnect: true,
    enableOfflineQueue: !failFast,
    retryStrategy: () => 50,
  });
  client.on("error", (error: Error) => errors.push(error));
  await client.connect();
  const close = async () => {
    client.disconnect();
    await Promise.resolve();
  };
  const commands = ioredisCommands(client);
  const nextReady = () => new Promise<void>((resolve) => client.once("ready", () => resolve()));
  return { commands, client, errors, nextReady, close, [Symbol.asyncDispose]: close };
}

/** Where a cluster client starts: the nodes' loopback ports and their password. */
export interface ClusterSeeds {
  ports: readonly number[];
  password: string;
}

/**
 * Connects a cluster client of `kind` (node-redis `createCluster`, ioredis
 * `Cluster`) to the nodes of `seeds`; `failFast` turns off its offline queue.
 * Reconnection every 50 ms, as {@link connectClient}'s.
 */
export async function connectClusterClient(
  kind: ClientKind,
  seeds: ClusterSeeds,
  { failFast = false } = {},
): Promise<TestRedisClient> {
  const errors: Error[] = [];
  if (kind === "redis") {
    const client = createCluster({
      rootNodes: seeds.ports.map((port) => ({ url: `redis://127.0.0.1:${port}` })),
      defaults: {
        password: seeds.password,
        disableOfflineQueue: failFast,
        socket: { reconnectStrategy: () => 50 },
      },
    });
    client.on("error", (error: Error) => errors.push(error));
    await client.connect();
    const close = async () => {
      if (client.isOpen) client.destroy();
      await Promise.resolve();
    };
    const commands = nodeRedisClusterCommands(client);
    // node-redis's cluster emits no "ready" of its own: connected once it has the slots.
    const nextReady = () => Promise.resolve();
    return { commands, client, errors, nextReady, close, [Symbol.asyncDispose]: close };
  }
  const client = new Cluster(seeds.ports.map((port) => ({ host: "127.0.0.1", port })), {
    lazyConnect: true,
    enableOfflineQueue: !failFast,
    clusterRetryStrategy: () => 50,
    redisOptions: { password: seeds.password },
  });
  client.on("error", (error: Error) => errors.push(error));
  await client.connect();
  const close = async () => {
    client.disconnect();
    await Promise.resolve();
  };
  const commands = ioredisCommands(client);
  const nextReady = () => new Promise<void>((resolve) => client.once("ready", () => resolve()));
  return { commands, client, errors, nextReady, close, [Symbol.asyncDispose]: close };
}
