// The Redis store on a real Redis Cluster (docs/enforcement.md "Redis
// Cluster"): three masters with a replica each, started by the test from
// Debian's redis-server and `redis-cli --cluster create` on free loopback
// ports (tests/enforce/redis_cluster.ts). Both client families count in the
// same buckets, each bucket on the master serving its key's slot; the script
// is loaded once per master that runs a check (NOSCRIPT there, then EVAL
// there), never on a replica; no command touches two keys. The hammering,
// resharding, failover and fault tests are in redis_cluster_long_test.ts
// (`deno task test:long`): a cluster costs seconds to build.
import assert from "node:assert/strict";
import { bucketOf, throttleShape } from "../../src/enforce/_bucket.ts";
import { bucketKey } from "../../src/enforce/redis/_check_and_count.ts";
import {
  createRedisStore,
  nodeRedisClusterCommands,
  nodeRedisCommands,
} from "../../src/enforce/redis/mod.ts";
import type { Decision } from "../../src/engine/mod.ts";
import { assertThrowsCode } from "../_assert_policy_error.ts";
import type { RedisCluster } from "./redis_cluster.ts";
import { connectClient, connectClusterClient, STORE_TIMEOUT_MS } from "./redis_clients.ts";
import { redisClusterTest } from "./_redis_test.ts";

/** Per node: calls of EVAL, EVALSHA, and errors by prefix, since the last CONFIG RESETSTAT. */
async function scriptStats(cluster: RedisCluster, port: number) {
  const commands = await cluster.send(port, "INFO", "commandstats");
  const errors = await cluster.send(port, "INFO", "errorstats");
  const calls = (name: string) =>
    Number(commands.match(new RegExp(`cmdstat_${name}:calls=(\\d+)`))?.[1] ?? 0);
  const errorCounts = Object.fromEntries(
    [...errors.matchAll(/errorstat_(\w+):count=(\d+)/g)].map(([, name, n]) => [name, Number(n)]),
  );
  return { eval: calls("eval"), evalsha: calls("evalsha"), errors: errorCounts };
}

/** Bucket names whose keys the three masters serve, one each, by master port. */
async function bucketsByMaster(cluster: RedisCluster): Promise<Map<number, string>> {
  const found = new Map<number, string>();
  for (let i = 0; found.size < 3; i++) {
    const bucket = `tenant-${i}`;
    const owner = await cluster.ownerOf(
      await cluster.keySlot(bucketKey("policy:throttle:", bucket)),
    );
    if (!found.has(owner.port)) found.set(owner.port, bucket);
  }
  return found;
}

redisClusterTest(
  "Redis Cluster: node-redis and ioredis count in one bucket per master, loading the script once per master",
  async (cluster) => {
    await using nodeRedis = await connectClusterClient("redis", cluster);
    await using ioredis = await connectClusterClient("ioredis", cluster);
    const stores = [nodeRedis, ioredis].map((client) =>
      createRedisStore(client.commands, { timeoutMs: STORE_TIMEOUT_MS })
    );
    const buckets = await bucketsByMaster(cluster);
    const topology = await cluster.nodes();
    for (const port of cluster.ports) await cluster.send(port, "CONFIG", "RESETSTAT");

    for (const [master, bucket] of buckets) {
      const admitted = [];
      for (let i = 0; i < 8; i++) {
        admitted.push((await stores[i % 2]!.hit(bucket, 5, 60e6)).admitted);
      }
      assert.deepEqual(admitted, [true, true, true, true, true, false, false, false], bucket);
      const key = bucketKey("policy:throttle:", bucket);
      assert.equal(await cluster.send(master, "TYPE", key), "hash", `${key} is on ${master}`);
    }
    for (const node of topology) {
      const stats = await scriptStats(cluster, node.port);
      assert.equal(stats.errors.CROSSSLOT, undefined, "never a multi-key command");
      if (node.role === "replica") {
        // Checks write: they go to masters only; a replica applies their effects.
        assert.deepEqual([stats.eval, stats.evalsha], [0, 0], `replica ${node.port}`);
        continue;
      }
      // The first check on each master found no script (NOSCRIPT) and loaded it with EVAL there,
      // once; the other seven, from either client, ran it by its SHA-1.
      assert.deepEqual(
        { eval: stats.eval, evalsha: stats.evalsha, noscript: stats.errors.NOSCRIPT },
        { eval: 1, evalsha: 8, noscript: 1 },
        `master ${node.port}`,
      );
    }

    // A master that lost its scripts (restarted, promoted) gets it again, once; the others not.
    const [flushed, bucket] = [...buckets][0]!;
    await cluster.send(flushed, "SCRIPT", "FLUSH");
    for (const port of cluster.ports) await cluster.send(port, "CONFIG", "RESETSTAT");
    for (const store of stores) assert.equal((await store.hit(bucket, 5, 60e6)).admitted, false);
    for (const [master, other] of buckets) {
      if (master !== flushed) assert.ok((await stores[0]!.hit(other, 6, 60e6)).admitted);
      const stats = await scriptStats(cluster, master);
      assert.equal(stats.eval, master === flushed ? 1 : 0, `EVAL on ${master}`);
    }

    // Each client family has its adapter: node-redis's cluster and single-server clients take
    // their arguments in different places, and each adapter refuses the other's.
    assertThrowsCode(() => nodeRedisCommands(nodeRedis.client as never), "INVALID_OPTIONS");
    await using single = await connectClient(
      "redis",
      `redis://:${cluster.password}@127.0.0.1:${cluster.ports[0]}`,
    );
    assertThrowsCode(() => nodeRedisClusterCommands(single.client as never), "INVALID_OPTIONS");

    // The key's slot: the whole key's, unless a {hash tag} comes first. A tenant whose value is
    // written "{acme}" has its buckets of every rule in the slot of "acme".
    const keyOf = async (ruleId: string, tenant: string) => {
      const decision: Decision = {
        decision: "throttle",
        reason: "rule",
        policyKey: "api",
        ruleId,
        throttle: { limit: 10, windowSeconds: 60, key: "tenant" },
      };
      const bucket = await bucketOf(throttleShape(decision, decision.throttle!, 10, 60e6), {
        tenant,
      });
      return bucketKey("policy:throttle:", bucket);
    };
    const slots = (tenant: string) =>
      Promise.all(
        ["reads", "writes", "exports"].map(async (rule) =>
          await cluster.keySlot(await keyOf(rule, tenant))
        ),
      );
    const plain = await slots("acme");
    assert.equal(new Set(plain).size, 3, `without a tag, spread by the whole key: ${plain}`);
    const acme = await cluster.keySlot("acme");
    assert.deepEqual(await slots("{acme}"), [acme, acme, acme], "the slot of acme");
  },
);
