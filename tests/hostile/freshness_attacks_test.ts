// The attacks on the delivery path that work without a freshness statement
// (tests/hostile/rollback_and_scope_test.ts shows the relabel succeeding),
// and that fail with a statement and requireFreshness (docs/security.md
// "Rollback and replay", docs/operations.md "Signed freshness"): an old
// bundle relabelled, a statement copied from another bundle, a statement
// stripped, a freeze at bundleVersion 1e15, an origin serving an old bundle
// past expiresAt, a cache file holding an expired bundle. Time is a fake
// clock throughout.
import { withTempDir } from "../temp_dir.ts";
import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import {
  createLocalClient,
  createRemoteClient,
  isPolicyError,
  loadBundle,
  type RuntimeBundleV1,
} from "../../mod.ts";
import { FakeClock } from "../_fake_clock.ts";

import { assertRejectsCode } from "../_assert_policy_error.ts";
import {
  bundleOf,
  CP_VERIFY,
  remoteOptions,
  TARGET,
  test,
  withStatement,
} from "../clients/_remote_fixtures.ts";
import { answer, ok, StubFetch } from "../clients/_stub_fetch.ts";

const HOUR = 3_600_000;
const VERIFY = CP_VERIFY;
const clock = new FakeClock();
const NOW = clock.wallNow();

/** Version 1 allows TARGET; every later version denies it (bundleOf). */
function published(version: number, issuedAt = NOW, lifetime = HOUR) {
  return withStatement(bundleOf(version), issuedAt, lifetime);
}

const OLD = await published(1); // allowed what a later bundle revoked
const CURRENT = await published(2);
const strict = { verify: VERIFY, clock, requireFreshness: true };
const lax = { verify: VERIFY, clock };
const text = (bundle: unknown) => JSON.stringify(bundle);

function strip(bundle: RuntimeBundleV1): RuntimeBundleV1 {
  const { freshness: _, ...rest } = bundle;
  return rest;
}

test("relabel: an old bundle given a higher bundleVersion no longer matches its statement (BUNDLE_FRESHNESS_INVALID)", async () => {
  const relabelled = { ...OLD, bundleVersion: 99 };
  const error = await assertRejectsCode(
    loadBundle(text(relabelled), lax),
    "BUNDLE_FRESHNESS_INVALID",
  );
  assert.match(error.message, /signs bundleVersion 1, but the bundle says 99/);
  // Stripping the statement to relabel works without requireFreshness (as before), not with it.
  const stripped = { ...strip(OLD), bundleVersion: 99 };
  assert.equal((await loadBundle(text(stripped), lax)).status.bundleVersion, 99);
  await assertRejectsCode(loadBundle(text(stripped), strict), "BUNDLE_FRESHNESS_MISSING");
});

test("a statement copied from another bundle names that bundle's checksum (BUNDLE_FRESHNESS_INVALID)", async () => {
  // The current bundle's statement on the old bundle, relabelled to match its version.
  const forged = { ...OLD, bundleVersion: 2, freshness: CURRENT.freshness };
  const error = await assertRejectsCode(
    loadBundle(text(forged), strict),
    "BUNDLE_FRESHNESS_INVALID",
  );
  assert.match(error.message, /names the bundle sha256:[0-9a-f]{64}, not this one/);
});

test("a stripped statement is BUNDLE_FRESHNESS_MISSING with requireFreshness", async () => {
  await assertRejectsCode(loadBundle(text(strip(CURRENT)), strict), "BUNDLE_FRESHNESS_MISSING");
});

test("freeze: bundleVersion 1e15 cannot be signed by whoever has no key, so every client refuses it", async () => {
  const frozen = { ...CURRENT, bundleVersion: 1e15 };
  await assertRejectsCode(loadBundle(text(frozen), strict), "BUNDLE_FRESHNESS_INVALID");
  await assertRejectsCode(
    loadBundle(text({ ...strip(CURRENT), bundleVersion: 1e15 }), strict),
    "BUNDLE_FRESHNESS_MISSING",
  );
  // A client with CURRENT in force keeps it and accepts the next legitimate bundle.
  const stub = new StubFetch(ok(text(CURRENT), '"c"'));
  const client = await createRemoteClient(remoteOptions("https://cp.test", {
    ...strict,
    fetch: stub.fetch,
    poll: { intervalMs: 100 * HOUR },
  }));
  try {
    stub.script(ok(text(frozen), '"f"'));
    assert.equal((await client.refresh()).error?.code, "BUNDLE_FRESHNESS_INVALID");
    stub.script(ok(text(await published(3)), '"n"'));
    const next = await client.refresh();
    assert.equal(next.outcome, "updated");
    assert.equal(next.status.bundleVersion, 3);
  } finally {
    await client.close();
  }
});

test("an origin that keeps serving the old bundle past expiresAt: decisions stop with BUNDLE_EXPIRED, the previous answer is never served", async () => {
  const fake = new FakeClock();
  const old = await published(1, fake.wallNow(), HOUR);
  // The origin (or anything answering as it) confirms the same bytes: 200, then 304s.
  const stub = new StubFetch(ok(text(old), '"o"'), answer(304));
  const client = await createRemoteClient(remoteOptions("https://cp.test", {
    verify: VERIFY,
    clock: fake,
    requireFreshness: true,
    maxStalenessMs: 10 * HOUR,
    fetch: stub.fetch,
    poll: { intervalMs: 100 * HOUR },
  }));
  try {
    assert.equal(client.evaluate({ target: TARGET }).decision, "allow");
    for (let minutes = 0; minutes < 120; minutes += 10) {
      fake.tick(10 * 60_000);
      const result = await client.refresh();
      assert.equal(result.outcome, "unchanged");
      // Confirmed by the origin (not stale), but past expiresAt + 60 s it is no longer fresh.
      assert.equal(result.status.stale, false);
      const expired = fake.wallNow() >= NOW + HOUR + 60_000;
      assert.equal(result.status.expired, expired, `after ${minutes + 10} min`);
      if (expired) {
        assert.throws(
          () => client.evaluate({ target: TARGET }),
          (e: unknown) => isPolicyError(e, "BUNDLE_EXPIRED"),
        );
      } else {
        assert.equal(client.evaluate({ target: TARGET }).decision, "allow");
      }
    }
  } finally {
    await client.close();
  }
});

test("a cache file holding an expired bundle is not started from", async () => {
  await withTempDir(async (dir) => {
    const cachePath = `${dir}/cache.json`;
    const fake = new FakeClock();
    await writeFile(cachePath, text(await published(1, fake.wallNow() - 3 * HOUR, HOUR)));
    const error = await assertRejectsCode(
      createRemoteClient(remoteOptions("https://cp.test", {
        verify: VERIFY,
        clock: fake,
        cachePath,
        fetch: new StubFetch(answer(503)).fetch,
      })),
      "REMOTE_UNAVAILABLE",
    );
    assert.match(error.message, /the cache file could not be used either: .*expired at/);
    // The same file, not yet expired, is started from.
    await writeFile(cachePath, text(await published(1, fake.wallNow(), HOUR)));
    const client = await createRemoteClient(remoteOptions("https://cp.test", {
      verify: VERIFY,
      clock: fake,
      cachePath,
      fetch: new StubFetch(answer(503)).fetch,
      poll: { intervalMs: 100 * HOUR },
      maxBackoffMs: 100 * HOUR,
    }));
    try {
      assert.equal(client.status().source, "cache");
      assert.equal(client.evaluate({ target: TARGET }).decision, "allow");
    } finally {
      await client.close();
    }
  });
});

/** A watching local client of `bundlePath` on `fake`, recording the codes of failed reloads. */
async function watching(bundlePath: string, fake: FakeClock) {
  const errors: string[] = [];
  const client = await createLocalClient({
    bundlePath,
    verify: VERIFY,
    clock: fake,
    clockSkewMs: 0,
    watch: { intervalMs: 10 },
    onError: (error) => void errors.push(error.code),
  });
  return { client, errors };
}

test("strip: an expired statement is not undone by stripping it; without requireFreshness the stripped bundle is BUNDLE_FRESHNESS_MISSING", async () => {
  await withTempDir(async (dir) => {
    const fake = new FakeClock();
    const bundlePath = `${dir}/bundle.json`;
    const current = await published(2, fake.wallNow(), HOUR);
    await writeFile(bundlePath, text(current));
    const { client, errors } = await watching(bundlePath, fake);
    try {
      fake.tick(HOUR);
      assert.equal(client.status().expired, true);
      // The watch's check the tick started ends by scheduling the next one.
      while (fake.pending === 0) await fake.nextTimer();
      assert.throws(
        () => client.evaluate({ target: TARGET }),
        (e) => isPolicyError(e, "BUNDLE_EXPIRED"),
      );
      // Someone on the delivery path rewrites the same bundle without its statement.
      await writeFile(bundlePath, text(strip(current)));
      await fake.runUntil(() => errors.length > 0, "the stripped file is refused");
      assert.deepEqual(errors, ["BUNDLE_FRESHNESS_MISSING"]);
      assert.equal(client.status().expired, true);
      assert.throws(
        () => client.evaluate({ target: TARGET }),
        (e) => isPolicyError(e, "BUNDLE_EXPIRED"),
      );
    } finally {
      await client.close();
    }
  });
});

test("strip and relabel: an older bundle stripped and given a higher bundleVersion is refused by a client that had a statement in force", async () => {
  const relabelled = text({ ...strip(OLD), bundleVersion: 99 });
  // Local: a watching client on the current bundle.
  await withTempDir(async (dir) => {
    const fake = new FakeClock();
    const bundlePath = `${dir}/bundle.json`;
    await writeFile(bundlePath, text(await published(2, fake.wallNow(), HOUR)));
    const { client, errors } = await watching(bundlePath, fake);
    try {
      await writeFile(bundlePath, relabelled);
      await fake.runUntil(() => errors.length > 0, "the relabelled file is refused");
      assert.deepEqual(errors, ["BUNDLE_FRESHNESS_MISSING"]);
      assert.equal(client.status().bundleVersion, 2);
      assert.equal(client.evaluate({ target: TARGET }).decision, "deny");
    } finally {
      await client.close();
    }
  });
  // Remote: the same bundle served by an origin, in a poll.
  const stub = new StubFetch(ok(text(CURRENT), '"c"'));
  const client = await createRemoteClient(remoteOptions("https://cp.test", {
    ...lax,
    fetch: stub.fetch,
    poll: { intervalMs: 100 * HOUR },
  }));
  try {
    stub.script(ok(relabelled, '"r"'));
    const result = await client.refresh();
    assert.equal(result.error?.code, "BUNDLE_FRESHNESS_MISSING");
    assert.match(result.error!.message, /requires one because a bundle with one/);
    assert.equal(result.status.bundleVersion, 2);
    assert.equal(client.evaluate({ target: TARGET }).decision, "deny");
  } finally {
    await client.close();
  }
});

test("a restarted remote client remembers, with its cache, that it had a statement in force: a stripped bundle is still refused", async () => {
  await withTempDir(async (dir) => {
    const cachePath = `${dir}/cache.json`;
    const options = (fetch: StubFetch) =>
      remoteOptions("https://cp.test", {
        ...lax,
        cachePath,
        fetch: fetch.fetch,
        poll: { intervalMs: 100 * HOUR },
        maxBackoffMs: 100 * HOUR,
      });
    const first = await createRemoteClient(options(new StubFetch(ok(text(CURRENT), '"c"'))));
    await first.close();
    // After the restart the origin (or anything answering as it) serves the old bundle, stripped
    // and relabelled: it is refused, and the client starts from its cache.
    const relabelled = text({ ...strip(OLD), bundleVersion: 99 });
    const second = await createRemoteClient(options(new StubFetch(ok(relabelled, '"r"'))));
    try {
      const status = second.status();
      assert.equal(status.source, "cache");
      assert.equal(status.lastErrorCode, "BUNDLE_FRESHNESS_MISSING");
      assert.equal(status.bundleVersion, 2);
      assert.equal(second.evaluate({ target: TARGET }).decision, "deny");
    } finally {
      await second.close();
    }
  });
});
