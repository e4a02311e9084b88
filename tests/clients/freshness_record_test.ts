// The remote client's freshness record beside its cache file (docs/remote.md
// "Cache file", docs/security.md "Signed freshness"): once a bundle with a
// statement has been in force, a restarted client still requires one. The
// record is written atomically, read bounded, and a record or cache that is
// there but cannot be read fails closed. Time is a fake clock.
import assert from "node:assert/strict";
import { mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { createRemoteClient, type RemoteClientOptions, signBundle } from "../../mod.ts";
import { withTempDir } from "../temp_dir.ts";
import { FakeClock } from "../_fake_clock.ts";
import { assertRejectsCode } from "../_assert_policy_error.ts";
import {
  bundleOf,
  CP_KEY,
  CP_VERIFY,
  DRIVEN_BY_REFRESH,
  remoteOptions,
  SCOPE,
  test,
  withStatement,
} from "./_remote_fixtures.ts";
import { ok, StubFetch } from "./_stub_fetch.ts";

const HOUR = 3_600_000;
const clock = new FakeClock();

const WITH_STATEMENT = JSON.stringify(await withStatement(bundleOf(2), clock.wallNow(), HOUR));
const WITHOUT = JSON.stringify(await signBundle(bundleOf(3), CP_KEY));

function options(cachePath: string, body: string, extra: Partial<RemoteClientOptions> = {}) {
  return remoteOptions("https://cp.test", {
    ...DRIVEN_BY_REFRESH,
    verify: CP_VERIFY,
    clock,
    cachePath,
    fetch: new StubFetch(ok(body, '"e"')).fetch,
    ...extra,
  });
}

/** Starts a client that fetches `body`, closes it; returns its status. */
async function run(cachePath: string, body: string, extra: Partial<RemoteClientOptions> = {}) {
  const client = await createRemoteClient(options(cachePath, body, extra));
  const status = client.status();
  await client.close();
  return status;
}

test("a bundle with a statement in force writes the freshness record beside the cache: one line of JSON, atomically", async () => {
  await withTempDir(async (dir) => {
    const cachePath = `${dir}/cache.json`;
    await run(cachePath, WITH_STATEMENT);
    const text = await readFile(`${cachePath}.freshness.json`, "utf8");
    assert.ok(text.endsWith("}\n") && text.split("\n").length === 2, text);
    assert.ok(text.length < 1024);
    const record = JSON.parse(text);
    assert.deepEqual(Object.keys(record), [
      "type",
      "requireFreshness",
      "since",
      "bundleVersion",
      "checksum",
      "orgId",
      "projectId",
      "env",
    ]);
    assert.equal(record.type, "policy-freshness-record/v1");
    assert.equal(record.requireFreshness, true);
    assert.equal(record.since, new Date(clock.wallNow()).toISOString());
    assert.equal(record.bundleVersion, 2);
    assert.match(record.checksum, /^sha256:[0-9a-f]{64}$/);
    assert.deepEqual([record.orgId, record.projectId, record.env], Object.values(SCOPE));
    // Written through the one atomic writer: no temporary file is left behind.
    assert.deepEqual((await readdir(dir)).sort(), ["cache.json", "cache.json.freshness.json"]);
  });
});

test("without a statement ever in force, no record is written and bundles without one load", async () => {
  await withTempDir(async (dir) => {
    const cachePath = `${dir}/cache.json`;
    assert.equal((await run(cachePath, WITHOUT)).bundleVersion, 3);
    assert.equal((await run(cachePath, WITHOUT)).bundleVersion, 3);
    assert.deepEqual(await readdir(dir), ["cache.json"]);
  });
});

test("after a restart the record makes a bundle without a statement BUNDLE_FRESHNESS_MISSING, also with no cache file left", async () => {
  await withTempDir(async (dir) => {
    const cachePath = `${dir}/cache.json`;
    await run(cachePath, WITH_STATEMENT);
    await rm(cachePath);
    const error = await assertRejectsCode(
      createRemoteClient(options(cachePath, WITHOUT)),
      "BUNDLE_FRESHNESS_MISSING",
    );
    assert.match(
      error.message,
      /its freshness record .*cache\.json\.freshness\.json says a bundle/,
    );
    assert.match(error.message, /delete its freshness record .* and its cache file/);
  });
});

test("a cache written before records were: its bundle's statement makes one required, and the record is written", async () => {
  await withTempDir(async (dir) => {
    const cachePath = `${dir}/cache.json`;
    await run(cachePath, WITH_STATEMENT);
    await rm(`${cachePath}.freshness.json`);
    const errors: string[] = [];
    // The origin's bundle has none: refused, and the client starts from its cache.
    const status = await run(cachePath, WITHOUT, { onError: (e) => void errors.push(e.code) });
    assert.equal(status.source, "cache");
    assert.equal(status.lastErrorCode, "BUNDLE_FRESHNESS_MISSING");
    assert.deepEqual(errors, ["BUNDLE_FRESHNESS_MISSING"]);
    // Once an origin confirms a bundle with a statement, the record is written again.
    await run(cachePath, WITH_STATEMENT);
    assert.equal(
      JSON.parse(await readFile(`${cachePath}.freshness.json`, "utf8")).requireFreshness,
      true,
    );
  });
});

test("a record that is there but cannot be used fails closed: garbage, too large, a folder", async () => {
  const garbage: [string, (path: string) => Promise<void>][] = [
    ["not JSON", (path) => writeFile(path, "{ not json")],
    ["another shape", (path) => writeFile(path, JSON.stringify({ requireFreshness: false }))],
    ["empty", (path) => writeFile(path, "")],
    ["over 4096 bytes", (path) => writeFile(path, " ".repeat(5000))],
    ["a folder", (path) => mkdir(path)],
  ];
  for (const [name, make] of garbage) {
    await withTempDir(async (dir) => {
      const cachePath = `${dir}/cache.json`;
      await make(`${cachePath}.freshness.json`);
      const error = await assertRejectsCode(
        createRemoteClient(options(cachePath, WITHOUT)),
        "BUNDLE_FRESHNESS_MISSING",
      ).catch((e) => assert.fail(`${name}: ${e}`));
      assert.match(error.message, /fails closed/, name);
      // A bundle with a statement is accepted, and a good record replaces a bad file.
      const errors: string[] = [];
      await run(cachePath, WITH_STATEMENT, { onError: (e) => void errors.push(e.code) });
      if (name === "a folder") {
        assert.deepEqual(errors, ["CACHE_WRITE_ERROR"], name);
      } else {
        assert.deepEqual(errors, [], name);
        const record = JSON.parse(await readFile(`${cachePath}.freshness.json`, "utf8"));
        assert.equal(record.type, "policy-freshness-record/v1", name);
      }
    });
  }
});

test("with no record, a cache file that is not a bundle tells nothing: it is rewritten, as before", async () => {
  await withTempDir(async (dir) => {
    const cachePath = `${dir}/cache.json`;
    for (const content of ["garbage", "[]", JSON.stringify({ freshness: null }).slice(1)]) {
      await writeFile(cachePath, content);
      assert.equal((await run(cachePath, WITHOUT)).bundleVersion, 3);
      assert.equal(await readFile(cachePath, "utf8"), WITHOUT);
    }
    assert.deepEqual(await readdir(dir), ["cache.json"]);
  });
});
