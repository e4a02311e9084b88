// The remote client's production features (docs/operations.md), driven by a
// fake clock and a scripted fetch per origin: staleness, refresh(), several
// origins, rollback refusal and the cache that keeps the highest bundle,
// decision records on the client's clock.
import { withTempDir } from "../temp_dir.ts";
import assert from "node:assert/strict";
import { readFile, stat, utimes, writeFile } from "node:fs/promises";
import {
  createRemoteClient,
  type DecisionRecord,
  type FetchFunction,
  isPolicyError,
  type RemoteClientOptions,
} from "../../mod.ts";
import { assertRejectsCode } from "../_assert_policy_error.ts";

import { FakeClock } from "../_fake_clock.ts";
import { Recorder, remoteOptions, signedText, TARGET, test, V1, V2 } from "./_remote_fixtures.ts";
import { answer, ok, type Reply, StubFetch } from "./_stub_fetch.ts";

const PRIMARY = "https://primary.test";
const BACKUP = "https://backup.test/policy";
const V3 = await signedText(3);

/** Routes each request to the stub of its origin. */
function origins(stubs: Record<string, StubFetch>): FetchFunction {
  return (url, init) => {
    const origin = Object.keys(stubs).find((base) => url.startsWith(base));
    if (origin === undefined) throw new Error(`no stub for ${url}`);
    return stubs[origin]!.fetch(url, init);
  };
}

async function fakeClient(
  options: Partial<RemoteClientOptions> & { clock?: FakeClock } = {},
  ...replies: Reply[]
) {
  const clock = options.clock ?? new FakeClock();
  const stub = new StubFetch(...(replies.length > 0 ? replies : [ok(V1, '"v1"'), answer(304)]));
  const recorder = new Recorder();
  const client = await createRemoteClient(remoteOptions(PRIMARY, {
    clock,
    fetch: stub.fetch,
    random: () => 0.5,
    // No timer falls due within a test: refresh() drives the polls.
    poll: { intervalMs: 3_600_000 },
    maxBackoffMs: 3_600_000,
    ...recorder.callbacks,
    ...options,
  }));
  return { clock, stub, recorder, client, [Symbol.asyncDispose]: () => client.close() };
}

test("maxStalenessMs: evaluate throws BUNDLE_STALE once the bundle was last confirmed too long ago; the first success restores it", async () => {
  await using setup = await fakeClient(
    { maxStalenessMs: 5_000 },
    ok(V1, '"v1"'),
    answer(503),
  );
  const { clock, client } = setup;
  assert.equal(client.status().stale, false);
  // Polls fail from now on; the bundle keeps being served until 5 s without confirmation.
  for (let i = 0; i < 5; i++) {
    clock.tick(1_000);
    assert.equal((await client.refresh()).outcome, "failed");
  }
  assert.equal(client.evaluate({ target: TARGET }).decision, "allow");
  assert.equal(client.status().stale, false);
  clock.tick(1);
  assert.equal(client.status().stale, true);
  assert.equal(client.status().degraded, true);
  const error = assert.throws(() => client.evaluate({ target: TARGET }), (e: unknown) => {
    assert.ok(isPolicyError(e, "BUNDLE_STALE"), String(e));
    assert.match(e.message, /maxStalenessMs \(5000 ms\)/);
    return true;
  });
  void error;
  setup.stub.script(answer(304));
  const result = await client.refresh();
  assert.equal(result.outcome, "unchanged");
  assert.equal(result.status.stale, false);
  assert.equal(client.evaluate({ target: TARGET }).decision, "allow");
});

test("without maxStalenessMs a client never goes stale", async () => {
  await using setup = await fakeClient({}, ok(V1, '"v1"'), answer(503));
  setup.clock.tick(10 * 24 * 3_600_000);
  await setup.client.refresh();
  assert.equal(setup.client.status().stale, false);
  assert.equal(setup.client.evaluate({ target: TARGET }).decision, "allow");
});

test("a client started from its cache counts staleness from the cache file's time, which each success records", async () => {
  await withTempDir(async (dir) => {
    const cachePath = `${dir}/cache.json`;
    const clock = new FakeClock();
    {
      await using setup = await fakeClient({ clock, cachePath, maxStalenessMs: 60_000 });
      clock.tick(30_000);
      await setup.client.refresh();
      // Each success records the confirmation as the file's modification time.
      assert.equal((await stat(cachePath)).mtimeMs, clock.wallNow());
    }
    // Restart 61 s after the last confirmation, while the origin is down.
    clock.tick(61_000);
    await using stale = await fakeClient({ clock, cachePath, maxStalenessMs: 60_000 }, answer(503));
    const status = stale.client.status();
    assert.equal(status.source, "cache");
    assert.equal(status.stale, true);
    assert.throws(() => stale.client.evaluate({ target: TARGET }), { code: "BUNDLE_STALE" });
    // Within the bound, a cache start serves.
    await utimes(cachePath, new Date(clock.wallNow() - 1_000), new Date(clock.wallNow() - 1_000));
    await using fresh = await fakeClient({ clock, cachePath, maxStalenessMs: 60_000 }, answer(503));
    assert.equal(fresh.client.evaluate({ target: TARGET }).decision, "allow");
  });
});

test("maxStalenessMs is measured on the monotonic clock: a wall clock stepped back or forward an hour changes nothing", async () => {
  // Stepped back an hour: the bundle still goes stale after maxStalenessMs.
  {
    await using setup = await fakeClient({ maxStalenessMs: 60_000 }, ok(V1, '"v1"'), answer(503));
    const { clock, client } = setup;
    clock.stepWall(-3_600_000);
    clock.tick(60_000);
    assert.equal((await client.refresh()).outcome, "failed");
    assert.equal(client.status().stale, false);
    clock.tick(1);
    assert.equal(client.status().stale, true);
    assert.throws(() => client.evaluate({ target: TARGET }), { code: "BUNDLE_STALE" });
  }
  // Stepped forward an hour right after a good poll: still fresh.
  {
    await using setup = await fakeClient({ maxStalenessMs: 60_000 }, ok(V1, '"v1"'), answer(304));
    const { clock, client } = setup;
    assert.equal((await client.refresh()).outcome, "unchanged");
    clock.stepWall(3_600_000);
    assert.equal(client.status().stale, false);
    assert.equal(client.evaluate({ target: TARGET }).decision, "allow");
    // The times shown are wall-clock times.
    assert.equal(
      client.status().lastSuccessAt,
      new Date(clock.wallNow() - 3_600_000).toISOString(),
    );
  }
});

test("a cache file whose modification time is in the future is not trusted: its age counts from start", async () => {
  await withTempDir(async (dir) => {
    const cachePath = `${dir}/cache.json`;
    const clock = new FakeClock();
    {
      await using _ = await fakeClient({ clock, cachePath, maxStalenessMs: 60_000 });
    }
    // Someone sets the file's time to the year 2100.
    const future = new Date(Date.UTC(2100, 0, 1));
    await utimes(cachePath, future, future);
    await using setup = await fakeClient({ clock, cachePath, maxStalenessMs: 60_000 }, answer(503));
    const { client } = setup;
    assert.equal(client.status().source, "cache");
    assert.equal(client.status().stale, false);
    assert.equal(client.evaluate({ target: TARGET }).decision, "allow");
    // The bound ends maxStalenessMs after start, as if the file had been confirmed now.
    clock.tick(60_001);
    assert.equal(client.status().stale, true);
    assert.throws(() => client.evaluate({ target: TARGET }), { code: "BUNDLE_STALE" });
  });
});

test("refresh() polls now, joins a poll in flight, and resolves with its outcome", async () => {
  await using setup = await fakeClient({}, ok(V1, '"v1"'), ok(V2, '"v2"'));
  const { client, stub } = setup;
  const [a, b] = [client.refresh(), client.refresh()];
  assert.equal(stub.calls.length, 2, "one request for both calls");
  const [first, second] = await Promise.all([a, b]);
  assert.equal(first, second);
  assert.equal(first.outcome, "updated");
  assert.equal(first.httpStatus, 200);
  assert.equal(first.servedBy, `${PRIMARY}/`);
  assert.equal(first.status.bundleVersion, 2);
  setup.stub.script(answer(503));
  const failed = await client.refresh();
  assert.equal(failed.outcome, "failed");
  assert.equal(failed.error?.code, "REMOTE_UNAVAILABLE");
  await client.close();
  const closed = await client.refresh();
  assert.equal(closed.outcome, "closed");
  assert.equal(stub.calls.length, 3);
});

test("several origins: tried in order on failure; status names the origin that served; If-None-Match goes only to the origin that gave the ETag", async () => {
  const primary = new StubFetch(answer(503));
  const backup = new StubFetch(ok(V1, '"b1"'));
  const recorder = new Recorder();
  await using setup = {
    client: await createRemoteClient(remoteOptions(PRIMARY, {
      baseUrl: [PRIMARY, new URL(BACKUP)],
      clock: new FakeClock(),
      fetch: origins({ [PRIMARY]: primary, [BACKUP]: backup }),
      random: () => 0.5,
      ...recorder.callbacks,
    })),
    [Symbol.asyncDispose]() {
      return this.client.close();
    },
  };
  const { client } = setup;
  let status = client.status();
  assert.equal(status.source, "network");
  if (status.source === "network") assert.equal(status.servedBy, `${BACKUP}`);
  assert.equal(status.degraded, false);
  assert.equal(status.consecutiveFailures, 0);
  // The primary's failure was reported, though the poll succeeded.
  assert.deepEqual(recorder.codes, ["REMOTE_UNAVAILABLE"]);
  assert.match(recorder.errors[0]!.message, /primary\.test/);
  assert.equal(primary.calls[0]!.url, `${PRIMARY}/v1/acme/storefront/prod/bundle.json`);
  assert.equal(backup.calls[0]!.url, `${BACKUP}/v1/acme/storefront/prod/bundle.json`);

  // The primary comes back with the same bytes: it confirms, and becomes the origin named.
  primary.script(ok(V1, '"p1"'));
  let result = await client.refresh();
  assert.equal(result.outcome, "unchanged");
  assert.equal(result.servedBy, `${PRIMARY}/`);
  assert.equal(primary.calls.at(-1)!.headers.get("if-none-match"), null);
  primary.script(answer(304));
  result = await client.refresh();
  assert.equal(primary.calls.at(-1)!.headers.get("if-none-match"), '"p1"');
  assert.equal(backup.calls.length, 1);

  // Every origin fails: one failed poll, the first origin's error, every error reported.
  primary.script(answer(401));
  backup.script(answer(404));
  result = await client.refresh();
  assert.equal(result.outcome, "failed");
  assert.equal(result.error?.code, "REMOTE_UNAUTHORIZED");
  assert.equal(result.status.consecutiveFailures, 1);
  assert.deepEqual(recorder.codes.slice(-2), ["REMOTE_UNAUTHORIZED", "REMOTE_NOT_FOUND"]);
  assert.equal(backup.calls.at(-1)!.headers.get("if-none-match"), '"b1"');

  // A newer bundle on the backup only: it is put in force, served by the backup.
  primary.script(answer(503));
  backup.script(ok(V2, '"b2"'));
  result = await client.refresh();
  assert.equal(result.outcome, "updated");
  assert.equal(result.servedBy, BACKUP);
  status = result.status;
  assert.equal(status.bundleVersion, 2);
});

test("several origins at start-up: every failure is in the rejection; baseUrl lists are checked", async () => {
  const error = await assertRejectsCode(
    createRemoteClient(remoteOptions(PRIMARY, {
      baseUrl: [PRIMARY, BACKUP],
      clock: new FakeClock(),
      fetch: origins({
        [PRIMARY]: new StubFetch(answer(503)),
        [BACKUP]: new StubFetch(answer(404)),
      }),
    })),
    "REMOTE_UNAVAILABLE",
  );
  assert.match(
    error.message,
    /the other origins failed too: https:\/\/backup\.test\/policy\/v1\/.* \(REMOTE_NOT_FOUND\)/,
  );
  for (const baseUrl of [[], [PRIMARY, "ftp://x.test"], Array(9).fill(PRIMARY)]) {
    await assertRejectsCode(
      createRemoteClient(remoteOptions(PRIMARY, { baseUrl })),
      "INVALID_OPTIONS",
    );
  }
});

test("a refused older bundle is a failed poll: onError, degraded after 3, not a confirmation", async () => {
  await using setup = await fakeClient(
    { maxStalenessMs: 10_000 },
    ok(V2, '"v2"'),
    ok(V1, '"v1"'),
  );
  const { client, recorder } = setup;
  for (let i = 1; i <= 3; i++) {
    const result = await client.refresh();
    assert.equal(result.outcome, "failed");
    assert.equal(result.status.consecutiveFailures, i);
  }
  const status = client.status();
  assert.equal(status.degraded, true);
  assert.equal(status.bundleVersion, 2);
  assert.equal(status.lastErrorCode, "BUNDLE_VERSION_ROLLBACK");
  assert.equal(status.rollbackRefused?.bundleVersion, 1);
  assert.equal(status.rollbackRefused?.at, new Date(setup.clock.wallNow()).toISOString());
  assert.deepEqual(recorder.codes, Array(3).fill("BUNDLE_VERSION_ROLLBACK"));
  // The refused bundle's ETag is never sent back.
  assert.equal(setup.stub.calls.at(-1)!.headers.get("if-none-match"), '"v2"');
  // Refusals do not confirm the bundle in force: the client goes stale.
  setup.clock.tick(10_001);
  assert.equal(client.status().stale, true);
  // A newer bundle clears the refusal.
  setup.stub.script(ok(V3, '"v3"'));
  const result = await client.refresh();
  assert.equal(result.status.bundleVersion, 3);
  assert.equal(result.status.rollbackRefused, null);
});

test("the cache keeps the highest: a restart that gets an older bundle from the origin starts from the newer cache", async () => {
  await withTempDir(async (dir) => {
    const cachePath = `${dir}/cache.json`;
    await writeFile(cachePath, V2);
    {
      await using setup = await fakeClient({ cachePath }, ok(V1, '"v1"'), ok(V3, '"v3"'));
      const status = setup.client.status();
      assert.equal(status.source, "cache");
      assert.equal(status.bundleVersion, 2);
      assert.equal(status.degraded, true);
      assert.equal(status.lastErrorCode, "BUNDLE_VERSION_ROLLBACK");
      assert.equal(status.rollbackRefused?.bundleVersion, 1);
      assert.deepEqual(setup.recorder.codes, ["BUNDLE_VERSION_ROLLBACK"]);
      assert.equal(await readFile(cachePath, "utf8"), V2);
      // The origin catches up: the newer bundle is in force and cached.
      const result = await setup.client.refresh();
      assert.equal(result.status.source, "network");
      assert.equal(result.status.bundleVersion, 3);
      assert.equal(await readFile(cachePath, "utf8"), V3);
    }
    // allowRollback: the origin's older bundle is in force, and cached.
    await using deliberate = await fakeClient({ cachePath, allowRollback: true }, ok(V1, '"v1"'));
    assert.equal(deliberate.client.status().bundleVersion, 1);
    assert.equal(deliberate.client.status().source, "network");
    assert.equal(await readFile(cachePath, "utf8"), V1);
  });
});

test("onDecision on the remote client: timestamps from its clock, sampling from its random source", async () => {
  const records: DecisionRecord[] = [];
  let draws = 0;
  const values = [0.1, 0.9, 0.2, 0.7];
  await using setup = await fakeClient({
    onDecision: (record) => records.push(record),
    decisionLog: { sampleRate: 0.5 },
    random: () => values[draws++ % values.length]!,
  });
  draws = 0;
  for (let i = 0; i < 4; i++) setup.client.evaluate({ target: TARGET, context: { i } });
  assert.equal(draws, 4);
  // 0.1 and 0.2 are under the rate: the first and third decisions are logged.
  assert.deepEqual(records.map((record) => record.request.context?.i), [0, 2]);
  assert.equal(records[0]!.timestamp, new Date(setup.clock.wallNow()).toISOString());
  assert.equal(records[0]!.sampleRate, 0.5);
  assert.equal(records[0]!.bundle.bundleVersion, 1);
});
