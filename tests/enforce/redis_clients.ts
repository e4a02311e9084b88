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
export const STORE_TIMEOUT_MS = 10_000;

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
export function connectClient(
  kind: ClientKind,
  url: string,
  { failFast = false } = {},
): Promise<TestRedisClient> {
  if (kind === "redis") {
    const client = createClient({
      url,
      disableOfflineQueue: failFast,
      socket: { reconnectStrategy: () => 50 },
    });
    return connected(client, nodeRedisCommands(client), () => {
      if (client.isOpen) client.destroy();
    });
  }
  const client = new Redis(url, {
    lazyConnect: true,
    enableOfflineQueue: !failFast,
    retryStrategy: () => 50,
  });
  return connected(client, ioredisCommands(client), () => client.disconnect());
}

/** The client library's object as {@link connected} uses it: both families have these. */
interface EventClient {
  on(event: "error", listener: (error: Error) => void): unknown;
  once(event: "ready", listener: () => void): unknown;
  connect(): Promise<unknown>;
}

/** Records `client`'s errors, connects it, and wraps it as a {@link TestRedisClient}. */
async function connected(
  client: EventClient,
  commands: RedisCommands,
  destroy: () => void,
  nextReady = () => new Promise<void>((resolve) => client.once("ready", () => resolve())),
): Promise<TestRedisClient> {
  const errors: Error[] = [];
  client.on("error", (error: Error) => errors.push(error));
  await client.connect();
  const close = async () => {
    destroy();
    await Promise.resolve();
  };
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
export function connectClusterClient(
  kind: ClientKind,
  seeds: ClusterSeeds,
  { failFast = false } = {},
): Promise<TestRedisClient> {
  if (kind === "redis") {
    const client = createCluster({
      rootNodes: seeds.ports.map((port) => ({ url: `redis://127.0.0.1:${port}` })),
      defaults: {
        password: seeds.password,
        disableOfflineQueue: failFast,
        socket: { reconnectStrategy: () => 50 },
      },
    });
    // node-redis's cluster emits no "ready" of its own: connected once it has the slots.
    return connected(client, nodeRedisClusterCommands(client), () => {
      if (client.isOpen) client.destroy();
    }, () => Promise.resolve());
  }
  const client = new Cluster(seeds.ports.map((port) => ({ host: "127.0.0.1", port })), {
    lazyConnect: true,
    enableOfflineQueue: !failFast,
    clusterRetryStrategy: () => 50,
    redisOptions: { password: seeds.password },
  });
  return connected(client, ioredisCommands(client), () => client.disconnect());
}
