/**
 * Tests against a real redis-server (tests/enforce/redis_server.ts), each
 * with a server of its own, or a real Redis Cluster of its own
 * (tests/enforce/redis_cluster.ts); skipped, with the reason printed, when
 * redis-server (or, for a cluster, redis-cli) is missing (CI installs both:
 * .ci/run).
 *
 * @module
 */

import { withTempDir } from "../temp_dir.ts";
import { whyNotRunnable } from "../_program.ts";
import { type ClusterOptions, type RedisCluster, startRedisCluster } from "./redis_cluster.ts";
import { findRedisServer, type RedisServer, startRedisServer } from "./redis_server.ts";

const found = await findRedisServer();
if (!found.ok) {
  console.log(`redis-server is not available, skipping the Redis tests: ${found.reason}`);
}

/**
 * A test against a fresh redis-server of its own, in a temporary folder;
 * ignored (with the reason printed once) when redis-server cannot run.
 */
export function redisTest(name: string, fn: (server: RedisServer) => Promise<void>): void {
  Deno.test({
    name,
    ignore: !found.ok,
    fn: () =>
      withTempDir(async (dir) => {
        await using server = await startRedisServer(dir);
        await fn(server);
      }),
  });
}

/** Whether redis-cli runs (it builds and administers the clusters), or why not. */
function findRedisCli(): Promise<string | null> {
  return whyNotRunnable("redis-cli", "apt-get install redis-server brings it");
}

let clusterSkip: Promise<string | null> | undefined;

/** Options of {@link redisClusterTest}: the cluster's, and whether the test runs. */
export interface ClusterTestOptions extends ClusterOptions {
  /** False to leave the test out (`LONG` for a test of the long suite). Default true. */
  run?: boolean;
}

/**
 * A test against a fresh Redis Cluster of its own (three masters with a
 * replica each, by default), in a temporary folder; ignored when the cluster
 * cannot be built (the reason printed once) or `run` is false.
 */
export function redisClusterTest(
  name: string,
  fn: (cluster: RedisCluster) => Promise<void>,
  { run = true, ...options }: ClusterTestOptions = {},
): void {
  Deno.test({
    name,
    ignore: !found.ok || !run,
    fn: async () => {
      clusterSkip ??= findRedisCli().then((reason) => {
        if (reason !== null) console.log(`skipping the Redis Cluster tests: ${reason}`);
        return reason;
      });
      if (await clusterSkip !== null) return;
      await withTempDir(async (dir) => {
        await using cluster = await startRedisCluster(dir, options);
        await fn(cluster);
      });
    },
  });
}
