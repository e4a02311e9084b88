// The enforcer: every decision's verdict, the throttle's fields and body,
// buckets (missing keys, reloads, two rules, long values), store failures
// in both modes, bad input, and no context value in any answer.
import assert from "node:assert/strict";
import fc from "../_fast_check.ts";
import {
  createEnforcer,
  createMemoryStore,
  type Refusal,
  type ThrottleStore,
  type Verdict,
} from "../../src/enforce/mod.ts";
import type { Decision, PolicyError } from "../../src/engine/mod.ts";
import { assertRejectsCode, assertThrowsCode } from "../_assert_policy_error.ts";
import { testSeed } from "../_random.ts";
import { enforcementClient, readRateLimit, readRateLimitPolicy, TARGETS } from "./fixtures.ts";
import { FakeClock } from "../_fake_clock.ts";

const client = enforcementClient(3, 60);
const decide = (target: keyof typeof TARGETS, context: Record<string, unknown> = {}) =>
  client.evaluate({ target: TARGETS[target], context });

/** `decision`, which must be a throttle for `reason`, typed as one so that its fields can be replaced. */
function asThrottle<R extends Decision["reason"]>(
  decision: Decision,
  reason: R,
): Extract<Decision, { decision: "throttle"; reason: R }> {
  assert.ok(decision.decision === "throttle" && decision.reason === reason, decision.decision);
  return decision as Extract<Decision, { decision: "throttle"; reason: R }>;
}

/** A memory store on a frozen clock that records the buckets it is asked about. */
function recordingStore(now = 0): ThrottleStore & { buckets: string[] } {
  const store = createMemoryStore({ clock: new FakeClock({ now }) });
  const buckets: string[] = [];
  return {
    buckets,
    hit(bucket, limit, window) {
      buckets.push(bucket);
      return store.hit(bucket, limit, window);
    },
  };
}

function refused(verdict: Verdict): Refusal {
  assert.equal(verdict.proceed, false, "refused");
  return verdict as Refusal;
}

Deno.test("enforce: allow and custom go on with their decision and no fields", async () => {
  const enforcer = createEnforcer();
  const allowed = await enforcer.enforce(decide("allow"));
  assert.deepEqual(allowed, { proceed: true, decision: decide("allow"), headers: {} });
  const custom = await enforcer.enforce(decide("custom"));
  assert.ok(custom.proceed);
  assert.deepEqual(custom.decision.parsedValue, { color: "red" });
});

Deno.test("enforce: deny is 403 and kill_switch 503, with problem details", async () => {
  const enforcer = createEnforcer();
  const deny = refused(await enforcer.enforce(decide("deny")));
  assert.deepEqual([deny.status, deny.reason, deny.headers], [403, "deny", {
    "content-type": "application/problem+json",
  }]);
  assert.deepEqual(deny.problem, {
    type: "about:blank",
    title: "Forbidden",
    status: 403,
    detail: "The policy in force does not allow this request.",
  });
  const globalDeny = refused(
    await enforcer.enforce(
      client.evaluate({ target: { service: "x", resource: "y", action: "z" } }),
    ),
  );
  assert.equal(globalDeny.status, 403);
  const kill = refused(await enforcer.enforce(decide("kill")));
  assert.deepEqual([kill.status, kill.reason], [503, "kill_switch"]);
  assert.equal(kill.problem.title, "Service Unavailable");
  assert.equal(kill.problem.detail, "search is switched off by policy: index rebuild in progress.");
});

Deno.test("enforce: a decision this version does not know is refused (fail closed)", async () => {
  const verdict = refused(
    await createEnforcer().enforce({ decision: "maybe", reason: "rule" } as unknown as Decision),
  );
  assert.equal(verdict.status, 403);
});

Deno.test("enforce: a throttle admits its limit with RateLimit fields, then 429 with Retry-After", async () => {
  const enforcer = createEnforcer({ store: recordingStore() });
  const context = { tenant: "acme" };
  for (let i = 0; i < 3; i++) {
    const verdict = await enforcer.enforce(decide("throttle", context), context);
    assert.ok(verdict.proceed);
    assert.deepEqual(readRateLimitPolicy(verdict.headers["ratelimit-policy"] ?? null), {
      name: "billing.invoice.export/per-tenant",
      q: 3,
      w: 60,
    });
    assert.deepEqual(readRateLimit(verdict.headers["ratelimit"] ?? null), {
      name: "billing.invoice.export/per-tenant",
      r: 2 - i,
      t: 63,
    });
  }
  const over = refused(await enforcer.enforce(decide("throttle", context), context));
  assert.deepEqual([over.status, over.reason], [429, "throttle"]);
  assert.equal(over.headers["retry-after"], "63");
  assert.equal(over.headers["content-type"], "application/problem+json");
  assert.deepEqual(readRateLimit(over.headers["ratelimit"] ?? null), {
    name: "billing.invoice.export/per-tenant",
    r: 0,
    t: 63,
  });
  assert.deepEqual(over.problem, {
    type: "https://iana.org/assignments/http-problem-types#quota-exceeded",
    title: "Quota Exceeded",
    status: 429,
    detail: "Too many requests: this rule allows 3 per 60 s. Retry in 63 s.",
    "violated-policies": ["billing.invoice.export/per-tenant"],
  });
});

Deno.test("enforce: Retry-After is the time until the bucket admits again, not the window", async () => {
  const clock = new FakeClock({ now: 0 });
  const store = createMemoryStore({ clock });
  const enforcer = createEnforcer({ store });
  const context = { tenant: "acme" };
  for (const at of [0, 20_000, 40_000]) { // ms: one request at 0 s, 20 s and 40 s
    clock.tickTo(at);
    assert.ok((await enforcer.enforce(decide("throttle", context), context)).proceed);
  }
  clock.tickTo(50_000);
  const over = refused(await enforcer.enforce(decide("throttle", context), context));
  // The request of 0 s is in slot 0 (3 s long), which leaves the window at 63 s.
  assert.equal(over.headers["retry-after"], "13");
  clock.tickTo(62_999);
  assert.equal((await enforcer.enforce(decide("throttle", context), context)).proceed, false);
  clock.tickTo(63_000);
  assert.ok((await enforcer.enforce(decide("throttle", context), context)).proceed);
});

Deno.test("enforce: requests without the key share one bucket, so omitting it never escapes", async () => {
  const store = recordingStore();
  const enforcer = createEnforcer({ store });
  const missing = [{}, { tenant: null }, { tenant: { id: 1 } }, { tenant: ["a"] }, undefined];
  const answers = [];
  for (const context of missing) {
    answers.push((await enforcer.enforce(decide("throttle", context ?? {}), context)).proceed);
  }
  assert.deepEqual(answers, [true, true, true, false, false], "3 in all, not 3 each");
  assert.equal(new Set(store.buckets).size, 1);
  assert.ok((await enforcer.enforce(decide("throttle"), { tenant: "acme" })).proceed);
  assert.ok((await enforcer.enforce(decide("throttle"), { tenant: 5 })).proceed);
  assert.ok((await enforcer.enforce(decide("throttle"), { tenant: "5" })).proceed);
  assert.equal(new Set(store.buckets).size, 4, '5 and "5" are two tenants');
});

Deno.test("enforce: the key is read like a condition path: nested, ctx. prefix, own properties only", async () => {
  const store = recordingStore();
  const enforcer = createEnforcer({ store });
  const decision = asThrottle(decide("defaultThrottle", { plan: "free" }), "default");
  assert.ok((await enforcer.enforce(decision, { user: { id: "u1" } })).proceed);
  assert.equal((await enforcer.enforce(decision, { user: { id: "u1" } })).proceed, false);
  assert.ok((await enforcer.enforce(decision, { user: { id: "u2" } })).proceed);
  const inherited = Object.create({ id: "u3" });
  assert.ok((await enforcer.enforce(decision, { user: inherited })).proceed, "absent: shared");
  assert.equal((await enforcer.enforce(decision, { user: {} })).proceed, false, "shared too");
  const prefixed = { ...decision, throttle: { ...decision.throttle, key: "ctx.user.id" } };
  assert.ok((await enforcer.enforce(prefixed, { user: { id: "u1" } })).proceed);
  assert.equal((await enforcer.enforce(prefixed, { user: { id: "u1" } })).proceed, false);
  assert.ok((await enforcer.enforce(prefixed, { user: { id: "u2" } })).proceed, "read, not absent");
  // A policy default's throttle is named after its policy.
  const verdict = await enforcer.enforce(decision, { user: { id: "u9" } });
  assert.equal(readRateLimit(verdict.headers["ratelimit"] ?? null).name, "shop.report");
});

Deno.test("enforce: a reload that changes the limit keeps the counts; a new window starts a new bucket", async () => {
  const store = createMemoryStore({ clock: new FakeClock({ now: 0 }) });
  const enforcer = createEnforcer({ store });
  const context = { tenant: "acme" };
  const at = (limit: number, windowSeconds: number) =>
    enforcementClient(limit, windowSeconds).evaluate({ target: TARGETS.throttle, context });
  for (let i = 0; i < 3; i++) assert.ok((await enforcer.enforce(at(3, 60), context)).proceed);
  assert.equal((await enforcer.enforce(at(2, 60), context)).proceed, false, "lowered: refused");
  assert.ok((await enforcer.enforce(at(4, 60), context)).proceed, "raised: one more");
  assert.equal((await enforcer.enforce(at(4, 60), context)).proceed, false);
  assert.ok((await enforcer.enforce(at(4, 120), context)).proceed, "new window: new bucket");
});

Deno.test("enforce: two throttle rules count in two buckets", async () => {
  const store = recordingStore();
  const enforcer = createEnforcer({ store });
  const first = asThrottle(decide("throttle", { tenant: "acme" }), "rule");
  const second = { ...first, ruleId: "per-tenant-burst" };
  for (let i = 0; i < 3; i++) {
    assert.ok((await enforcer.enforce(first, { tenant: "acme" })).proceed);
  }
  assert.ok((await enforcer.enforce(second, { tenant: "acme" })).proceed);
  assert.equal(new Set(store.buckets).size, 2);
});

Deno.test("enforce: bucket names stay short whatever the key value; equal values share", async () => {
  const store = recordingStore();
  const enforcer = createEnforcer({ store });
  const long = "t".repeat(100_000);
  await enforcer.enforce(decide("throttle"), { tenant: long });
  await enforcer.enforce(decide("throttle"), { tenant: long });
  await enforcer.enforce(decide("throttle"), { tenant: `${long}x` });
  assert.deepEqual(store.buckets.map((b) => b.length), [71, 71, 71]);
  assert.match(store.buckets[0]!, /^sha256:[0-9a-f]{64}$/);
  assert.equal(store.buckets[0], store.buckets[1]);
  assert.notEqual(store.buckets[0], store.buckets[2]);
});

Deno.test("enforce: a failing store is reported to onError and refused with 503 by default", async () => {
  const errors: PolicyError[] = [];
  const failing: ThrottleStore = { hit: () => Promise.reject(new Error("connection refused")) };
  const closed = createEnforcer({ store: failing, onError: (e) => void errors.push(e) });
  const verdict = refused(await closed.enforce(decide("throttle"), { tenant: "acme" }));
  assert.deepEqual([verdict.status, verdict.reason], [503, "store_unavailable"]);
  assert.equal(verdict.headers["retry-after"], undefined);
  assert.equal(
    verdict.problem.detail,
    "The request rate cannot be checked right now. Retry shortly.",
  );
  assert.equal(errors.length, 1);
  assert.equal(errors[0]!.code, "THROTTLE_STORE_UNAVAILABLE");
  assert.match(errors[0]!.message, /connection refused/);
  assert.doesNotMatch(errors[0]!.message, /acme/);

  const open = createEnforcer({
    store: failing,
    whenStoreFails: "open",
    onError: (e) => {
      errors.push(e);
      throw new Error("a broken onError must not break enforcement");
    },
  });
  const through = await open.enforce(decide("throttle"), { tenant: "acme" });
  assert.deepEqual(through, { proceed: true, decision: decide("throttle"), headers: {} });
  assert.equal(errors.length, 2);
  // Other decisions never touch the store.
  assert.ok((await closed.enforce(decide("allow"))).proceed);
  assert.equal(errors.length, 2);
});

Deno.test("enforce: a decision or context that evaluate cannot have returned is an error", async () => {
  const enforcer = createEnforcer();
  await assertRejectsCode(enforcer.enforce(null as unknown as Decision), "INVALID_DECISION");
  const throttle = decide("throttle");
  for (
    const bad of [
      { decision: "throttle", reason: "rule" },
      { ...throttle, throttle: { limit: Number.NaN, windowSeconds: 1, key: "k" } },
      { ...throttle, throttle: { limit: 1, windowSeconds: 0, key: "k" } },
      { ...throttle, throttle: { limit: 1, windowSeconds: 1 } },
    ]
  ) {
    await assertRejectsCode(enforcer.enforce(bad as Decision), "INVALID_DECISION");
  }
  await assertRejectsCode(
    enforcer.enforce(throttle, "tenant" as unknown as Record<string, unknown>),
    "INVALID_REQUEST",
  );
  for (
    const options of [
      { store: {} },
      { whenStoreFails: "maybe" },
      { onError: "log" },
      { whenStoreFail: "open" }, // a typo must not leave the default (closed) silently in force
    ]
  ) {
    assertThrowsCode(() => createEnforcer(options as never), "INVALID_OPTIONS");
  }
});

Deno.test("enforce: no context value ever appears in a verdict", async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.string({ minLength: 6 }).filter((s) => /^[\w-]+$/.test(s) && !/^\d+$/.test(s)),
      fc.constantFrom(...Object.keys(TARGETS) as (keyof typeof TARGETS)[]),
      async (secret, target) => {
        const enforcer = createEnforcer({
          store: createMemoryStore({ clock: new FakeClock({ now: 0 }) }),
        });
        const context = { tenant: secret, plan: secret, user: { id: secret } };
        for (let i = 0; i < 5; i++) {
          const verdict = await enforcer.enforce(decide(target, context), context);
          const shown = JSON.stringify([
            verdict.headers,
            verdict.proceed ? null : verdict.problem,
          ]);
          assert.ok(!shown.includes(secret), shown);
        }
      },
    ),
    { seed: testSeed(0x5eed_0171), numRuns: 200 },
  );
});

Deno.test("enforce: throttle names outside printable ASCII still make valid fields", async () => {
  const decision = {
    ...asThrottle(decide("throttle"), "rule"),
    policyKey: 'fac"tures\\é',
    ruleId: "per-tenant%",
  };
  const verdict = await createEnforcer().enforce(decision, { tenant: "a" });
  assert.equal(
    readRateLimitPolicy(verdict.headers["ratelimit-policy"] ?? null).name,
    'fac"tures\\%C3%A9/per-tenant%25',
  );
});
