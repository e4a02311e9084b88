// The Redis store's script against Debian's redis-server (docs/enforcement.md
// "The guarantee", "Stores"): with limits that change between requests it
// answers exactly as countRequest does and keeps the guarantee, also when the
// server clock steps back, its hash after every check holding exactly the
// reference's state in layout 2; a check reads one summary field, the fields
// of the slots that left and of the next one when one leaves the window, and
// every slot only when a lowered limit needs them; keys of
// layout 2 live under `<prefix>v2:` and a fleet mixing layouts never misreads
// the other's buckets. `deno task test:long` runs 7,500 timelines (about 120,000 checks).
import assert from "node:assert/strict";
import { countRequest, type WindowState } from "../../src/enforce/sliding_window.ts";
import { checkAndCount, LAYOUT_VERSION } from "../../src/enforce/redis/_check_and_count.ts";
import { createRedisStore, type RedisCommands } from "../../src/enforce/redis/mod.ts";
import { LONG } from "../_long.ts";
import { LAYOUT_1_SCRIPT } from "./layout_1_script.ts";
import { connectClient, STORE_TIMEOUT_MS } from "./redis_clients.ts";
import { redisTest } from "./_redis_test.ts";
import {
  type Answer,
  assertGuarantee,
  fc,
  play,
  SEED,
  varyingTimeline,
} from "./_window_scenarios.ts";

/**
 * Reads a bucket's hash as stored, decoding the summary's bytes here (five
 * little-endian doubles), not with the script's own `struct`: the summary
 * field, then the slot fields, ascending. Null when the key is absent.
 */
const READ_HASH = `
if redis.call('EXISTS', KEYS[1]) == 0 then return nil end
local s = redis.call('HGET', KEYS[1], 's') or ''
local hex = {}
for i = 1, #s do hex[i] = string.format('%02x', string.byte(s, i)) end
local flat = redis.call('HGETALL', KEYS[1])
local fields = {}
for i = 1, #flat, 2 do
  if flat[i] ~= 's' then fields[#fields + 1] = flat[i] .. '=' .. flat[i + 1] end
end
return { table.concat(hex), fields }
`;

interface StoredBucket {
  summary: { total: number; first: number; firstCount: number; last: number; lastCount: number };
  /** Slot fields, `slot=count`, ascending by slot. */
  fields: string[];
}

async function storedBucket(redis: RedisCommands, key: string): Promise<StoredBucket | null> {
  const reply = await redis.send(["EVAL", READ_HASH, "1", key]);
  if (reply === null) return null;
  const [hex, fields] = reply as [string, string[]];
  assert.equal(hex.length, 80, "a summary of five doubles");
  const bytes = new Uint8Array(40).map((_, i) => parseInt(hex.slice(2 * i, 2 * i + 2), 16));
  const view = new DataView(bytes.buffer);
  const [total, first, firstCount, last, lastCount] = [0, 1, 2, 3, 4].map((i) =>
    view.getFloat64(8 * i, true)
  ) as [number, number, number, number, number];
  return {
    summary: { total, first, firstCount, last, lastCount },
    fields: fields.sort((a, b) => Number(a.split("=")[0]) - Number(b.split("=")[0])),
  };
}

/**
 * What layout 2 stores for countRequest's `state`: nothing when no slot is
 * live; else the summary (the total, the oldest and the newest slot with
 * their counts) and a field for every slot but the newest.
 */
function expectedBucket({ slots, counts }: WindowState): StoredBucket | null {
  const n = slots.length;
  if (n === 0) return null;
  return {
    summary: {
      total: counts.reduce((a, b) => a + b, 0),
      first: slots[0]!,
      firstCount: counts[0]!,
      last: slots[n - 1]!,
      lastCount: counts[n - 1]!,
    },
    fields: slots.slice(0, -1).map((slot, i) => `${slot}=${counts[i]}`),
  };
}

redisTest(
  "Redis: with limits changing between requests, the script answers as countRequest does",
  async (server) => {
    await using client = await connectClient("ioredis", server.url);
    let run = 0;
    let checks = 0;
    await fc.assert(
      fc.asyncProperty(varyingTimeline, async (t) => {
        const key = `varying:${run++}`;
        const state: WindowState = { slots: [], counts: [] };
        const answers: Answer[] = await play(t, async (now, limit) => {
          const fromRedis = await checkAndCount(client.commands, key, limit, t.window, now);
          assert.deepEqual(fromRedis, countRequest(state, now, limit, t.window), `at ${now}`);
          // The hash after each check is layout 2 of the reference's state, exactly.
          assert.deepEqual(await storedBucket(client.commands, key), expectedBucket(state));
          checks++;
          return fromRedis;
        });
        assertGuarantee(t, answers);
      }),
      { seed: SEED, numRuns: LONG ? 7_500 : 150 },
    );
    console.log(`${run} timelines, ${checks} checks`);
  },
);

redisTest(
  "Redis: with a server clock that steps back, the script answers as countRequest does",
  async (server) => {
    await using client = await connectClient("redis", server.url);
    // The same timelines with some steps moved back by up to two slots: nothing uncounts, a
    // request is counted in the newest slot already used.
    const stepping = varyingTimeline.chain((t) => {
      const slot = Math.ceil(t.window / 20);
      return fc.array(fc.integer({ min: -2 * slot, max: 0 }), {
        minLength: t.steps.length,
        maxLength: t.steps.length,
      }).map((back) => ({
        ...t,
        // Late enough that no step goes below 0 (each goes back at most two slots): a server clock
        // never reads a negative time, and the store refuses a reply that says it did.
        start: t.start + 4 * t.window + 2 * slot * t.steps.length,
        steps: t.steps.map((step, i) => ({ ...step, advance: step.advance + back[i]! })),
      }));
    });
    let run = 0;
    await fc.assert(
      fc.asyncProperty(stepping, async (t) => {
        const key = `stepping:${run++}`;
        const state: WindowState = { slots: [], counts: [] };
        await play(t, async (now, limit) => {
          const fromRedis = await checkAndCount(client.commands, key, limit, t.window, now);
          assert.deepEqual(fromRedis, countRequest(state, now, limit, t.window), `at ${now}`);
          assert.deepEqual(await storedBucket(client.commands, key), expectedBucket(state));
          return fromRedis;
        });
      }),
      { seed: SEED, numRuns: LONG ? 1_000 : 100 },
    );
  },
);

/** Calls of each command since the last `CONFIG RESETSTAT`, by the server's own accounting. */
async function commandCalls(redis: RedisCommands): Promise<Record<string, number>> {
  const stats = String(await redis.send(["INFO", "commandstats"]));
  const calls: Record<string, number> = {};
  for (const [, name, count] of stats.matchAll(/cmdstat_([a-z|]+):calls=(\d+)/g)) {
    calls[name!] = Number(count);
  }
  return calls;
}

redisTest(
  "Redis: a check reads one summary field; the slots that left and the next when one leaves; every slot only when a lowered limit needs them",
  async (server) => {
    await using client = await connectClient("redis", server.url);
    const redis = client.commands;
    const window = 20_000_000; // slots of 1 s
    const t0 = 1_795_454_303_000_000;
    const check = (now: number, limit: number) => checkAndCount(redis, "b", limit, window, now);
    const calls = async () => {
      const { hget = 0, hgetall = 0, hmget = 0, hdel = 0, hset = 0 } = await commandCalls(redis);
      await redis.send(["CONFIG", "RESETSTAT"]);
      return { hget, hgetall, hmget, hdel, hset };
    };
    const only = (counts: Partial<Awaited<ReturnType<typeof calls>>>) => ({
      hget: 0,
      hgetall: 0,
      hmget: 0,
      hdel: 0,
      hset: 0,
      ...counts,
    });
    await redis.send(["CONFIG", "RESETSTAT"]);
    for (let i = 0; i < 50; i++) assert.ok((await check(t0 + i, 1_000)).admitted);
    assert.deepEqual(await calls(), only({ hget: 50, hset: 50 }), "admitted in one slot");
    // Refused under a lowered limit, the oldest slot alone holds enough to free: no slot read.
    for (let i = 0; i < 10; i++) assert.equal((await check(t0 + 100 + i, 10)).admitted, false);
    assert.deepEqual(await calls(), only({ hget: 10 }), "refused in one slot");
    // One admission in each of the next five slots: none leaves the window.
    for (let s = 1; s <= 5; s++) assert.ok((await check(t0 + s * 1_000_000, 1_000)).admitted);
    assert.deepEqual(await calls(), only({ hget: 5, hset: 5 }), "new slots");
    // 55 counted. Under a limit of 52, 4 must leave for the next admission: the oldest slot
    // holds 50, so the summary says when. Under a limit of 1, all 55 must: the slots are read.
    assert.equal((await check(t0 + 5_500_000, 52)).admitted, false);
    assert.deepEqual(await calls(), only({ hget: 1 }), "the oldest slot frees it");
    const refused = await check(t0 + 5_500_000, 1);
    assert.equal(refused.admitted, false);
    assert.equal(refused.retryMicros, (5 + 20 + 1) * 1_000_000 - 5_500_000, "when slot 5 leaves");
    assert.deepEqual(await calls(), only({ hget: 1, hgetall: 1 }), "a lowered limit");
    // The first slot leaves the window (at slot 21): its field and the next slot's are read (one
    // HMGET), its field deleted; then the summary alone again.
    assert.ok((await check(t0 + 21_000_000, 1_000)).admitted);
    assert.ok((await check(t0 + 21_000_001, 1_000)).admitted);
    assert.deepEqual(await calls(), only({ hget: 2, hmget: 1, hdel: 1, hset: 2 }), "a slot left");
    // Slots 1 to 5 have fields; the newest (21) is counted in the summary.
    assert.equal(await redis.send(["HLEN", "b"]), 5 + 1, "five slot fields and the summary");
    assert.equal(
      (await check(t0 + 21_500_000, 1_000)).resetMicros,
      (1 + 21) * 1_000_000 - 21_500_000,
    );
    await calls();
    // At slot 27 slots 1 to 6 have left; slot 7, the next, has no field, so the slots up to the
    // newest are read (a second HMGET): none has a field, the newest becomes the oldest.
    const later = await check(t0 + 27_000_000, 1_000);
    assert.ok(later.admitted);
    assert.equal(later.resetMicros, (21 + 21) * 1_000_000 - 27_000_000, "slot 21 is the oldest");
    assert.deepEqual(await calls(), only({ hget: 1, hmget: 2, hdel: 1, hset: 1 }), "a gap");
    assert.equal(await redis.send(["HLEN", "b"]), 1 + 1, "slot 21's field and the summary");
  },
);

redisTest(
  `Redis: keys of layout ${LAYOUT_VERSION} live under <prefix>v${LAYOUT_VERSION}:, and mixed fleets never misread each other`,
  async (server) => {
    await using client = await connectClient("redis", server.url);
    const redis = client.commands;
    const store = createRedisStore(redis, { timeoutMs: STORE_TIMEOUT_MS });
    for (let i = 0; i < 3; i++) assert.ok((await store.hit("b", 3, 60e6)).admitted);
    assert.equal((await store.hit("b", 3, 60e6)).admitted, false);
    assert.equal(await redis.send(["TYPE", "policy:throttle:v2:b"]), "hash");
    assert.equal(
      await redis.send(["EXISTS", "policy:throttle:b"]),
      0,
      "nothing at the key of layout 1",
    );

    // An instance of a release of layout 1 on the same Redis counts in its own keys: each layout
    // keeps its own guarantee (so up to twice the limit while both run: docs/enforcement.md).
    const layout1 = (key: string) =>
      redis.send(["EVAL", LAYOUT_1_SCRIPT, "1", key, "3", "60000000", "20"]);
    const old = [];
    for (let i = 0; i < 4; i++) old.push(((await layout1("policy:throttle:b")) as number[])[0]);
    assert.deepEqual(old, [1, 1, 1, 0]);
    assert.equal((await store.hit("b", 3, 60e6)).admitted, false, "layout 2 unchanged");

    // A hash of one layout where the other looks (a prefix set to the other's namespace): an
    // error, never a count read wrong. Layout 1 on a layout-2 hash:
    await assert.rejects(layout1("policy:throttle:v2:b"), /compare|number|nil/i);
    // Layout 2 on a layout-1 hash:
    await assert.rejects(
      checkAndCount(redis, "policy:throttle:b", 3, 60e6),
      /not a throttle bucket of layout 2/,
    );
    // Through the store (a layout-1 instance whose prefix was set to "policy:throttle:v2:"
    // wrote this): THROTTLE_STORE_UNAVAILABLE, which the enforcer answers by whenStoreFails.
    await layout1("policy:throttle:v2:c");
    await assert.rejects(store.hit("c", 3, 60e6), { code: "THROTTLE_STORE_UNAVAILABLE" });
  },
);
