// subscribe() on both clients (docs/local-client.md "Events", docs/remote.md
// "Events"): a watched reload tells which targets may decide differently; the
// remote client tells when it becomes degraded or stale (on its own clock, no
// poll needed) and when it recovers; a throwing listener changes nothing; no
// listener means no event and no timer.
import { withTempDir } from "../temp_dir.ts";
import assert from "node:assert/strict";
import {
  type ClientEvent,
  createLocalClient,
  createRemoteClient,
  type RemoteClientOptions,
  type RuntimeBundleV1,
} from "../../mod.ts";

import { hmacSecret, signedText, test, writeAtomic } from "./_helpers.ts";
import { FakeClock } from "../_fake_clock.ts";
import {
  bundleOf,
  CP_VERIFY,
  DRIVEN_BY_REFRESH,
  remoteOptions,
  V1,
  V2,
  withStatement,
} from "./_remote_fixtures.ts";
import { answer, ok, type Reply, StubFetch } from "./_stub_fetch.ts";

const READ = { service: "docs", resource: "page", action: "read" };
const EDIT = { service: "docs", resource: "page", action: "edit" };
const SHARE = { service: "docs", resource: "page", action: "share" };

/** Three targets; `edit` allowed for `editPlan`, `share` only in `withShare`. */
function docsBundle(version: number, editPlan: string, withShare = false): RuntimeBundleV1 {
  return {
    schemaVersion: 1,
    env: "test",
    bundleVersion: version,
    policies: [{
      policyKey: "docs",
      activeVersion: 1,
      defaults: { effect: "deny" },
      rules: [
        { id: "read", status: "active", priority: 1, target: READ, effect: { type: "allow" } },
        {
          id: "edit",
          status: "active",
          priority: 1,
          target: EDIT,
          when: { op: "eq", path: "plan", value: editPlan },
          effect: { type: "allow" },
        },
        ...(withShare
          ? [{
            id: "share",
            status: "active" as const,
            priority: 1,
            target: SHARE,
            effect: { type: "allow" as const },
          }]
          : []),
      ],
    }],
  };
}

/** The watch interval of the local clients, on their fake clock. */
const INTERVAL_MS = 10;

/** One check of a watching local client: its timer fires, and the check runs to its end. */
async function check(clock: FakeClock): Promise<void> {
  const scheduled = clock.nextTimer(); // the next check is scheduled when this one is over
  clock.tick(INTERVAL_MS);
  await scheduled;
}

/** Resolves with the next events a listener receives, `count` of them. */
function nextEvents(
  subscribe: (listener: (event: ClientEvent) => void) => () => void,
  count = 1,
): Promise<ClientEvent[]> {
  return new Promise((resolve) => {
    const seen: ClientEvent[] = [];
    const unsubscribe = subscribe((event) => {
      seen.push(event);
      if (seen.length === count) {
        unsubscribe();
        resolve(seen);
      }
    });
  });
}

test("a watching local client tells each reload: the previous bundle, exactly the targets that may change, the new status", async () => {
  await withTempDir(async (dir) => {
    const secret = hmacSecret();
    const path = `${dir}/bundle.json`;
    await Deno.writeTextFile(path, await signedText(docsBundle(1, "pro"), secret));
    const clock = new FakeClock();
    await using client = await createLocalClient({
      bundlePath: path,
      verify: { algorithm: "HMAC_SHA256", publicKey: secret },
      watch: { intervalMs: INTERVAL_MS },
      clock,
    });
    // A listener that throws, and one that rejects, come first: the others still hear.
    client.subscribe(() => {
      throw new Error("a listener's bug");
    });
    client.subscribe(() => Promise.reject(new Error("an async listener's bug")));
    const decisions: string[] = [];
    client.subscribe(() => {
      decisions.push(client.evaluate({ target: EDIT, context: { plan: "team" } }).decision);
    });

    let next = nextEvents((l) => client.subscribe(l));
    await writeAtomic(path, await signedText(docsBundle(2, "team", true), secret));
    await check(clock);
    const reload = (await next)[0]!;
    assert.ok(reload.type === "reload", reload.type);
    assert.equal(reload.previous.bundleVersion, 1);
    assert.equal(reload.status.bundleVersion, 2);
    assert.equal(reload.status.origin, "local");
    assert.notEqual(reload.previous.checksum, reload.status.checksum);
    // edit's condition changed and share is new; read is untouched.
    assert.deepEqual(reload.changedTargets, [EDIT, SHARE]);
    // The listener ran with the new bundle already in force.
    assert.deepEqual(decisions, ["allow"]);

    // Only the bundle's metadata changes: a reload, with no target.
    next = nextEvents((l) => client.subscribe(l));
    await writeAtomic(path, await signedText(docsBundle(3, "team", true), secret));
    await check(clock);
    const [metadataOnly] = await next;
    assert.equal(metadataOnly!.type === "reload" && metadataOnly!.changedTargets.length, 0);
    assert.equal(metadataOnly!.status.bundleVersion, 3);
  });
});

test("a failed reload sends reload-failed with the error onError gets; unsubscribe and close() stop them", async () => {
  await withTempDir(async (dir) => {
    const secret = hmacSecret();
    const path = `${dir}/bundle.json`;
    await Deno.writeTextFile(path, await signedText(docsBundle(1, "pro"), secret));
    const errors: string[] = [];
    const clock = new FakeClock();
    const client = await createLocalClient({
      bundlePath: path,
      verify: { algorithm: "HMAC_SHA256", publicKey: secret },
      watch: { intervalMs: INTERVAL_MS },
      onError: (error) => errors.push(error.code),
      clock,
    });
    const events: ClientEvent[] = [];
    const unsubscribe = client.subscribe((event) => events.push(event));
    await writeAtomic(path, "{ not json");
    await check(clock);
    assert.deepEqual(errors, ["BUNDLE_PARSE_ERROR"]);
    assert.equal(events.length, 1);
    const failed = events[0]!;
    assert.ok(failed.type === "reload-failed", failed.type);
    assert.equal(failed.error.code, "BUNDLE_PARSE_ERROR");
    // The bundle in force stays, and the status says so.
    assert.equal(failed.status.bundleVersion, 1);
    events.length = 0;
    unsubscribe();
    unsubscribe(); // idempotent
    const later = nextEvents((l) => client.subscribe(l));
    await writeAtomic(path, await signedText(docsBundle(2, "pro"), secret));
    await check(clock);
    assert.deepEqual((await later).map((e) => e.type), ["reload"]);
    assert.equal(events.length, 0, "the unsubscribed listener heard nothing more");
    await client.close();
    // After close(), subscribing is a no-op.
    const off = client.subscribe(() => assert.fail("no event after close()"));
    off();
    assert.throws(() => client.subscribe("nope" as never), TypeError);
  });
});

async function remote(options: Partial<RemoteClientOptions>, ...replies: Reply[]) {
  const clock = new FakeClock();
  const stub = new StubFetch(...replies);
  const client = await createRemoteClient(remoteOptions("https://origin.test", {
    clock,
    fetch: stub.fetch,
    ...DRIVEN_BY_REFRESH,
    ...options,
  }));
  return { clock, stub, client, [Symbol.asyncDispose]: () => client.close() };
}

test("the remote client tells degraded after the third failed poll, recovered after the next success, and each new bundle", async () => {
  await using setup = await remote({}, ok(V1, '"v1"'), answer(503));
  const { client, stub } = setup;
  const events: ClientEvent[] = [];
  client.subscribe((event) => events.push(event));
  for (let i = 0; i < 2; i++) await client.refresh();
  assert.equal(events.length, 0);
  await client.refresh();
  assert.deepEqual(events.map((e) => e.type), ["degraded"]);
  assert.equal(events[0]!.status.origin === "remote" && events[0]!.status.degraded, true);
  await client.refresh(); // still degraded: told once
  assert.equal(events.length, 1);
  stub.script(ok(V2, '"v2"'));
  await client.refresh();
  assert.deepEqual(events.map((e) => e.type), ["degraded", "reload", "recovered"]);
  const reload = events[1]!;
  assert.ok(reload.type === "reload");
  assert.equal(reload.previous.bundleVersion, 1);
  assert.equal(reload.status.bundleVersion, 2);
  assert.deepEqual(reload.changedTargets, [{
    service: "shop",
    resource: "cart",
    action: "checkout",
  }]);
  const recovered = events[2]!.status;
  assert.ok(recovered.origin === "remote" && !recovered.degraded && !recovered.stale);
  // A 304 or the same bytes again: no event.
  stub.script(answer(304));
  await client.refresh();
  assert.equal(events.length, 3);
});

test("with maxStalenessMs the remote client tells stale on its clock, without a poll, and recovered after a success", async () => {
  await using setup = await remote({ maxStalenessMs: 60_000 }, ok(V1, '"v1"'), answer(503));
  const { client, clock, stub } = setup;
  // Without listeners: only the poll timer.
  assert.deepEqual(clock.pendingDelays(), [3_600_000]);
  const events: ClientEvent[] = [];
  const unsubscribe = client.subscribe((event) => events.push(event));
  assert.deepEqual(clock.pendingDelays(), [60_001, 3_600_000]);
  clock.tick(60_000);
  assert.equal(events.length, 0);
  assert.doesNotThrow(() =>
    client.evaluate({ target: { service: "shop", resource: "cart", action: "checkout" } })
  );
  clock.tick(1);
  assert.deepEqual(events.map((e) => e.type), ["stale"]);
  assert.equal(events[0]!.status.origin === "remote" && events[0]!.status.stale, true);
  assert.throws(
    () => client.evaluate({ target: { service: "shop", resource: "cart", action: "checkout" } }),
    { code: "BUNDLE_STALE" },
  );
  assert.deepEqual(clock.pendingDelays(), [3_600_000 - 60_001], "no staleness timer while stale");
  stub.script(answer(304));
  await client.refresh();
  assert.deepEqual(events.map((e) => e.type), ["stale", "recovered"]);
  // Re-armed from the confirmation.
  assert.deepEqual(clock.pendingDelays(), [60_001, 3_600_000]);
  unsubscribe();
  assert.deepEqual(clock.pendingDelays(), [3_600_000], "the last listener gone, the timer goes");
});

test("a remote client started degraded tells only what changes after subscribing", async () => {
  await withTempDir(async (dir) => {
    const cachePath = `${dir}/cache.json`;
    await Deno.writeTextFile(cachePath, V1);
    await using setup = await remote({ cachePath }, answer(503));
    const { client, stub } = setup;
    assert.equal(client.status().degraded, true);
    const events: ClientEvent[] = [];
    client.subscribe((event) => events.push(event));
    await client.refresh();
    assert.equal(events.length, 0);
    stub.script(ok(V1, '"v1"'));
    await client.refresh();
    assert.deepEqual(events.map((e) => e.type), ["recovered"]);
  });
});

test("both clients send expired, with the BUNDLE_EXPIRED error evaluate then throws, when the statement in force expires", async () => {
  const fresh = async (at: number) => JSON.stringify(await withStatement(bundleOf(1), at, 60_000));
  const verify = CP_VERIFY;
  const clock = new FakeClock();
  await withTempDir(async (dir) => {
    const path = `${dir}/bundle.json`;
    await Deno.writeTextFile(path, await fresh(clock.wallNow()));
    const local = await createLocalClient({ bundlePath: path, verify, clock, clockSkewMs: 0 });
    await using remote = await createRemoteClient(remoteOptions("https://origin.test", {
      clock,
      verify,
      clockSkewMs: 0,
      fetch: new StubFetch(ok(await fresh(clock.wallNow()), '"f"')).fetch,
      ...DRIVEN_BY_REFRESH,
    }));
    try {
      const events: ClientEvent[] = [];
      local.subscribe((event) => events.push(event));
      remote.subscribe((event) => events.push(event));
      clock.tick(59_999);
      assert.equal(events.length, 0);
      clock.tick(1);
      assert.deepEqual(events.map((e) => [e.type, e.status.origin]), [
        ["expired", "local"],
        ["expired", "remote"],
      ]);
      for (const event of events) {
        assert.ok(event.type === "expired");
        assert.equal(event.error.code, "BUNDLE_EXPIRED");
        assert.equal(event.status.expired, true);
      }
    } finally {
      await local.close();
    }
  });
});
