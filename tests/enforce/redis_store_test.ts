// The Redis store against Debian's redis-server, started by the tests on a
// free loopback port (tests/enforce/redis_server.ts): the Lua script
// answers like countRequest, both client adapters share one bucket, four
// processes hammering one bucket never get more than the guarantee allows,
// and a Redis restart mid-run gets the chosen failure mode. Skipped, with the
// reason printed, when redis-server is missing; CI installs it (.ci/run).
import assert from "node:assert/strict";
import { countRequest, SLOTS, type WindowState } from "../../src/enforce/sliding_window.ts";
import { checkAndCount } from "../../src/enforce/redis/_check_and_count.ts";
import { createRedisStore, DEFAULT_REDIS_TIMEOUT_MS } from "../../src/enforce/redis/mod.ts";
import { createEnforcer } from "../../src/enforce/mod.ts";
import type { PolicyError } from "../../src/engine/mod.ts";
import { assertRejectsCode, assertThrowsCode } from "../_assert_policy_error.ts";
import { enforcementClient, TARGETS } from "./fixtures.ts";
import { type ClientKind, connectClient, STORE_TIMEOUT_MS } from "./redis_clients.ts";
import { redisTest } from "./_redis_test.ts";
import { type Answer, assertGuarantee, fc, play, SEED, timeline } from "./_window_scenarios.ts";
import { answersOf, hammer } from "./_hammer.ts";
import { FakeClock } from "../_fake_clock.ts";
import { LONG, noteLong } from "../_long.ts";

const test = redisTest;
/** How long the four processes hammer the bucket: 1.5 windows quickly, 3 in test:long. */
const HAMMER_MS = LONG ? 3_000 : 1_500;
noteLong("tests/enforce/redis_store_test.ts", "the second half of the 3-second hammering");

test("Redis: the Lua script answers every timeline exactly as countRequest does", async (server) => {
  await using client = await connectClient("redis", server.url);
  let run = 0;
  await fc.assert(
    fc.asyncProperty(timeline, async (t) => {
      const key = `conformance:${run++}`;
      const state: WindowState = { slots: [], counts: [] };
      const answers: Answer[] = await play(t, async (now) => {
        const fromRedis = await checkAndCount(client.commands, key, t.limit, t.window, now);
        assert.deepEqual(fromRedis, countRequest(state, now, t.limit, t.window), `at ${now}`);
        return fromRedis;
      });
      assertGuarantee(t, answers);
    }),
    { seed: SEED, numRuns: 150 },
  );
});

test("Redis: node-redis and ioredis count in one bucket, on the server's clock, with expiry", async (server) => {
  await using nodeRedis = await connectClient("redis", server.url);
  await using ioredis = await connectClient("ioredis", server.url);
  const stores = [nodeRedis, ioredis].map((client) =>
    createRedisStore(client.commands, { timeoutMs: STORE_TIMEOUT_MS })
  );
  const admitted = [];
  for (let i = 0; i < 8; i++) admitted.push((await stores[i % 2]!.hit("b", 5, 60e6)).admitted);
  assert.deepEqual(admitted, [true, true, true, true, true, false, false, false]);
  const [seconds, micros] = await nodeRedis.commands.send(["TIME"]) as [string, string];
  const serverNow = Number(seconds) * 1e6 + Number(micros);
  const { nowMicros } = await stores[1]!.hit("b", 5, 60e6);
  assert.ok(nowMicros >= serverNow && nowMicros - serverNow < 5e6, "the server's TIME");
  const ttl = Number(await ioredis.commands.send(["PTTL", "policy:throttle:v2:b"]));
  assert.ok(ttl > 60_000 && ttl <= 63_000, `expires with its last slot: ${ttl} ms`);
  const prefixed = createRedisStore(nodeRedis.commands, {
    prefix: "other:",
    timeoutMs: STORE_TIMEOUT_MS,
  });
  assert.ok((await prefixed.hit("b", 5, 60e6)).admitted, "another prefix, another bucket");
});

test("Redis: the script is sent again when the server lost it (NOSCRIPT)", async (server) => {
  await using client = await connectClient("ioredis", server.url);
  const store = createRedisStore(client.commands, { timeoutMs: STORE_TIMEOUT_MS });
  assert.ok((await store.hit("a", 2, 1e6)).admitted);
  await client.commands.send(["SCRIPT", "FLUSH"]);
  assert.ok((await store.hit("a", 2, 1e6)).admitted);
  assert.equal((await store.hit("a", 2, 1e6)).admitted, false, "counts survived the flush");
});

test("Redis: a slow or failing check is THROTTLE_STORE_UNAVAILABLE, never a hang", async (server) => {
  await using client = await connectClient("redis", server.url);
  await using other = await connectClient("redis", server.url);
  const clock = new FakeClock();
  const store = createRedisStore(client.commands, { timeoutMs: 50, clock });
  await other.commands.send(["CLIENT", "PAUSE", "1000", "ALL"]);
  const first = store.hit("a", 2, 1e6);
  clock.tick(30);
  const second = store.hit("b", 2, 1e6); // its deadline comes after the first's
  assert.deepEqual(clock.pendingDelays(), [20], "one timer, for the oldest check");
  clock.tick(20);
  const slow = await assertRejectsCode(first, "THROTTLE_STORE_UNAVAILABLE");
  assert.match(slow.message, /did not answer the throttle check within 50 ms/);
  assert.deepEqual(clock.pendingDelays(), [30], "re-armed for the second");
  clock.tick(30);
  await assertRejectsCode(second, "THROTTLE_STORE_UNAVAILABLE");
  assert.equal(clock.pending, 0);
  await other.commands.send(["CLIENT", "UNPAUSE"]);
  assert.ok((await store.hit("c", 2, 1e6)).admitted, "answers again once Redis does");
  await client.commands.send(["SET", "policy:throttle:v2:string", "not a hash"]);
  const failed = await assertRejectsCode(store.hit("string", 2, 1e6), "THROTTLE_STORE_UNAVAILABLE");
  assert.match(failed.message, /WRONGTYPE/);
  assertThrowsCode(() => createRedisStore(client.commands, { timeoutMs: 0 }), "INVALID_OPTIONS");
  // Over 2^31 - 1 ms, a timer fires at once: the store's one timer would spin.
  assertThrowsCode(() => createRedisStore(client.commands, { timeoutMs: 3e9 }), "INVALID_OPTIONS");
  assertThrowsCode(() => createRedisStore({} as never), "INVALID_OPTIONS");
  assertThrowsCode(
    () => createRedisStore(client.commands, { timeout: 50 } as never),
    "INVALID_OPTIONS",
  );
});

test("Redis: four processes hammering one bucket never get more than limit in any window", async (server) => {
  const limit = 25;
  const windowMicros = 1_000_000;
  const kinds: ClientKind[] = ["redis", "ioredis", "redis", "ioredis"];
  const all = await hammer(kinds.map((kind) => ({
    url: server.url,
    kind,
    buckets: [{ bucket: "shared", limit, windowMicros }],
    durationMs: HAMMER_MS,
    concurrency: 4,
  })));
  const answers = answersOf(all, 0);
  const admitted = answers.filter((a) => a.count.admitted).length;
  const span = answers.at(-1)!.at - answers[0]!.at;
  console.log(
    `4 processes: ${answers.length} checks over ${(span / 1e6).toFixed(2)} s, ${admitted} admitted`,
  );
  assert.ok(answers.length > 4 * limit, "the bucket was contended");
  assertGuarantee({ limit, window: windowMicros }, answers);
  // Refused only when the bucket was full: at least one window's worth per 21 slots.
  const slot = Math.ceil(windowMicros / SLOTS);
  assert.ok(admitted >= limit * Math.floor(span / ((SLOTS + 1) * slot)), `${admitted} admitted`);
});

test("Redis: a restart mid-run refuses with 503 (closed) or lets through uncounted (open), then counts again", async (server) => {
  const client = enforcementClient(2, 60);
  const context = { tenant: "acme" };
  const decision = () => client.evaluate({ target: TARGETS.throttle, context });
  // node-redis failing fast (no offline queue), ioredis queueing until the timeout. Their checks
  // time out only when the test moves the fake clock: never while Redis is up, however slow the
  // machine.
  await using failFast = await connectClient("redis", server.url, { failFast: true });
  await using queueing = await connectClient("ioredis", server.url);
  const clock = new FakeClock();
  const errors: PolicyError[] = [];
  const onError = (error: PolicyError) => void errors.push(error);
  const closed = createEnforcer({ store: createRedisStore(failFast.commands, { clock }), onError });
  const open = createEnforcer({
    store: createRedisStore(queueing.commands, { prefix: "open:", timeoutMs: 100, clock }),
    whenStoreFails: "open",
    onError,
  });
  const status = async (enforcer: typeof open) => {
    const verdict = await enforcer.enforce(decision(), context);
    return verdict.proceed ? 200 : verdict.status;
  };
  const statuses = async () => [await status(closed), await status(open)];
  /** A check while Redis is away: failed at once (fail fast) or when its timeout comes. */
  const away = async (enforcer: typeof open) => {
    const armed = clock.nextTimer();
    const answer = status(enforcer);
    await armed;
    clock.tick(DEFAULT_REDIS_TIMEOUT_MS);
    return await answer;
  };

  assert.deepEqual(await statuses(), [200, 200]);
  assert.deepEqual(await statuses(), [200, 200]);
  assert.deepEqual(await statuses(), [429, 429], "limit 2 reached in both stores");
  assert.equal(errors.length, 0);

  const back = Promise.all([failFast.nextReady(), queueing.nextReady()]);
  await server.stop();
  for (let round = 0; round < 2; round++) {
    assert.deepEqual(
      [await away(closed), await away(open)],
      [503, 200],
      "closed refuses, open lets through",
    );
  }
  assert.equal(errors.length, 4);
  assert.ok(errors.every((e) => e.code === "THROTTLE_STORE_UNAVAILABLE"), errors.join("\n"));

  await server.start();
  await back;
  // Nothing was persisted: the restarted Redis starts from empty buckets. The fail-fast client
  // queued nothing: its first check is the first of the limit.
  assert.deepEqual([await status(closed), await status(closed), await status(closed)], [
    200,
    200,
    429,
  ]);
  // ioredis sent the checks it queued during the outage once it was back, which may count:
  // still never more than the limit, and counting again.
  const more = [await status(open), await status(open), await status(open)];
  assert.equal(more.at(-1), 429, `counting again: ${more}`);
  assert.equal(errors.length, 4, "no check failed once Redis was back");
});
