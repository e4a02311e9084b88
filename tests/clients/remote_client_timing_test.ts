// Time-based behaviour of the remote client, driven by a fake clock and a
// scripted fetch (fast and deterministic), plus one real-time smoke test.
import assert from "node:assert/strict";
import { createRemoteClient, type RemoteClientOptions } from "../../mod.ts";
import {
  DEFAULT_MAX_BACKOFF_MS,
  DEFAULT_POLL_INTERVAL_MS,
  DEFAULT_REQUEST_TIMEOUT_MS,
  DEFAULT_START_TIMEOUT_MS,
  DEGRADED_AFTER_FAILURES,
} from "../../src/clients/mod.ts";
import { assertRejectsCode } from "../_assert_policy_error.ts";
import { FakeClock } from "../_fake_clock.ts";
import { FaultServer } from "./_fault_server.ts";
import { Recorder, remoteOptions, TARGET, test, V1, V2 } from "./_remote_fixtures.ts";
import { answer, ok, type Reply, StubFetch } from "./_stub_fetch.ts";

const BASE = "https://control-plane.test";
/** Just under 1: jitter at the top of its range. */
const TOP = 1 - 1e-12;

/** A client on a fake clock and a scripted fetch whose first reply is V1 (ETag "v1"). */
async function fakeClient(
  options: Partial<RemoteClientOptions> & { clock?: FakeClock } = {},
  ...after: Reply[]
) {
  const clock = options.clock ?? new FakeClock();
  const stub = new StubFetch(ok(V1, '"v1"'), ...(after.length > 0 ? after : [answer(304)]));
  const recorder = new Recorder();
  const client = await createRemoteClient(remoteOptions(BASE, {
    clock,
    fetch: stub.fetch,
    random: () => 0.5,
    poll: { intervalMs: 1_000 },
    maxBackoffMs: 10_000,
    ...recorder.callbacks,
    ...options,
  }));
  return { clock, stub, recorder, client, [Symbol.asyncDispose]: () => client.close() };
}

/** Moves the clock to the next poll and waits until that poll is reported. */
async function nextPoll(
  setup: { clock: FakeClock; recorder: Recorder },
  expectedDelay?: number,
): Promise<void> {
  const [delay] = setup.clock.pendingDelays();
  assert.ok(delay !== undefined, "no poll is scheduled");
  if (expectedDelay !== undefined) assert.equal(delay, expectedDelay);
  const count = setup.recorder.polls.length;
  setup.clock.tick(delay);
  await setup.recorder.untilPolls(count + 1);
}

test("the defaults are 30 s polls, 10 s requests, 5 min backoff cap, 15 s start-up, degraded after 3", () => {
  assert.equal(DEFAULT_POLL_INTERVAL_MS, 30_000);
  assert.equal(DEFAULT_REQUEST_TIMEOUT_MS, 10_000);
  assert.equal(DEFAULT_MAX_BACKOFF_MS, 300_000);
  assert.equal(DEFAULT_START_TIMEOUT_MS, 15_000);
  assert.equal(DEGRADED_AFTER_FAILURES, 3);
});

test("the client polls every intervalMs, jittered by ±10 %", async () => {
  for (const [random, delay] of [[0, 900], [0.5, 1_000], [TOP, 1_100]] as const) {
    await using setup = await fakeClient({ random: () => random });
    const { clock, stub, client } = setup;
    assert.deepEqual(clock.pendingDelays(), [delay]);
    assert.equal(client.status().nextPollAt, new Date(clock.wallNow() + delay).toISOString());
    clock.tick(delay - 1);
    assert.equal(stub.calls.length, 1);
    await nextPoll(setup, 1);
    assert.equal(stub.calls.length, 2);
    assert.equal(stub.calls[1]!.headers.get("if-none-match"), '"v1"');
    assert.deepEqual(clock.pendingDelays(), [delay]);
  }
});

test("an interval near the timer limit never waits longer than a timer can (setTimeout would fire at once)", async () => {
  await using setup = await fakeClient({ poll: { intervalMs: 2_147_483_647 }, random: () => TOP });
  assert.deepEqual(setup.clock.pendingDelays(), [2_147_483_647]);
});

test("the default interval is 30 s", async () => {
  await using setup = await fakeClient({ poll: {}, random: () => 0.5 });
  assert.deepEqual(setup.clock.pendingDelays(), [30_000]);
});

test("after failures the wait doubles up to maxBackoffMs", async () => {
  await using setup = await fakeClient({ random: () => TOP }, answer(500));
  await nextPoll(setup, 1_100);
  for (const delay of [1_000, 2_000, 4_000, 8_000, 10_000, 10_000, 10_000]) {
    assert.deepEqual(setup.clock.pendingDelays(), [delay]);
    await nextPoll(setup, delay);
  }
  assert.equal(setup.client.status().consecutiveFailures, 8);
});

test("backoff jitter stays within half to all of the base delay", async () => {
  await using setup = await fakeClient({ random: () => 0 }, answer(500));
  await nextPoll(setup, 900);
  for (const delay of [500, 1_000, 2_000, 4_000, 5_000, 5_000]) {
    await nextPoll(setup, delay);
  }
});

test("a success after failures returns to the regular interval", async () => {
  await using setup = await fakeClient({}, answer(500), answer(500), answer(304));
  await nextPoll(setup);
  await nextPoll(setup);
  assert.deepEqual(setup.clock.pendingDelays(), [1_500]);
  await nextPoll(setup);
  assert.deepEqual(setup.clock.pendingDelays(), [1_000]);
});

test("Retry-After in seconds sets the earliest next poll", async () => {
  await using setup = await fakeClient({}, answer(429, { "retry-after": "7" }));
  await nextPoll(setup);
  assert.deepEqual(setup.clock.pendingDelays(), [7_000]);
  assert.equal(setup.recorder.codes[0], "REMOTE_UNAVAILABLE");
});

test("Retry-After as an HTTP date sets the earliest next poll", async () => {
  const clock = new FakeClock();
  const date = new Date(clock.wallNow() + 1_000 + 8_000).toUTCString();
  await using setup = await fakeClient({ clock }, answer(503, { "retry-after": date }));
  await nextPoll(setup, 1_000);
  assert.deepEqual(setup.clock.pendingDelays(), [8_000]);
});

test("Retry-After never delays a poll beyond maxBackoffMs, and is ignored when unreadable", async () => {
  await using setup = await fakeClient(
    {},
    answer(503, { "retry-after": "86400" }),
    answer(429, { "retry-after": "soon" }),
    answer(500, { "retry-after": "9" }),
  );
  await nextPoll(setup);
  assert.deepEqual(setup.clock.pendingDelays(), [10_000]);
  await nextPoll(setup);
  assert.deepEqual(setup.clock.pendingDelays(), [1_500]);
  // Only 429 and 503 carry a Retry-After that counts.
  await nextPoll(setup);
  assert.deepEqual(setup.clock.pendingDelays(), [3_000]);
});

test("after 401/403 the client keeps polling at the backoff cap", async () => {
  await using setup = await fakeClient({ random: () => TOP }, answer(401), answer(403));
  await nextPoll(setup);
  assert.deepEqual(setup.clock.pendingDelays(), [10_000]);
  await nextPoll(setup, 10_000);
  assert.deepEqual(setup.clock.pendingDelays(), [10_000]);
  assert.deepEqual(setup.recorder.codes, ["REMOTE_UNAUTHORIZED", "REMOTE_UNAUTHORIZED"]);
  assert.equal(setup.client.status().lastErrorCode, "REMOTE_UNAUTHORIZED");
});

test("degraded after 3 consecutive failures, cleared by the first success", async () => {
  const start = new FakeClock().wallNow();
  await using setup = await fakeClient(
    {},
    answer(500),
    answer(404),
    new TypeError("connection refused"),
    answer(503),
    answer(304),
  );
  const { client, clock } = setup;
  const firstSuccess = client.status().lastSuccessAt;
  assert.equal(firstSuccess, new Date(start).toISOString());
  await nextPoll(setup);
  await nextPoll(setup);
  assert.equal(client.status().degraded, false);
  assert.equal(client.status().consecutiveFailures, 2);
  await nextPoll(setup);
  assert.equal(client.status().degraded, true);
  assert.equal(client.status().lastErrorAt, new Date(clock.wallNow()).toISOString());
  await nextPoll(setup);
  assert.equal(client.status().degraded, true);
  assert.equal(client.status().consecutiveFailures, 4);
  assert.equal(client.status().lastSuccessAt, firstSuccess);
  assert.equal(client.evaluate({ target: TARGET }).decision, "allow");
  await nextPoll(setup);
  const healed = client.status();
  assert.equal(healed.degraded, false);
  assert.equal(healed.consecutiveFailures, 0);
  assert.equal(healed.lastSuccessAt, new Date(clock.wallNow()).toISOString());
  assert.equal(healed.lastErrorCode, "REMOTE_UNAVAILABLE");
  assert.deepEqual(setup.recorder.codes, [
    "REMOTE_UNAVAILABLE",
    "REMOTE_NOT_FOUND",
    "REMOTE_UNAVAILABLE",
    "REMOTE_UNAVAILABLE",
  ]);
});

test("a request that does not finish within requestTimeoutMs fails the poll", async () => {
  await using setup = await fakeClient({ requestTimeoutMs: 5_000 }, "hang", ok(V2, '"v2"'));
  const { clock, client, recorder } = setup;
  clock.tick(1_000);
  assert.deepEqual(clock.pendingDelays(), [5_000]);
  clock.tick(4_999);
  await Promise.resolve();
  assert.equal(recorder.polls.length, 1);
  clock.tick(1);
  await recorder.untilPolls(2);
  assert.deepEqual(recorder.codes, ["REMOTE_UNAVAILABLE"]);
  assert.match(recorder.errors[0]!.message, /within 5000 ms/);
  await nextPoll(setup);
  assert.equal(client.evaluate({ target: TARGET }).decision, "deny");
});

test("refresh() polls now and moves the schedule", async () => {
  await using setup = await fakeClient({}, ok(V2, '"v2"'));
  const { clock, client, stub } = setup;
  clock.tick(400);
  const status = (await client.refresh()).status;
  assert.equal(stub.calls.length, 2);
  assert.equal(status.bundleVersion, 2);
  assert.deepEqual(clock.pendingDelays(), [1_000]);
  // A refresh while a poll runs joins it.
  setup.stub.script("hang");
  const [a, b] = [client.refresh(), client.refresh()];
  assert.equal(stub.calls.length, 3);
  clock.tick(DEFAULT_REQUEST_TIMEOUT_MS);
  assert.deepEqual(await a, await b);
});

test("creation gives up after startTimeoutMs", async () => {
  const clock = new FakeClock();
  const stub = new StubFetch("hang");
  const creating = createRemoteClient(remoteOptions(BASE, {
    clock,
    fetch: stub.fetch,
    startTimeoutMs: 3_000,
    requestTimeoutMs: 60_000,
  }));
  // Options are checked (and the key imported) first; then the timers start.
  while (clock.pending < 2) await clock.nextTimer();
  assert.equal(stub.calls.length, 1);
  assert.deepEqual(clock.pendingDelays(), [3_000, 60_000]);
  clock.tick(2_999);
  clock.tick(1);
  const error = await assertRejectsCode(creating, "REMOTE_UNAVAILABLE");
  assert.match(error.message, /startTimeoutMs \(3000 ms\)/);
  // The aborted request settles within a few turns, clearing its timer.
  for (let i = 0; i < 100 && clock.pending > 0; i++) await Promise.resolve();
  assert.deepEqual(clock.pendingDelays(), []);
});

test("close() cancels the poll timer and the request in flight", async () => {
  const setup = await fakeClient({}, "hang");
  const { clock, client, recorder } = setup;
  clock.tick(1_000);
  assert.deepEqual(clock.pendingDelays(), [DEFAULT_REQUEST_TIMEOUT_MS]);
  await client.close();
  assert.deepEqual(clock.pendingDelays(), []);
  assert.deepEqual(recorder.errors, []);
  assert.equal(client.status().nextPollAt, null);
  await client.close();
});

test("a real origin: the client polls on its own timer and picks up a new bundle", async () => {
  await using server = FaultServer.start({ kind: "bundle", body: V1, etag: '"v1"' });
  const recorder = new Recorder();
  const clock = new FakeClock();
  await using client = await createRemoteClient(
    remoteOptions(server.baseUrl, {
      poll: { intervalMs: 30 },
      random: () => 0.5,
      clock,
      ...recorder.callbacks,
    }),
  );
  /** Lets the poll timer fire until `count` polls were made (each against the real server). */
  const within = async (count: number) => {
    while (recorder.polls.length < count) {
      const polled = recorder.untilPolls(recorder.polls.length + 1);
      assert.deepEqual(clock.pendingDelays(), [30], "the next poll is scheduled");
      clock.tick(30);
      await polled;
    }
  };
  await within(3);
  assert.deepEqual(recorder.polls.slice(1, 3).map((poll) => poll.httpStatus), [304, 304]);
  server.fault = { kind: "bundle", body: V2, etag: '"v2"' };
  const count = recorder.polls.length;
  await within(count + 1);
  assert.equal(client.evaluate({ target: TARGET }).decision, "deny");
  assert.equal(client.status().degraded, false);
  await client.close();
  // Closed: no timer is left that could poll again.
  assert.deepEqual(clock.pendingDelays(), []);
});
