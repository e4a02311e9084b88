// The Redis store on a real Redis Cluster under load and faults
// (docs/enforcement.md "Redis Cluster"), each test on a cluster of its own:
// three masters with a replica each (tests/enforce/redis_cluster.ts). Four
// processes, two per client family, hammer a limited bucket and an exact one
// (every check admitted and counted) in one hot slot, while the slot is
// resharded key by key to another master and back, while a replica takes
// over by CLUSTER FAILOVER, and while its master is killed; and a master is
// frozen then killed and restarted while the fake clock drives the timeouts.
// Exact counts are checked against the server time of every answer, as the
// single-server tests do; what the killed master lost is measured and
// printed. `deno task test:long` only: each cluster costs seconds to build.
import assert from "node:assert/strict";
import { bucketKey } from "../../src/enforce/redis/_check_and_count.ts";
import { createRedisStore, type RedisCommands } from "../../src/enforce/redis/mod.ts";
import { createEnforcer } from "../../src/enforce/mod.ts";
import type { Decision, PolicyError } from "../../src/engine/mod.ts";
import { FakeClock } from "../_fake_clock.ts";
import { LONG, noteLong } from "../_long.ts";
import { answersOf, hammer, type HammerAnswer, type HammerJob } from "./_hammer.ts";
import type { RedisCluster } from "./redis_cluster.ts";
import {
  type ClientKind,
  connectClusterClient,
  STORE_TIMEOUT_MS,
  type TestRedisClient,
} from "./redis_clients.ts";
import { redisClusterTest } from "./_redis_test.ts";
import { type Answer, assertGuarantee } from "./_window_scenarios.ts";

noteLong(
  "tests/enforce/redis_cluster_long_test.ts",
  "the Redis Cluster hammering, resharding, failover and fault tests",
);

const PREFIX = "policy:throttle:";
/** The hot slot: every bucket of the hammer carries the hash tag {hot}. */
const HOT = "{hot}";
const LIMITED = { bucket: `limited:${HOT}`, limit: 25, windowMicros: 1_000_000 };
/** Admits every check and keeps every count for the test's length: its total is the admissions. */
const EXACT = { bucket: `exact:${HOT}`, limit: 1_000_000_000_000, windowMicros: 300_000_000 };
const KINDS: ClientKind[] = ["redis", "ioredis", "redis", "ioredis"];

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The four hammering processes' jobs on `cluster`. */
function jobs(cluster: RedisCluster, durationMs: number, failuresExpected = false): HammerJob[] {
  return KINDS.map((kind) => ({
    kind,
    cluster: { ports: cluster.ports, password: cluster.password },
    buckets: [LIMITED, EXACT],
    durationMs,
    concurrency: 4,
    failuresExpected,
  }));
}

/** What EXACT counted, read through the store: a check under its limit says what remains. */
async function exactTotal(commands: RedisCommands): Promise<number> {
  const store = createRedisStore(commands, { timeoutMs: STORE_TIMEOUT_MS });
  const { remaining } = await store.hit(EXACT.bucket, EXACT.limit, EXACT.windowMicros);
  return EXACT.limit - 1 - remaining; // this check counted itself
}

/** Admitted, refused and failed answers of bucket `index`. */
function tally(all: HammerAnswer[][], index: number) {
  const counts = { admitted: 0, refused: 0, failed: 0 };
  for (const [bucket, admitted] of all.flat()) {
    if (bucket !== index) continue;
    if (admitted === 1) counts.admitted++;
    else if (admitted === 0) counts.refused++;
    else counts.failed++;
  }
  return counts;
}

/** The most admissions among `answers` within any window of `window` µs (both ends included). */
function mostInAnyWindow(answers: Answer[], window: number): number {
  const times = answers.filter((a) => a.count.admitted).map((a) => a.at);
  let most = 0;
  for (let i = 0, j = 0; i < times.length; i++) {
    while (times[i]! - times[j]! > window) j++;
    most = Math.max(most, i - j + 1);
  }
  return most;
}

/** Errors by prefix (MOVED, ASK, NOSCRIPT…) on the node at `port` since it started. */
async function errorStats(cluster: RedisCluster, port: number): Promise<Record<string, number>> {
  const text = await cluster.send(port, "INFO", "errorstats");
  return Object.fromEntries(
    [...text.matchAll(/errorstat_(\w+):count=(\d+)/g)].map(([, name, n]) => [name, Number(n)]),
  );
}

/** Summed over the masters: errors of `name` they answered. */
async function errorsOf(cluster: RedisCluster, name: string): Promise<number> {
  let sum = 0;
  for (const port of cluster.ports) {
    if (cluster.servers.get(port)!.running) sum += (await errorStats(cluster, port))[name] ?? 0;
  }
  return sum;
}

redisClusterTest(
  "Redis Cluster: four processes hammer a hot slot while it moves to another master and back, never more than limit, never counted twice",
  async (cluster) => {
    const slot = await cluster.keySlot(HOT.slice(1, -1));
    const home = await cluster.ownerOf(slot);
    const away = (await cluster.nodes()).find((n) => n.role === "master" && n.port !== home.port)!;
    // Other keys of the slot, so that it stays half-moved while the hammer runs (its buckets go
    // first, the rest after: checks meet MOVED, then ASK while the slot is migrating).
    const fillers = Array.from({ length: 30 }, (_, i) => [`filler:${HOT}:${i}`, "x"]).flat();
    await cluster.send(home.port, "MSET", ...fillers);
    const first = [LIMITED, EXACT].map((b) => bucketKey(PREFIX, b.bucket));
    const move = (to: number) => cluster.migrateSlot(slot, to, { first, between: () => sleep(10) });

    const all = await hammer(jobs(cluster, 6_000), async () => {
      await sleep(1_000);
      await move(away.port);
      await sleep(500);
      await move(home.port);
    });

    const limited = answersOf(all, 0);
    const exact = tally(all, 1);
    const span = limited.at(-1)!.at - limited[0]!.at;
    const redirected = {
      moved: await errorsOf(cluster, "MOVED"),
      ask: await errorsOf(cluster, "ASK"),
    };
    console.log(
      `resharding: ${limited.length} checks of the limited bucket over ${
        (span / 1e6).toFixed(2)
      } s, ${tally(all, 0).admitted} admitted; ${exact.admitted} of the exact one; ` +
        `${redirected.moved} MOVED and ${redirected.ask} ASK answered`,
    );
    assert.equal((await cluster.ownerOf(slot)).port, home.port, "the slot came back");
    assert.ok(redirected.moved > 0 && redirected.ask > 0, "the clients followed MOVED and ASK");
    assert.ok(limited.length > 4 * LIMITED.limit, "the bucket was contended");
    assertGuarantee({ limit: LIMITED.limit, window: LIMITED.windowMicros }, limited);
    assert.equal(exact.failed + tally(all, 0).failed, 0, "no check failed");
    // Every admission counted once: none lost in a move, none counted on both nodes.
    await using client = await connectClusterClient("ioredis", cluster);
    assert.equal(await exactTotal(client.commands), exact.admitted);
  },
  { run: LONG },
);

redisClusterTest(
  "Redis Cluster: CLUSTER FAILOVER on a replica while four processes hammer loses no count",
  async (cluster) => {
    const slot = await cluster.keySlot(HOT.slice(1, -1));
    const master = await cluster.ownerOf(slot);
    const replica = (await cluster.nodes()).find((n) => n.masterId === master.id)!;
    const all = await hammer(jobs(cluster, 4_000, true), async () => {
      await sleep(1_000);
      await cluster.send(replica.port, "CLUSTER", "FAILOVER");
      await cluster.settled();
    });
    assert.equal((await cluster.ownerOf(slot)).port, replica.port, "the replica took over");
    const exact = tally(all, 1);
    console.log(
      `CLUSTER FAILOVER: ${exact.admitted} admitted in the exact bucket, ${
        exact.failed + tally(all, 0).failed
      } checks failed; ${await errorsOf(cluster, "NOSCRIPT")} NOSCRIPT answered`,
    );
    // A coordinated failover: the replica takes over once it has every write of its master.
    assert.equal(exact.failed + tally(all, 0).failed, 0, "no check failed");
    assertGuarantee({ limit: LIMITED.limit, window: LIMITED.windowMicros }, answersOf(all, 0));
    await using client = await connectClusterClient("redis", cluster);
    assert.equal(await exactTotal(client.commands), exact.admitted, "nothing lost");
    // The promoted replica had no script (scripts are not replicated): loaded there on demand.
    assert.ok(
      (await errorStats(cluster, replica.port)).NOSCRIPT! >= 1,
      "NOSCRIPT on the new master",
    );
  },
  { run: LONG },
);

redisClusterTest(
  "Redis Cluster: a killed master's replica takes over, without what it had not replicated: measured",
  async (cluster) => {
    const slot = await cluster.keySlot(HOT.slice(1, -1));
    const master = await cluster.ownerOf(slot);
    const replica = (await cluster.nodes()).find((n) => n.masterId === master.id)!;
    const serverTime = async (port: number) => {
      const [seconds, micros] = (await cluster.send(port, "TIME")).split("\n");
      return Number(seconds) * 1e6 + Number(micros);
    };
    let cutAt = 0;
    let killedAt = 0;
    const all = await hammer(jobs(cluster, 8_000, true), async () => {
      await sleep(1_000);
      // The replica falls behind, as on a slow or broken link: its replication connection is
      // cut, and it cannot open another (wrong password), for 200 ms before its master dies.
      await cluster.send(replica.port, "CONFIG", "SET", "masterauth", "not-the-password");
      cutAt = await serverTime(master.port);
      await cluster.send(master.port, "CLIENT", "KILL", "TYPE", "replica");
      await sleep(200);
      killedAt = await serverTime(master.port);
      await cluster.servers.get(master.port)!.stop("SIGKILL");
      await cluster.send(replica.port, "CONFIG", "SET", "masterauth", cluster.password);
      await cluster.settled();
    });
    assert.equal((await cluster.ownerOf(slot)).port, replica.port, "the replica took over");
    const limited = answersOf(all, 0);
    const exact = tally(all, 1);
    await using client = await connectClusterClient("redis", cluster);
    const total = await exactTotal(client.commands);
    const lost = exact.admitted - total;
    const exactAnswers = answersOf(all, 1).filter((a) => a.count.admitted);
    const unreplicated = exactAnswers.filter((a) => a.at >= cutAt && a.at <= killedAt).length;
    const afterKill = limited.filter((a) => a.at > killedAt && a.count.admitted).length;
    const most = mostInAnyWindow(limited, LIMITED.windowMicros);
    console.log(
      `killed master: ${exact.admitted} admitted in the exact bucket, ${unreplicated} of them ` +
        `in the ${((killedAt - cutAt) / 1e3).toFixed(0)} ms the replica was cut off; ` +
        `${total} counted on the promoted replica: ${lost} lost; ` +
        `${exact.failed + tally(all, 0).failed} checks failed while no master served the slot; ` +
        `at most ${most} admitted in one window of the limited bucket (limit ${LIMITED.limit}), ` +
        `${afterKill} after the kill`,
    );
    // What a failover loses: the admissions of the killed master that had not reached its
    // replica, and nothing before them; never a count more than the checks that may have run
    // (a failed check may have been counted before the kill).
    assert.ok(lost > 0, "the unreplicated counts are lost");
    assert.ok(lost <= unreplicated, `${lost} lost, ${unreplicated} unreplicated`);
    assert.ok(total <= exact.admitted + exact.failed, "never counted more than it checked");
    assert.ok(afterKill > 0, "the promoted replica counts");
    // Having lost counts, a bucket may admit up to its limit again, once: within twice the limit.
    assert.ok(most <= 2 * LIMITED.limit, `${most} in one window`);
  },
  { run: LONG },
);

/** A throttle decision of rule `ruleId` counting by tenant, 2 per 60 s. */
function decision(): Decision {
  return {
    decision: "throttle",
    reason: "rule",
    policyKey: "api",
    ruleId: "per-tenant",
    throttle: { limit: 2, windowSeconds: 60, key: "tenant" },
  };
}

/** Tenants whose buckets (under `prefix`) the three masters serve, by master port. */
async function tenantsByMaster(cluster: RedisCluster, prefix: string) {
  const { bucketOf, throttleShape } = await import("../../src/enforce/_bucket.ts");
  const d = decision();
  const shape = throttleShape(d, d.throttle!, 2, 60e6);
  const found = new Map<number, string>();
  for (let i = 0; found.size < 3; i++) {
    const tenant = `tenant-${i}`;
    const key = bucketKey(prefix, await bucketOf(shape, { tenant }));
    const owner = await cluster.ownerOf(await cluster.keySlot(key));
    if (!found.has(owner.port)) found.set(owner.port, tenant);
  }
  return found;
}

/** Client connections the node at `port` holds (`connected_clients`, redis-cli's included). */
async function connectedClients(cluster: RedisCluster, port: number): Promise<number> {
  const info = await cluster.send(port, "INFO", "clients");
  return Number(info.match(/connected_clients:(\d+)/)![1]);
}

for (const kind of ["redis", "ioredis"] as ClientKind[]) {
  redisClusterTest(
    `Redis Cluster (${kind}): a frozen or killed master fails its buckets within timeoutMs, closed or open, while the other masters count; reconnects do not leak`,
    async (cluster) => {
      // No failover for the victim, and the other masters serve while its slots are down (by
      // default, cluster-require-full-coverage stops every master once a slot is uncovered).
      const nodes = await cluster.nodes();
      for (const node of nodes) {
        await cluster.send(node.port, "CONFIG", "SET", "cluster-require-full-coverage", "no");
        if (node.role === "replica") {
          await cluster.send(node.port, "CONFIG", "SET", "cluster-replica-no-failover", "yes");
        }
      }
      const tenants = await tenantsByMaster(cluster, PREFIX);
      const tenantsOpen = await tenantsByMaster(cluster, "open:");
      const [victim] = [...tenants.keys()];
      const server = cluster.servers.get(victim!)!;
      await using client: TestRedisClient = await connectClusterClient(kind, cluster);
      const clock = new FakeClock();
      const errors: PolicyError[] = [];
      const onError = (error: PolicyError) => void errors.push(error);
      const timeoutMs = 100;
      const closed = createEnforcer({
        store: createRedisStore(client.commands, { timeoutMs, clock }),
        onError,
      });
      const open = createEnforcer({
        store: createRedisStore(client.commands, { prefix: "open:", timeoutMs, clock }),
        whenStoreFails: "open",
        onError,
      });
      const status = async (enforcer: typeof open, tenant: string) => {
        const verdict = await enforcer.enforce(decision(), { tenant });
        return verdict.proceed ? 200 : verdict.status;
      };
      /** A check of the victim's bucket: pending until the fake clock reaches its timeout. */
      const timesOut = async (enforcer: typeof open, tenant: string) => {
        const armed = clock.nextTimer();
        const answer = status(enforcer, tenant);
        await armed;
        assert.deepEqual(clock.pendingDelays(), [timeoutMs]);
        clock.tick(timeoutMs - 1);
        const early = await Promise.race([answer, Promise.resolve("pending")]);
        assert.equal(early, "pending", "not failed before timeoutMs");
        clock.tick(1);
        return await answer;
      };
      /** Both enforcers on every master: the victim's buckets as `victimStatuses` says. */
      const round = async (victimStatuses: () => Promise<number[]>, others: number[]) => {
        assert.deepEqual(await victimStatuses(), [503, 200], "closed refuses, open lets through");
        for (const port of tenants.keys()) {
          if (port === victim) continue;
          assert.deepEqual(
            [await status(closed, tenants.get(port)!), await status(open, tenantsOpen.get(port)!)],
            others,
            `the master at ${port} counts`,
          );
        }
      };

      for (const port of tenants.keys()) {
        assert.deepEqual(
          [await status(closed, tenants.get(port)!), await status(open, tenantsOpen.get(port)!)],
          [200, 200],
        );
      }
      // Frozen (a hung host): checks of its buckets wait, and fail at timeoutMs.
      server.pause();
      await round(
        async () => [
          await timesOut(closed, tenants.get(victim!)!),
          await timesOut(open, tenantsOpen.get(victim!)!),
        ],
        [200, 200],
      );
      assert.equal(errors.length, 2);
      assert.ok(errors.every((e) => e.code === "THROTTLE_STORE_UNAVAILABLE"), errors.join("\n"));

      // Killed and restarted, three times: failed within timeoutMs each time (refused at once or
      // at the timeout, as the client does), the others counting, then counting again.
      let connections: number[] = [];
      for (let cycle = 0; cycle < 3; cycle++) {
        await server.stop("SIGKILL");
        const before: number = errors.length;
        const fails = async (enforcer: typeof open, tenant: string) => {
          const armed = clock.nextTimer();
          const answer = status(enforcer, tenant);
          await Promise.race([armed, answer]);
          clock.tick(timeoutMs);
          return await answer;
        };
        await round(
          async () => [
            await fails(closed, tenants.get(victim!)!),
            await fails(open, tenantsOpen.get(victim!)!),
          ],
          [429, 429], // the other tenants reached their limit of 2 in the rounds before
        );
        assert.equal(errors.length, before + 2);
        await server.start();
        await cluster.settled();
        // Restarted empty (nothing persisted): its buckets count from zero.
        assert.deepEqual(
          [
            await status(closed, tenants.get(victim!)!),
            await status(open, tenantsOpen.get(victim!)!),
          ],
          [200, 200],
          "counting again",
        );
        connections.push(await connectedClients(cluster, victim!));
      }
      // The client holds as many connections to the restarted master after the third restart as
      // after the first: reconnecting opened no extra ones.
      console.log(
        `${kind}: connections to the restarted master after each restart: ${connections}`,
      );
      assert.equal(new Set(connections).size, 1, `${connections}`);
      connections = [];
    },
    { run: LONG },
  );
}
