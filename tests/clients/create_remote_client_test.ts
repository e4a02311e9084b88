// The remote client against a real HTTP server on 127.0.0.1 that injects
// faults (tests/clients/_fault_server.ts): one test per behaviour.
import { withTempDir } from "../temp_dir.ts";
import assert from "node:assert/strict";
import { readdir, readFile, writeFile } from "node:fs/promises";
import {
  createRemoteClient,
  type RemoteClient,
  type RemoteClientOptions,
  signBundle,
} from "../../mod.ts";
import type { ErrorCode } from "../../src/public/policy_error.ts";
import { PACKAGE_VERSION } from "../../src/_internal/version.ts";

import { assertRejectsCode } from "../_assert_policy_error.ts";
import { type Fault, FaultServer } from "./_fault_server.ts";
import { FakeClock } from "../_fake_clock.ts";
import {
  assertIso,
  bundleOf,
  ecdsa,
  HMAC_SECRET,
  otherEcdsa,
  Recorder,
  remoteOptions,
  RUNTIME_KEY,
  signedText,
  TARGET,
  test,
  V1,
  V2,
} from "./_remote_fixtures.ts";
import { HANG_BOUND_MS } from "../_hang_bound.ts";

const decisionOf = (client: RemoteClient) => client.evaluate({ target: TARGET }).decision;
const v1Checksum = JSON.parse(V1).checksum as string;
const v2Checksum = JSON.parse(V2).checksum as string;

/** A server answering V1 with ETag "v1", and a client started against it. */
async function started(extra: Partial<RemoteClientOptions> = {}) {
  const server = FaultServer.start({ kind: "bundle", body: V1, etag: '"v1"' });
  const recorder = new Recorder();
  const client = await createRemoteClient(
    remoteOptions(server.baseUrl, { ...recorder.callbacks, ...extra }),
  );
  return {
    server,
    recorder,
    client,
    async [Symbol.asyncDispose]() {
      await client.close();
      await server.close();
    },
  };
}

/**
 * Serves `fault` to the next poll of a client that has V1 in force, and
 * checks what a failed poll must do: onError with `code`, the status
 * counters, and V1 still in force.
 */
async function assertFailedPoll(
  fault: Fault,
  code: ErrorCode,
  extra?: Partial<RemoteClientOptions>,
  /** Runs while the poll is in flight (its request has arrived), to step a fake clock. */
  during?: (server: FaultServer) => void,
) {
  await using setup = await started(extra);
  const { server, recorder, client } = setup;
  const before = client.status();
  server.fault = fault;
  const requests = server.requests.length;
  const polled = client.refresh();
  if (during !== undefined) {
    await server.untilRequests(requests + 1);
    during(server);
  }
  const status = (await polled).status;
  assert.deepEqual(recorder.codes, [code]);
  assert.equal(status.consecutiveFailures, 1);
  assert.equal(status.lastErrorCode, code);
  assertIso(status.lastErrorAt);
  assert.equal(status.degraded, false);
  assert.equal(status.lastSuccessAt, before.lastSuccessAt);
  assert.equal(status.source, "network");
  assert.equal(status.checksum, v1Checksum);
  assert.equal(status.bundleVersion, 1);
  assert.equal(decisionOf(client), "allow");
  assert.equal(recorder.polls.at(-1)?.outcome, "failed");
  assert.equal(recorder.polls.at(-1)?.error?.code, code);
  // The next poll still asks for the bundle in force, never for the bad one.
  server.fault = { kind: "bundle", body: V1, etag: '"v1"' };
  const recovered = (await client.refresh()).status;
  assert.equal(server.lastRequest.headers.get("if-none-match"), '"v1"');
  assert.equal(recovered.consecutiveFailures, 0);
  assert.equal(recovered.lastErrorCode, code);
  return { status, error: recorder.errors[0]! };
}

test("createRemoteClient() loads the bundle over HTTP and reports its status", async () => {
  await using setup = await started();
  const { client, recorder } = setup;
  assert.equal(decisionOf(client), "allow");
  const status = client.status();
  assert.equal(status.origin, "remote");
  assert.equal(status.checksum, v1Checksum);
  assert.equal(status.bundleVersion, 1);
  assert.equal(status.env, "prod");
  assert.equal(status.policies, 1);
  // The configured key has no key id; the one the signature records is a claim.
  assert.deepEqual(status.signature, {
    status: "verified",
    algorithm: "ECDSA_SHA_256",
    keyId: "control-plane-1",
  });
  assert.equal(status.freshness, null);
  assert.equal(status.expired, false);
  assert.equal(status.degraded, false);
  assert.equal(status.consecutiveFailures, 0);
  assertIso(status.lastSuccessAt);
  assert.equal(status.lastErrorCode, null);
  assert.equal(status.lastErrorAt, null);
  assert.equal(status.source, "network");
  assertIso(status.nextPollAt);
  const wait = Date.parse(status.nextPollAt) - Date.now();
  assert.ok(wait > 26_000 && wait <= 33_000, `next poll in ${wait} ms`);
  assert.deepEqual(recorder.errors, []);
  assert.equal(recorder.polls.length, 1);
  assert.equal(recorder.polls[0]!.outcome, "updated");
  assert.equal(recorder.polls[0]!.httpStatus, 200);
});

test("createRemoteClient() sends the protocol's request", async () => {
  await using setup = await started();
  const request = setup.server.lastRequest;
  assert.equal(request.method, "GET");
  assert.equal(request.path, "/v1/acme/storefront/prod/bundle.json");
  assert.equal(request.headers.get("authorization"), `Bearer ${RUNTIME_KEY}`);
  assert.equal(request.headers.get("accept"), "application/json");
  assert.equal(request.headers.get("if-none-match"), null);
  const agent = request.headers.get("user-agent") ?? "";
  assert.equal(
    agent,
    `policy-runtime/${PACKAGE_VERSION} (@policy/runtime) Deno/${Deno.version.deno}`,
  );
});

test("createRemoteClient() URL-encodes the scope and keeps the base path", async () => {
  const scope = { orgId: "acme corp/eu", projectId: "shop?#%", env: "staging" as const };
  await using server = FaultServer.start({
    kind: "bundle",
    body: await signedText(1, scope),
  });
  await using client = await createRemoteClient(
    remoteOptions(`${server.baseUrl}/policy/`, scope),
  );
  assert.equal(
    server.lastRequest.path,
    "/policy/v1/acme%20corp%2Feu/shop%3F%23%25/staging/bundle.json",
  );
  assert.equal(client.status().env, "staging");
});

test("a poll sends If-None-Match and a 304 is a success that changes nothing", async () => {
  const clock = new FakeClock();
  await using setup = await started({ clock });
  const { server, client, recorder } = setup;
  const first = client.status();
  clock.tick(5);
  const status = (await client.refresh()).status;
  assert.equal(server.requests.length, 2);
  assert.equal(server.lastRequest.headers.get("if-none-match"), '"v1"');
  assert.equal(recorder.polls.at(-1)?.outcome, "unchanged");
  assert.equal(recorder.polls.at(-1)?.httpStatus, 304);
  assert.equal(status.checksum, v1Checksum);
  assert.equal(status.consecutiveFailures, 0);
  assert.ok(status.lastSuccessAt! > first.lastSuccessAt!);
  assert.deepEqual(recorder.errors, []);
});

test("a poll puts a new verified bundle in force and remembers its ETag", async () => {
  await using setup = await started();
  const { server, client, recorder } = setup;
  server.fault = { kind: "bundle", body: V2, etag: '"v2"' };
  const status = (await client.refresh()).status;
  assert.equal(recorder.polls.at(-1)?.outcome, "updated");
  assert.equal(status.checksum, v2Checksum);
  assert.equal(status.bundleVersion, 2);
  assert.equal(decisionOf(client), "deny");
  await client.refresh();
  assert.equal(server.lastRequest.headers.get("if-none-match"), '"v2"');
  assert.equal(recorder.polls.at(-1)?.outcome, "unchanged");
});

test("the same bundle again without ETag support is unchanged", async () => {
  await using setup = await started();
  const { server, client, recorder } = setup;
  server.fault = { kind: "bundle", body: V1, etag: null };
  await client.refresh();
  assert.equal(recorder.polls.at(-1)?.outcome, "unchanged");
  assert.equal(recorder.polls.at(-1)?.httpStatus, 200);
  await client.refresh();
  assert.equal(server.lastRequest.headers.get("if-none-match"), null);
});

test("401 gives REMOTE_UNAUTHORIZED and keeps the bundle", async () => {
  await assertFailedPoll({ kind: "status", status: 401 }, "REMOTE_UNAUTHORIZED");
});

test("403 gives REMOTE_UNAUTHORIZED and polls again only at the backoff cap", async () => {
  const { status } = await assertFailedPoll(
    { kind: "status", status: 403 },
    "REMOTE_UNAUTHORIZED",
    { maxBackoffMs: 200_000 },
  );
  const wait = Date.parse(status.nextPollAt!) - Date.now();
  assert.ok(wait > 90_000 && wait <= 200_000, `next poll in ${wait} ms`);
});

test("404 gives REMOTE_NOT_FOUND and keeps the bundle", async () => {
  const { error } = await assertFailedPoll({ kind: "status", status: 404 }, "REMOTE_NOT_FOUND");
  assert.match(error.message, /no bundle is published for orgId "acme"/);
});

test("429 with Retry-After in seconds sets the earliest next poll", async () => {
  const { status, error } = await assertFailedPoll(
    { kind: "status", status: 429, headers: { "retry-after": "120" } },
    "REMOTE_UNAVAILABLE",
  );
  const wait = Date.parse(status.nextPollAt!) - Date.now();
  assert.ok(wait > 110_000 && wait <= 120_000, `next poll in ${wait} ms`);
  assert.match(error.message, /HTTP 429/);
});

test("503 with Retry-After as an HTTP date sets the earliest next poll", async () => {
  const date = new Date(Date.now() + 200_000).toUTCString();
  const { status } = await assertFailedPoll(
    { kind: "status", status: 503, headers: { "retry-after": date } },
    "REMOTE_UNAVAILABLE",
  );
  const wait = Date.parse(status.nextPollAt!) - Date.now();
  assert.ok(wait > 195_000 && wait <= 200_000, `next poll in ${wait} ms`);
});

test("500 gives REMOTE_UNAVAILABLE and keeps the bundle", async () => {
  await assertFailedPoll({ kind: "status", status: 500, body: "boom" }, "REMOTE_UNAVAILABLE");
});

test("a server that hangs gives REMOTE_UNAVAILABLE after requestTimeoutMs", async () => {
  const clock = new FakeClock();
  const { error } = await assertFailedPoll(
    { kind: "hang" },
    "REMOTE_UNAVAILABLE",
    { requestTimeoutMs: 150, clock },
    () => {
      // The request hangs on the server: the client gives up at 150 ms, not before.
      clock.tick(149);
      assert.ok(clock.pendingDelays().includes(1), "the request timeout is still pending");
      clock.tick(1);
    },
  );
  assert.match(error.message, /within 150 ms \(requestTimeoutMs\)/);
});

test("a connection dropped mid-body gives REMOTE_UNAVAILABLE and keeps the bundle", async () => {
  const { error } = await assertFailedPoll(
    { kind: "drop", body: V2, sendBytes: 100 },
    "REMOTE_UNAVAILABLE",
  );
  assert.match(error.message, /cannot fetch/);
});

test("a truncated bundle gives BUNDLE_PARSE_ERROR and keeps the bundle", async () => {
  await assertFailedPoll(
    { kind: "bundle", body: V2.slice(0, V2.length / 2), etag: '"half"' },
    "BUNDLE_PARSE_ERROR",
  );
});

test("a tampered bundle gives CHECKSUM_MISMATCH and keeps the bundle", async () => {
  const tampered = JSON.parse(V2);
  tampered.policies[0].rules[0].effect = { type: "allow" };
  await assertFailedPoll(
    { kind: "bundle", body: JSON.stringify(tampered), etag: '"tampered"' },
    "CHECKSUM_MISMATCH",
  );
});

test("a tampered bundle without checksum gives BUNDLE_SIGNATURE_INVALID", async () => {
  const tampered = JSON.parse(V2);
  tampered.policies[0].rules[0].priority = 99;
  delete tampered.checksum;
  await assertFailedPoll(
    { kind: "bundle", body: JSON.stringify(tampered), etag: '"tampered"' },
    "BUNDLE_SIGNATURE_INVALID",
  );
});

test("a bundle signed by another key gives BUNDLE_SIGNATURE_INVALID", async () => {
  const forged = await signBundle(bundleOf(2), {
    algorithm: "ECDSA_SHA_256",
    key: otherEcdsa.privateKey,
    keyId: "control-plane-1",
  });
  await assertFailedPoll(
    { kind: "bundle", body: JSON.stringify(forged), etag: '"forged"' },
    "BUNDLE_SIGNATURE_INVALID",
  );
});

test("an unsigned bundle gives BUNDLE_SIGNATURE_MISSING", async () => {
  await assertFailedPoll(
    { kind: "bundle", body: JSON.stringify(bundleOf(2)), etag: '"unsigned"' },
    "BUNDLE_SIGNATURE_MISSING",
  );
});

test("a bundle of another scope gives BUNDLE_SCOPE_MISMATCH and keeps the bundle", async () => {
  const { error } = await assertFailedPoll(
    { kind: "bundle", body: await signedText(2, { orgId: "globex" }), etag: '"other"' },
    "BUNDLE_SCOPE_MISMATCH",
  );
  assert.match(error.message, /orgId "globex" \(expected "acme"\)/);
  await assertFailedPoll(
    { kind: "bundle", body: await signedText(2, { env: "staging" }), etag: '"other"' },
    "BUNDLE_SCOPE_MISMATCH",
  );
  const noProject = bundleOf(2);
  delete noProject.projectId;
  const signed = await signBundle(noProject, {
    algorithm: "ECDSA_SHA_256",
    key: ecdsa.privateKey,
    keyId: "k",
  });
  const { error: absent } = await assertFailedPoll(
    { kind: "bundle", body: JSON.stringify(signed), etag: '"other"' },
    "BUNDLE_SCOPE_MISMATCH",
  );
  assert.match(absent.message, /projectId absent/);
});

test("an HMAC-signed bundle gives REMOTE_HMAC_REFUSED and keeps the bundle", async () => {
  const hmac = await signBundle(bundleOf(2), {
    algorithm: "HMAC_SHA256",
    key: HMAC_SECRET,
    keyId: "shared",
  });
  await assertFailedPoll(
    { kind: "bundle", body: JSON.stringify(hmac), etag: '"hmac"' },
    "REMOTE_HMAC_REFUSED",
  );
});

test("a Content-Length over maxFileBytes gives BUNDLE_TOO_LARGE", async () => {
  // Padding in a field outside the payload (an unknown one: a warning, not an error).
  const big = await signedText(2, { padding: "x".repeat(4000) } as never);
  await assertFailedPoll(
    { kind: "bundle", body: big, etag: '"big"' },
    "BUNDLE_TOO_LARGE",
    { maxFileBytes: V1.length + 100 },
  );
});

test("a chunked body growing over maxFileBytes gives BUNDLE_TOO_LARGE", async () => {
  await assertFailedPoll(
    { kind: "stream", totalBytes: 1_000_000 },
    "BUNDLE_TOO_LARGE",
    { maxFileBytes: V1.length + 100 },
  );
  await using server = FaultServer.start({ kind: "stream", totalBytes: 50_000_000 });
  const error = await assertRejectsCode(
    createRemoteClient(remoteOptions(server.baseUrl, { maxFileBytes: 10_000 })),
    "BUNDLE_TOO_LARGE",
  );
  assert.match(error.message, /over 10000 bytes/);
  // The client stopped reading: far less than the 50 MB body left the server.
  assert.ok(server.streamedBytes < 5_000_000, `${server.streamedBytes} bytes streamed`);
});

test("the ETag of a rejected bundle is never sent back", async () => {
  await using setup = await started();
  const { server, client } = setup;
  server.fault = { kind: "bundle", body: V2.replace('"deny"', '"allow"'), etag: '"bad"' };
  await client.refresh();
  await client.refresh();
  assert.equal(server.lastRequest.headers.get("if-none-match"), '"v1"');
  assert.equal(client.status().consecutiveFailures, 2);
});

test("a 304 to a request without If-None-Match is a failure", async () => {
  await using server = FaultServer.start({ kind: "status", status: 304 });
  const error = await assertRejectsCode(
    createRemoteClient(remoteOptions(server.baseUrl)),
    "REMOTE_UNAVAILABLE",
  );
  assert.match(error.message, /304 Not Modified to a request without If-None-Match/);
});

test("three failed polls make the client degraded; the first success clears it", async () => {
  await using setup = await started();
  const { server, client, recorder } = setup;
  server.fault = { kind: "status", status: 500 };
  assert.equal((await client.refresh()).status.degraded, false);
  assert.equal((await client.refresh()).status.degraded, false);
  server.fault = { kind: "status", status: 404 };
  const third = (await client.refresh()).status;
  assert.equal(third.degraded, true);
  assert.equal(third.consecutiveFailures, 3);
  assert.equal(third.lastErrorCode, "REMOTE_NOT_FOUND");
  assert.equal(decisionOf(client), "allow");
  server.fault = { kind: "bundle", body: V1, etag: '"v1"' };
  const healed = (await client.refresh()).status;
  assert.equal(recorder.polls.at(-1)?.httpStatus, 304);
  assert.equal(healed.degraded, false);
  assert.equal(healed.consecutiveFailures, 0);
  assert.equal(healed.lastErrorCode, "REMOTE_NOT_FOUND");
  assert.deepEqual(recorder.codes, [
    "REMOTE_UNAVAILABLE",
    "REMOTE_UNAVAILABLE",
    "REMOTE_NOT_FOUND",
  ]);
});

test("creation rejects with the code of a failed first request", async () => {
  await using server = FaultServer.start();
  const cases: Array<[Fault, ErrorCode]> = [
    [{ kind: "status", status: 401 }, "REMOTE_UNAUTHORIZED"],
    [{ kind: "status", status: 403 }, "REMOTE_UNAUTHORIZED"],
    [{ kind: "status", status: 404 }, "REMOTE_NOT_FOUND"],
    [{ kind: "status", status: 429 }, "REMOTE_UNAVAILABLE"],
    [{ kind: "status", status: 502 }, "REMOTE_UNAVAILABLE"],
    [{ kind: "bundle", body: "{" }, "BUNDLE_PARSE_ERROR"],
    [{ kind: "bundle", body: await signedText(1, { projectId: "x" }) }, "BUNDLE_SCOPE_MISMATCH"],
    [{ kind: "drop", body: V1, sendBytes: 10 }, "REMOTE_UNAVAILABLE"],
  ];
  for (const [fault, code] of cases) {
    server.fault = fault;
    const recorder = new Recorder();
    await assertRejectsCode(
      createRemoteClient(remoteOptions(server.baseUrl, recorder.callbacks)),
      code,
    );
    // A client that never started reports through the rejection only.
    assert.deepEqual(recorder.errors, []);
  }
});

test("creation rejects with REMOTE_UNAVAILABLE when nothing listens", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  const error = await assertRejectsCode(
    createRemoteClient(remoteOptions(`http://127.0.0.1:${port}`)),
    "REMOTE_UNAVAILABLE",
  );
  assert.match(error.message, /cannot fetch http:\/\/127\.0\.0\.1:\d+\/v1\/acme/);
  assert.doesNotMatch(error.message, new RegExp(RUNTIME_KEY));
});

test("creation never takes longer than startTimeoutMs", async () => {
  await using server = FaultServer.start({ kind: "hang" });
  const started = Date.now();
  const error = await assertRejectsCode(
    createRemoteClient(remoteOptions(server.baseUrl, { startTimeoutMs: 200 })),
    "REMOTE_UNAVAILABLE",
  );
  assert.match(error.message, /no verified bundle within startTimeoutMs \(200 ms\)/);
  assert.ok(Date.now() - started < HANG_BOUND_MS);
});

test("cachePath receives the exact bytes of every verified bundle, atomically", async () => {
  await withTempDir(async (dir) => {
    const cachePath = `${dir}/bundle.json`;
    await using setup = await started({ cachePath });
    const { server, client } = setup;
    assert.equal(await readFile(cachePath, "utf8"), V1);
    server.fault = { kind: "bundle", body: V2, etag: '"v2"' };
    await client.refresh();
    assert.equal(await readFile(cachePath, "utf8"), V2);
    // A rejected bundle is never written.
    server.fault = { kind: "bundle", body: V1.replace('"allow"', '"deny"'), etag: '"bad"' };
    await client.refresh();
    assert.equal(await readFile(cachePath, "utf8"), V2);
    assert.deepEqual(await readdir(dir), ["bundle.json"]);
  });
});

test("a cache folder that does not exist is reported through onError", async () => {
  await withTempDir(async (dir) => {
    await using setup = await started({ cachePath: `${dir}/missing/bundle.json` });
    assert.deepEqual(setup.recorder.codes, ["CACHE_WRITE_ERROR"]);
    const status = setup.client.status();
    assert.equal(status.consecutiveFailures, 0);
    assert.equal(status.lastErrorCode, null);
    assert.deepEqual(await readdir(dir), []);
  });
});

test("when the first request fails the client starts from the cache, degraded", async () => {
  await withTempDir(async (dir) => {
    const cachePath = `${dir}/bundle.json`;
    await writeFile(cachePath, V1);
    await using server = FaultServer.start({ kind: "status", status: 503 });
    const recorder = new Recorder();
    await using client = await createRemoteClient(
      remoteOptions(server.baseUrl, { cachePath, ...recorder.callbacks }),
    );
    assert.equal(decisionOf(client), "allow");
    const status = client.status();
    assert.equal(status.source, "cache");
    assert.equal(status.degraded, true);
    assert.equal(status.consecutiveFailures, 1);
    assert.equal(status.lastSuccessAt, null);
    assert.equal(status.lastErrorCode, "REMOTE_UNAVAILABLE");
    assert.equal(status.checksum, v1Checksum);
    assert.deepEqual(recorder.codes, ["REMOTE_UNAVAILABLE"]);
    assert.equal(recorder.polls[0]?.outcome, "failed");
    // Still unreachable: still degraded, still from the cache.
    server.fault = { kind: "status", status: 500 };
    assert.equal((await client.refresh()).status.degraded, true);
    // The first verified bundle from the network clears it (no If-None-Match was sent).
    server.fault = { kind: "bundle", body: V2, etag: '"v2"' };
    const synced = (await client.refresh()).status;
    assert.equal(server.lastRequest.headers.get("if-none-match"), null);
    assert.equal(synced.source, "network");
    assert.equal(synced.degraded, false);
    assert.equal(synced.consecutiveFailures, 0);
    assert.equal(decisionOf(client), "deny");
    assert.equal(await readFile(cachePath, "utf8"), V2);
  });
});

test("a client from the cache is synchronised by the same bundle from the network", async () => {
  await withTempDir(async (dir) => {
    const cachePath = `${dir}/bundle.json`;
    await writeFile(cachePath, V1);
    await using server = FaultServer.start({ kind: "status", status: 500 });
    await using client = await createRemoteClient(remoteOptions(server.baseUrl, { cachePath }));
    assert.equal(client.status().source, "cache");
    server.fault = { kind: "bundle", body: V1, etag: '"v1"' };
    const synced = (await client.refresh()).status;
    assert.equal(synced.source, "network");
    assert.equal(synced.degraded, false);
    assertIso(synced.lastSuccessAt);
    await client.refresh();
    assert.equal(server.lastRequest.headers.get("if-none-match"), '"v1"');
  });
});

test("a cache that does not verify or is of another scope is not used", async () => {
  await withTempDir(async (dir) => {
    const cachePath = `${dir}/bundle.json`;
    await using server = FaultServer.start({ kind: "status", status: 401 });
    const bad: Array<[string, RegExp]> = [
      [V1.replace('"allow"', '"deny"'), /CHECKSUM|checksum/],
      [await signedText(1, { env: "dev" }), /another scope/],
      [
        JSON.stringify(
          await signBundle(bundleOf(1), {
            algorithm: "HMAC_SHA256",
            key: HMAC_SECRET,
            keyId: "h",
          }),
        ),
        /HMAC_SHA256/,
      ],
    ];
    for (const [text, reason] of bad) {
      await writeFile(cachePath, text);
      const error = await assertRejectsCode(
        createRemoteClient(remoteOptions(server.baseUrl, { cachePath })),
        "REMOTE_UNAUTHORIZED",
      );
      assert.match(error.message, /the cache file could not be used either/);
      assert.match(error.message, reason);
    }
    const missing = await assertRejectsCode(
      createRemoteClient(remoteOptions(server.baseUrl, { cachePath: `${dir}/none.json` })),
      "REMOTE_UNAUTHORIZED",
    );
    assert.match(missing.message, /cannot read the cache file/);
  });
});

test("close() aborts a request in flight and stops polling", async () => {
  await using setup = await started();
  const { server, client, recorder } = setup;
  server.fault = { kind: "hang" };
  const pending = client.refresh();
  await server.untilRequests(2);
  await client.close();
  const result = await pending;
  assert.equal(result.outcome, "closed");
  assert.equal(result.status.nextPollAt, null);
  assert.deepEqual(recorder.errors, []);
  assert.equal(recorder.polls.length, 1);
  // Closed: nothing is requested any more, and close() is idempotent.
  assert.equal((await client.refresh()).outcome, "closed");
  await client.close();
  await client[Symbol.asyncDispose]();
  assert.equal(server.requests.length, 2);
  assert.equal(decisionOf(client), "allow");
});

test("onError and onPoll that throw do not stop the client", async () => {
  await using server = FaultServer.start({ kind: "bundle", body: V1 });
  await using client = await createRemoteClient(remoteOptions(server.baseUrl, {
    onError: () => {
      throw new Error("bad callback");
    },
    onPoll: () => {
      throw new Error("bad callback");
    },
  }));
  server.fault = { kind: "status", status: 500 };
  assert.equal((await client.refresh()).status.consecutiveFailures, 1);
  assertIso(client.status().nextPollAt);
});

test("an async onError that rejects is not an unhandled rejection", async () => {
  await using server = FaultServer.start({ kind: "bundle", body: V1 });
  let calls = 0;
  await using client = await createRemoteClient(remoteOptions(server.baseUrl, {
    onError: async () => {
      calls++;
      await Promise.resolve();
      throw new Error("bad async callback");
    },
  }));
  server.fault = { kind: "status", status: 500 };
  assert.equal((await client.refresh()).status.consecutiveFailures, 1);
  // One turn of the event loop (no duration: no timer of ours is involved) lets
  // the rejection settle inside the test: unhandled, it would fail the run.
  await new Promise((resolve) => setTimeout(resolve, 0));
  assert.equal(calls, 1);
});

test("parseCustomEffect and contextPolicy apply to the remote bundle", async () => {
  const custom = bundleOf(1);
  custom.policies[0]!.rules[0]!.effect = { type: "custom", value: '{"tier":"gold"}' };
  const signed = await signBundle(custom, {
    algorithm: "ECDSA_SHA_256",
    key: ecdsa.privateKey,
    keyId: "k",
  });
  await using server = FaultServer.start({ kind: "bundle", body: JSON.stringify(signed) });
  await using client = await createRemoteClient(remoteOptions(server.baseUrl, {
    parseCustomEffect: true,
    contextPolicy: { allowedKeys: ["plan"] },
  }));
  assert.deepEqual(client.evaluate({ target: TARGET, context: { plan: "pro" } }), {
    decision: "custom",
    reason: "rule",
    policyKey: "checkout",
    ruleId: "v1",
    value: '{"tier":"gold"}',
    parsedValue: { tier: "gold" },
  });
  assert.throws(
    () => client.evaluate({ target: TARGET, context: { seats: 3 } }),
    { code: "CONTEXT_KEY_NOT_ALLOWED" },
  );
});

test("createRemoteClient() refuses an HMAC verify key and bad options before any request", async () => {
  const base = remoteOptions("http://127.0.0.1:9");
  await assertRejectsCode(
    createRemoteClient({ ...base, verify: { algorithm: "HMAC_SHA256", publicKey: HMAC_SECRET } }),
    "REMOTE_HMAC_REFUSED",
  );
  const invalid: Array<Record<string, unknown>> = [
    { verify: "ECDSA_SHA_256" },
    { verify: { algorithm: "Ed25519", publicKey: "x" } },
    { allowUnsigned: "yes" },
    { baseUrl: "not a url" },
    { baseUrl: "ftp://example.com" },
    { baseUrl: "https://example.com/?sig=1" },
    { baseUrl: "https://user:pw@example.com" },
    { runtimeKey: "" },
    { runtimeKey: "has space" },
    { runtimeKey: "line\nbreak" },
    { orgId: "" },
    { orgId: ".." },
    { projectId: "." },
    { projectId: 7 },
    { env: "production" },
    { poll: { intervalMs: 0 } },
    { poll: 5 },
    { requestTimeoutMs: -1 },
    { maxBackoffMs: Infinity },
    { startTimeoutMs: 2 ** 31 },
    { maxFileBytes: 1.5 },
    { cachePath: "" },
    { onError: "log" },
    { fetch: {} },
    { clock: { now: () => 0 } },
  ];
  for (const change of invalid) {
    const error = await assertRejectsCode(
      createRemoteClient({ ...base, ...change } as RemoteClientOptions),
      "INVALID_OPTIONS",
    );
    assert.doesNotMatch(error.message, /line\nbreak|has space/);
  }
  await assertRejectsCode(
    createRemoteClient({ ...base, verify: { algorithm: "ECDSA_SHA_256", publicKey: "nope" } }),
    "INVALID_KEY",
  );
});

test("a remote client without verify, or with allowUnsigned, fails before any request; HMAC bundles are refused", async () => {
  await using server = FaultServer.start({ kind: "bundle", body: V1 });
  const { verify: _, ...noKey } = remoteOptions(server.baseUrl);
  const missing = await assertRejectsCode(
    createRemoteClient(noKey as RemoteClientOptions),
    "INVALID_OPTIONS",
  );
  assert.match(missing.message, /verify is required/);
  const unsigned = await assertRejectsCode(
    createRemoteClient(
      { ...remoteOptions(server.baseUrl), allowUnsigned: true } as RemoteClientOptions,
    ),
    "INVALID_OPTIONS",
  );
  assert.match(unsigned.message, /allowUnsigned does not apply to the remote client/);
  assert.equal(server.requests.length, 0);
  server.fault = { kind: "bundle", body: JSON.stringify(bundleOf(1)) };
  await assertRejectsCode(
    createRemoteClient(remoteOptions(server.baseUrl)),
    "BUNDLE_SIGNATURE_MISSING",
  );
  const hmac = await signBundle(bundleOf(1), {
    algorithm: "HMAC_SHA256",
    key: HMAC_SECRET,
    keyId: "shared",
  });
  server.fault = { kind: "bundle", body: JSON.stringify(hmac) };
  await assertRejectsCode(createRemoteClient(remoteOptions(server.baseUrl)), "REMOTE_HMAC_REFUSED");
});
