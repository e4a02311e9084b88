// Signed freshness in both clients (docs/operations.md "Signed freshness"),
// with a fake clock: a statement that expires while in force makes evaluate
// fail closed with BUNDLE_EXPIRED until a fresh statement or a newer bundle
// arrives; a renewed statement is taken without compiling the policies
// again; the rollback check compares the signed version; the options are
// checked; a stepped wall clock neither extends nor delays expiry.
import { withTempDir } from "../temp_dir.ts";
import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import {
  createLocalClient,
  createRemoteClient,
  isPolicyError,
  loadBundle,
  type RemoteClientOptions,
  type RuntimeBundleV1,
  signBundle,
} from "../../mod.ts";
import { BundleSlot, EXPIRY_RECHECK_MS } from "../../src/clients/_bundle_slot.ts";
import { assertRejectsCode } from "../_assert_policy_error.ts";

import { FakeClock } from "../_fake_clock.ts";
import {
  bundleOf,
  CP_KEY as KEY,
  CP_VERIFY as VERIFY,
  Recorder,
  remoteOptions,
  TARGET,
  test,
  withStatement,
} from "./_remote_fixtures.ts";
import { answer, ok, StubFetch } from "./_stub_fetch.ts";

const HOUR = 3_600_000;

/** `bundle` signed, with a statement issued at `issuedAt` (wall ms) lasting `lifetime`. */
async function freshText(
  bundle: RuntimeBundleV1,
  issuedAt: number,
  lifetime: number,
): Promise<string> {
  return JSON.stringify(await withStatement(bundle, issuedAt, lifetime));
}

function decision(client: { evaluate(r: { target: typeof TARGET }): { decision: string } }) {
  return client.evaluate({ target: TARGET }).decision;
}

function assertExpired(client: { evaluate(r: { target: typeof TARGET }): unknown }) {
  assert.throws(() => client.evaluate({ target: TARGET }), (error: unknown) => {
    assert.ok(isPolicyError(error, "BUNDLE_EXPIRED"), String(error));
    assert.match(
      error.message,
      /bundle in force \(bundleVersion \d+\) has a freshness statement that expired at/,
    );
    return true;
  });
}

async function remote(
  clock: FakeClock,
  stub: StubFetch,
  extra: Partial<RemoteClientOptions> = {},
) {
  const recorder = new Recorder();
  const client = await createRemoteClient(remoteOptions("https://cp.test", {
    clock,
    fetch: stub.fetch,
    random: () => 0.5,
    poll: { intervalMs: 100 * HOUR },
    maxBackoffMs: 100 * HOUR,
    verify: VERIFY,
    ...recorder.callbacks,
    ...extra,
  }));
  return { client, recorder };
}

test("local client: a statement that expires while in force makes evaluate throw BUNDLE_EXPIRED at expiresAt + clockSkewMs", async () => {
  await withTempDir(async (dir) => {
    const clock = new FakeClock();
    const bundlePath = `${dir}/bundle.json`;
    await writeFile(bundlePath, await freshText(bundleOf(1), clock.wallNow(), HOUR));
    await using client = await createLocalClient({
      bundlePath,
      verify: VERIFY,
      clock,
      clockSkewMs: 30_000,
    });
    assert.deepEqual(client.status().freshness, {
      bundleVersion: 1,
      issuedAt: "2026-11-21T09:00:00Z",
      expiresAt: "2026-11-21T10:00:00Z",
      keyId: "cp-1",
      verified: true,
    });
    // One timer watches the expiry (the client does not watch its file).
    assert.equal(clock.pending, 1);
    clock.tick(HOUR + 29_999);
    assert.equal(decision(client), "allow");
    assert.equal(client.status().expired, false);
    clock.tick(1);
    assert.equal(client.status().expired, true);
    assertExpired(client);
    // The bundle is still reported as the one in force; no timer is left.
    assert.equal(client.status().bundleVersion, 1);
    assert.equal(clock.pending, 0);
  });
});

test("local client: a renewed statement written to the watched file restores evaluate, without compiling the policies again", async () => {
  await withTempDir(async (dir) => {
    const clock = new FakeClock({ wallNow: Date.now() });
    const bundlePath = `${dir}/bundle.json`;
    const issued = Math.floor(clock.wallNow() / 1000) * 1000;
    await writeFile(bundlePath, await freshText(bundleOf(1), issued, 60_000));
    const errors: string[] = [];
    await using client = await createLocalClient({
      bundlePath,
      verify: VERIFY,
      clock,
      clockSkewMs: 0,
      watch: { intervalMs: 10 },
      onError: (error) => void errors.push(error.code),
    });
    clock.tick(60_000);
    assertExpired(client);
    // The check the tick started ends by scheduling the next: then the watch timer alone is left.
    while (clock.pending === 0) await clock.nextTimer();
    assert.equal(clock.pending, 1, "the watch timer alone");
    // The re-issue job: same bundle, a new statement.
    await writeFile(bundlePath, await freshText(bundleOf(1), issued + 60_000, HOUR));
    for (let i = 0; i < 50 && client.status().expired; i++) {
      const next = clock.nextTimer();
      clock.tick(10);
      await next;
      // The expiry timer is re-armed during the check: wait for the watch timer too.
      while (clock.pending < (client.status().expired ? 1 : 2)) await clock.nextTimer();
    }
    assert.deepEqual(errors, []);
    assert.equal(client.status().expired, false);
    assert.equal(decision(client), "allow");
    assert.equal(
      client.status().freshness?.issuedAt,
      new Date(issued + 60_000).toISOString().replace(".000Z", "Z"),
    );
  });
});

test("the bundle slot keeps the evaluator of the bundle in force for a renewed statement, and compiles for new policies", async () => {
  const clock = new FakeClock();
  const now = clock.wallNow();
  const options = { verify: VERIFY, clock };
  const first = await loadBundle(await freshText(bundleOf(1), now, HOUR), options);
  const slot = new BundleSlot(first, {}, { now: () => now, random: Math.random }, clock);
  const evaluate = slot.current.evaluate;
  const renewed = await loadBundle(await freshText(bundleOf(1), now + 1_000, 2 * HOUR), {
    ...options,
    inForce: slot.current.loaded,
  });
  assert.equal(renewed.compiled, first.compiled, "the pipeline reused the compiled form");
  slot.replace(renewed);
  assert.equal(slot.current.evaluate, evaluate, "no new evaluator");
  assert.equal(slot.current.status.freshness?.expiresAt, "2026-11-21T11:00:01Z");
  const next = await loadBundle(await freshText(bundleOf(2), now, HOUR), {
    ...options,
    inForce: slot.current.loaded,
  });
  slot.replace(next);
  assert.notEqual(slot.current.evaluate, evaluate);
  slot.close();
  assert.equal(clock.pending, 0);
});

test("a wall clock stepped forward past expiresAt is noticed within a minute; one stepped back does not extend the statement", async () => {
  const clock = new FakeClock();
  const options = { verify: VERIFY, clock, clockSkewMs: 0 };
  const text = await freshText(bundleOf(1), clock.wallNow(), 10 * HOUR);
  {
    const slot = new BundleSlot(await loadBundle(text, options), options, {
      now: () => 0,
      random: Math.random,
    }, clock);
    clock.stepWall(11 * HOUR);
    clock.tick(EXPIRY_RECHECK_MS - 1);
    assert.equal(slot.expired, false);
    clock.tick(1);
    assert.equal(slot.expired, true);
    slot.close();
  }
  {
    const start = new FakeClock();
    const opts = { ...options, clock: start };
    const slot = new BundleSlot(
      await loadBundle(await freshText(bundleOf(1), start.wallNow(), 10 * HOUR), opts),
      opts,
      { now: () => 0, random: Math.random },
      start,
    );
    start.stepWall(-5 * HOUR);
    start.tick(10 * HOUR - 1);
    assert.equal(slot.expired, false);
    // Ten hours have passed since it came into force, whatever the wall clock says.
    start.tick(1);
    assert.equal(slot.expired, true);
    slot.close();
  }
});

test("remote client: a bundle served unchanged past expiresAt fails closed; a renewed statement (new ETag) restores it without a recompile", async () => {
  const clock = new FakeClock();
  const now = clock.wallNow();
  const v1 = await freshText(bundleOf(1), now, HOUR);
  const stub = new StubFetch(ok(v1, '"a"'), answer(304));
  const { client, recorder } = await remote(clock, stub);
  try {
    assert.equal(decision(client), "allow");
    clock.tick(HOUR + 60_000);
    // The origin keeps confirming the same bundle: that confirms nothing about freshness.
    const unchanged = await client.refresh();
    assert.equal(unchanged.outcome, "unchanged");
    assert.equal(unchanged.status.expired, true);
    assert.equal(unchanged.status.stale, false);
    assertExpired(client);
    stub.script(ok(v1, '"a"'));
    assert.equal((await client.refresh()).outcome, "unchanged");
    assertExpired(client);
    // The re-issue job republished the file: a new ETag, the same bundle, a new statement.
    const renewed = await freshText(bundleOf(1), now + HOUR, HOUR);
    stub.script(ok(renewed, '"b"'));
    const result = await client.refresh();
    assert.equal(result.outcome, "updated");
    assert.equal(result.status.expired, false);
    assert.equal(result.status.freshness?.expiresAt, "2026-11-21T11:00:00Z");
    assert.equal(decision(client), "allow");
    assert.deepEqual(recorder.codes, []);
  } finally {
    await client.close();
  }
  assert.equal(clock.pending, 0, "close() leaves no timer");
});

test("remote client: an expired statement served at start or in a poll is BUNDLE_EXPIRED; requireFreshness refuses a bundle without one", async () => {
  const clock = new FakeClock();
  const now = clock.wallNow();
  const expired = await freshText(bundleOf(1), now - 2 * HOUR, HOUR);
  await assertRejectsCode(
    createRemoteClient(remoteOptions("https://cp.test", {
      clock,
      fetch: new StubFetch(ok(expired)).fetch,
      verify: VERIFY,
    })),
    "BUNDLE_EXPIRED",
  );
  const bare = JSON.stringify(await signBundle(bundleOf(1), KEY));
  await assertRejectsCode(
    createRemoteClient(remoteOptions("https://cp.test", {
      clock,
      fetch: new StubFetch(ok(bare)).fetch,
      verify: VERIFY,
      requireFreshness: true,
    })),
    "BUNDLE_FRESHNESS_MISSING",
  );
  const stub = new StubFetch(ok(await freshText(bundleOf(1), now, HOUR), '"a"'));
  const { client } = await remote(clock, stub);
  try {
    stub.script(ok(await freshText(bundleOf(2), now - 2 * HOUR, HOUR), '"b"'));
    const refused = await client.refresh();
    assert.equal(refused.error?.code, "BUNDLE_EXPIRED");
    assert.equal(refused.status.bundleVersion, 1);
  } finally {
    await client.close();
  }
});

test("the rollback check compares the signed version: an older bundle with a valid statement is BUNDLE_VERSION_ROLLBACK", async () => {
  const clock = new FakeClock();
  const now = clock.wallNow();
  const stub = new StubFetch(ok(await freshText(bundleOf(5), now, HOUR), '"a"'));
  const { client } = await remote(clock, stub, { requireFreshness: true });
  try {
    stub.script(ok(await freshText(bundleOf(4), now, HOUR), '"b"'));
    const result = await client.refresh();
    assert.equal(result.error?.code, "BUNDLE_VERSION_ROLLBACK");
    assert.equal(result.status.freshness?.bundleVersion, 5);
    assert.equal(result.status.rollbackRefused?.bundleVersion, 4);
  } finally {
    await client.close();
  }
});

test("requireFreshness and clockSkewMs go through the option checker: typos and bad values are INVALID_OPTIONS", async () => {
  await withTempDir(async (dir) => {
    const bundlePath = `${dir}/b.json`;
    await writeFile(bundlePath, await freshText(bundleOf(1), Date.now(), HOUR));
    const typo = await assertRejectsCode(
      createLocalClient({ bundlePath, verify: VERIFY, requireFreshnes: true } as never),
      "INVALID_OPTIONS",
    );
    assert.match(typo.message, /did you mean "requireFreshness"\?/);
    for (const bad of [{ clockSkewMs: -1 }, { clockSkewMs: "1m" }, { requireFreshness: 1 }]) {
      await assertRejectsCode(
        createLocalClient({ bundlePath, verify: VERIFY, ...bad } as never),
        "INVALID_OPTIONS",
      );
      await assertRejectsCode(
        createRemoteClient(remoteOptions("https://cp.test", { ...bad } as never)),
        "INVALID_OPTIONS",
      );
    }
  });
});
