/**
 * Tests against a real redis-server (tests/enforce/_redis_server.ts), each
 * with a server of its own; skipped, with the reason printed, when
 * redis-server is missing (CI installs it: .ci/run).
 *
 * @module
 */

import { withTempDir } from "../_temp_dir.ts";
import { findRedisServer, type RedisServer, startRedisServer } from "./_redis_server.ts";

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
