/**
 * A hostile Redis (tests/hostile/_fake_redis.ts: a RESP server on
 * 127.0.0.1) answering the throttle check with replies that are not the
 * script's — strings, NaN, infinities, fractions, another shape, counts out
 * of range — through both clients the store supports. Each is a store
 * failure (`THROTTLE_STORE_UNAVAILABLE`): the enforcer applies
 * `whenStoreFails` and calls `onError`, never admits with `r=NaN` nor
 * refuses with "allows no requests", and the message quotes at most a
 * short prefix of what Redis sent.
 */
import assert from "node:assert/strict";
import { createEnforcer, type Verdict } from "../../src/enforce/mod.ts";
import { createRedisStore } from "../../src/enforce/redis/mod.ts";
import type { PolicyError } from "../../src/engine/mod.ts";
import { assertRejectsCode } from "../_assert_policy_error.ts";
import { enforcementClient, TARGETS } from "../enforce/fixtures.ts";
import { type ClientKind, connectClient, STORE_TIMEOUT_MS } from "../enforce/redis_clients.ts";
import { type Resp, startFakeRedis } from "./_fake_redis.ts";

const NOW = 1_767_225_600_000_000;
const LONG = "x".repeat(100_000);

/** Replies to a check under a limit of 3 and a window of 60 s, none of them the script's. */
const HOSTILE: Record<string, Resp> = {
  "a string and nan": ["abc", "nan", 0, 0, NOW],
  "admitted with nan and inf": [1, "nan", "inf", 0, NOW],
  "a long string": [1, 2, LONG, 0, NOW],
  "four elements": [1, 2, 60_000_000, 0],
  "six elements": [1, 2, 60_000_000, 0, NOW, 7],
  "an integer": 1,
  "a status": { raw: "+OK\r\n" },
  "nil": null,
  "nested": [[1], 2, 60_000_000, 0, NOW],
  "integers beyond 2^53": [1, 2, { raw: ":99999999999999999999\r\n" }, 0, NOW],
  "admitted 2": [2, 2, 60_000_000, 0, NOW],
  "negative remaining": [1, -5, 60_000_000, 0, NOW],
  "remaining over the limit": [1, 1_000_000, 60_000_000, 0, NOW],
  "refused with quota left": [0, 2, 60_000_000, 5_000_000, NOW],
  "refused for ever under a limit of 3": [0, 0, 60_000_000, -1, NOW],
  "admitted with a retry": [1, 2, 60_000_000, 9, NOW],
  "admitted with nothing counted": [1, 2, -1, 0, NOW],
  "a negative time": [1, 2, 60_000_000, 0, -1],
};

/** RESP3 only: doubles (NaN, infinities, fractions), big numbers, maps. */
const HOSTILE_RESP3: Record<string, Resp> = {
  "doubles nan and inf": [1, { raw: ",nan\r\n" }, { raw: ",inf\r\n" }, 0, NOW],
  "a double -inf": [0, 0, 60_000_000, { raw: ",-inf\r\n" }, NOW],
  "a fraction": [1, { raw: ",1.5\r\n" }, 60_000_000, 0, NOW],
  "a big number": [1, 2, { raw: "(123456789012345678901234567890\r\n" }, 0, NOW],
  "a map": { map: [["admitted", 1], ["remaining", 2]] },
};

/** node-redis and ioredis as they connect to Redis 7 (RESP3), and ioredis to Redis 6 (RESP2). */
const SETUPS: { kind: ClientKind; protocols: 2 | 3 }[] = [
  { kind: "redis", protocols: 3 },
  { kind: "ioredis", protocols: 3 },
  { kind: "ioredis", protocols: 2 },
];

for (const { kind, protocols } of SETUPS) {
  const hostile = protocols === 3 ? { ...HOSTILE, ...HOSTILE_RESP3 } : HOSTILE;
  const setup = `${kind}, RESP${protocols}`;
  Deno.test(`hostile Redis (${setup}): a reply that is not the script's is THROTTLE_STORE_UNAVAILABLE`, async () => {
    await using fake = startFakeRedis({ protocols });
    await using client = await connectClient(kind, fake.url, { failFast: true });
    const store = createRedisStore(client.commands, { timeoutMs: STORE_TIMEOUT_MS });
    // The fake answers like Redis when the reply is right: the failures below are the replies'.
    fake.scriptReply = [1, 2, 60_000_000, 0, NOW];
    assert.deepEqual(await store.hit("b", 3, 60e6), {
      admitted: true,
      remaining: 2,
      resetMicros: 60_000_000,
      retryMicros: 0,
      nowMicros: NOW,
    });
    fake.scriptReply = [0, 0, 60_000_000, 5_000_000, NOW];
    assert.equal((await store.hit("b", 3, 60e6)).admitted, false);
    for (const [name, reply] of Object.entries(hostile)) {
      fake.scriptReply = reply;
      const error = await assertRejectsCode(store.hit("b", 3, 60e6), "THROTTLE_STORE_UNAVAILABLE");
      assert.ok(error.message.length < 400, `${name}: a bounded message (${error.message.length})`);
      assert.doesNotMatch(error.message, /x{61}/, `${name}: quotes at most a short prefix`);
    }
    assert.ok(fake.received.filter((c) => c === "EVALSHA").length >= Object.keys(hostile).length);
  });

  Deno.test(`hostile Redis (${setup}): the enforcer applies whenStoreFails and calls onError, never NaN`, async () => {
    await using fake = startFakeRedis({ protocols });
    await using client = await connectClient(kind, fake.url, { failFast: true });
    const store = createRedisStore(client.commands, { timeoutMs: STORE_TIMEOUT_MS });
    const { evaluate } = enforcementClient(3, 60);
    const context = { tenant: "acme" };
    const decision = evaluate({ target: TARGETS.throttle, context });
    assert.equal(decision.decision, "throttle");
    for (const [name, reply] of Object.entries(hostile)) {
      fake.scriptReply = reply;
      const errors: PolicyError[] = [];
      const onError = (error: PolicyError) => void errors.push(error);
      const closed: Verdict = await createEnforcer({ store, onError }).enforce(decision, context);
      assert.equal(closed.proceed, false, name);
      assert.equal(!closed.proceed && closed.status, 503, `${name}: refused as a store failure`);
      const open = await createEnforcer({ store, onError, whenStoreFails: "open" })
        .enforce(decision, context);
      assert.equal(open.proceed, true, name);
      assert.deepEqual(open.headers, {}, `${name}: no ratelimit field made of what Redis sent`);
      assert.deepEqual(errors.map((e) => e.code), [
        "THROTTLE_STORE_UNAVAILABLE",
        "THROTTLE_STORE_UNAVAILABLE",
      ], name);
      assert.doesNotMatch(JSON.stringify([closed, open]), /NaN|Infinity|allows no requests/, name);
    }
  });
}
