// The remote client's telemetry against the real OpenTelemetry SDKs: each
// poll is a policy.bundle.load span with a policy.bundle.fetch CLIENT span
// per origin inside it, timed on the client's clock; fetch durations by
// server and status; updates by outcome and error.type; the state gauges
// (degraded, stale, consecutive failures, the freshness statement's age and
// expiry); BUNDLE_STALE counted as an evaluation error.
import { DEFAULT_CLOCK_SKEW_MS } from "../../src/verify/verify_freshness.ts";
import assert from "node:assert/strict";
import { SpanKind, SpanStatusCode } from "@opentelemetry/api";
import { createRemoteClient, signFreshness } from "../../mod.ts";
import { FakeClock } from "../_fake_clock.ts";
import {
  DRIVEN_BY_REFRESH,
  ecdsa,
  remoteOptions,
  TARGET,
  test,
  V1,
  V2,
} from "../clients/_remote_fixtures.ts";
import { answer, ok, StubFetch } from "../clients/_stub_fetch.ts";
import { assertThrowsCode } from "../_assert_policy_error.ts";
import { millis, Sdk } from "./_sdk.ts";

test("polls: load spans with fetch spans inside, fetch durations, updates by outcome, state gauges", async () => {
  const sdk = new Sdk();
  const clock = new FakeClock();
  const stub = new StubFetch(ok(V1, '"v1"'));
  // Each request takes 30 ms of the client's clock.
  const fetch: typeof stub.fetch = (url, init) => {
    clock.tick(30);
    return stub.fetch(url, init);
  };
  const client = await createRemoteClient(remoteOptions("https://a.test", {
    baseUrl: ["https://a.test", "https://b.test:8443"],
    ...DRIVEN_BY_REFRESH,
    clock,
    fetch,
    maxStalenessMs: 60_000,
    telemetry: sdk.telemetry(),
  }));
  try {
    stub.script(answer(304));
    assert.equal((await client.refresh()).outcome, "unchanged");
    stub.script(answer(503), answer(503), answer(503), answer(503), answer(503), answer(503));
    for (let i = 0; i < 3; i++) assert.equal((await client.refresh()).outcome, "failed");
    assert.deepEqual(await sdk.points("policy.client.degraded"), [[
      { "policy.origin": "remote" },
      1,
    ]]);
    assert.deepEqual(await sdk.points("policy.client.consecutive_failures"), [
      [{ "policy.origin": "remote" }, 3],
    ]);
    clock.tick(60_001);
    assertThrowsCode(() => client.evaluate({ target: TARGET }), "BUNDLE_STALE");
    assert.deepEqual(await sdk.points("policy.client.stale"), [[{ "policy.origin": "remote" }, 1]]);
    assert.deepEqual(await sdk.points("policy.evaluation.errors"), [
      [{ "error.type": "BUNDLE_STALE" }, 1],
    ]);
    stub.script(ok(V2, '"v2"'));
    assert.equal((await client.refresh()).outcome, "updated");

    assert.deepEqual(await sdk.points("policy.bundle.updates"), [
      [{ "error.type": "REMOTE_UNAVAILABLE", outcome: "failed", "policy.origin": "remote" }, 3],
      [{ outcome: "unchanged", "policy.origin": "remote" }, 1],
      [{ outcome: "updated", "policy.origin": "remote" }, 2],
    ]);
    const fetches = await sdk.histogram("policy.bundle.fetch.duration");
    const byKey = Object.fromEntries(
      fetches.map((p) => [JSON.stringify(p.attributes), [p.count, Number(p.sum.toFixed(6))]]),
    );
    assert.deepEqual(byKey, {
      [
        JSON.stringify({
          "server.address": "a.test",
          "server.port": 443,
          "http.response.status_code": 200,
        })
      ]: [2, 0.06],
      [
        JSON.stringify({
          "server.address": "a.test",
          "server.port": 443,
          "http.response.status_code": 304,
        })
      ]: [1, 0.03],
      [
        JSON.stringify({
          "server.address": "a.test",
          "server.port": 443,
          "http.response.status_code": 503,
          "error.type": "503",
        })
      ]: [3, 0.09],
      [
        JSON.stringify({
          "server.address": "b.test",
          "server.port": 8443,
          "http.response.status_code": 503,
          "error.type": "503",
        })
      ]: [3, 0.09],
    });

    const loads = sdk.spans("policy.bundle.load");
    assert.equal(loads.length, 6);
    const failedLoad = loads[2]!;
    assert.equal(failedLoad.status.code, SpanStatusCode.ERROR);
    assert.equal(failedLoad.attributes["error.type"], "REMOTE_UNAVAILABLE");
    assert.equal(failedLoad.attributes["outcome"], "failed");
    // Its two requests, one per origin, are CLIENT spans inside it.
    const inside = sdk.spans("policy.bundle.fetch").filter((s) =>
      s.parentSpanContext?.spanId === failedLoad.spanContext().spanId
    );
    assert.deepEqual(inside.map((s) => s.attributes["server.address"]), ["a.test", "b.test"]);
    for (const span of inside) {
      assert.equal(span.kind, SpanKind.CLIENT);
      assert.equal(span.status.code, SpanStatusCode.ERROR);
      assert.equal(span.attributes["http.response.status_code"], 503);
      assert.equal(span.attributes["http.request.method"], "GET");
      assert.equal(millis(span.endTime) - millis(span.startTime), 30);
    }
    assert.equal(millis(failedLoad.endTime) - millis(failedLoad.startTime), 60);
    const last = loads[5]!;
    assert.equal(last.attributes["policy.bundle.version"], 2);
    assert.equal(last.attributes["outcome"], "updated");
    assert.deepEqual(await sdk.points("policy.client.degraded"), [[
      { "policy.origin": "remote" },
      0,
    ]]);
    assert.deepEqual(await sdk.points("policy.bundle.version"), [[
      { "policy.origin": "remote" },
      2,
    ]]);
  } finally {
    await client.close();
    await sdk.shutdown();
  }
});

test("a freshness statement in force: its age and time to expiry as gauges, in seconds", async () => {
  const sdk = new Sdk();
  const clock = new FakeClock();
  const bundle = JSON.parse(V1);
  bundle.freshness = await signFreshness(bundle, {
    algorithm: "ECDSA_SHA_256",
    key: ecdsa.privateKey,
    keyId: "control-plane-1",
    issuedAt: clock.wallNow() - 120_000,
    expiresAt: clock.wallNow() + 3_600_000,
  });
  const stub = new StubFetch(ok(JSON.stringify(bundle), '"f1"'));
  const client = await createRemoteClient(remoteOptions("https://a.test", {
    ...DRIVEN_BY_REFRESH,
    clock,
    fetch: stub.fetch,
    telemetry: sdk.telemetry(),
  }));
  try {
    assert.deepEqual(await sdk.points("policy.bundle.age"), [[{ "policy.origin": "remote" }, 120]]);
    assert.deepEqual(await sdk.points("policy.bundle.expires_in"), [
      [{ "policy.origin": "remote" }, 3600],
    ]);
    clock.tick(600_000);
    assert.deepEqual(await sdk.points("policy.bundle.age"), [[{ "policy.origin": "remote" }, 720]]);
    assert.deepEqual(await sdk.points("policy.bundle.expires_in"), [
      [{ "policy.origin": "remote" }, 3000],
    ]);
    // Expired: an evaluation is refused, and counted as an evaluation error with its code.
    clock.tick(3_000_000 + DEFAULT_CLOCK_SKEW_MS + 1);
    const request = { target: { service: "s", resource: "r", action: "a" } };
    assert.throws(() => client.evaluate(request), /BUNDLE_EXPIRED|expired/);
    assert.deepEqual(await sdk.points("policy.evaluation.errors"), [
      [{ "error.type": "BUNDLE_EXPIRED" }, 1],
    ]);
  } finally {
    await client.close();
    await sdk.shutdown();
  }
});

test("a remote client that cannot start reports the failed load, with the first origin's code", async () => {
  const sdk = new Sdk();
  const stub = new StubFetch(answer(401));
  await assert.rejects(
    createRemoteClient(remoteOptions("https://a.test", {
      ...DRIVEN_BY_REFRESH,
      clock: new FakeClock(),
      fetch: stub.fetch,
      telemetry: sdk.telemetry(),
    })),
    { code: "REMOTE_UNAUTHORIZED" },
  );
  try {
    assert.deepEqual(await sdk.points("policy.bundle.updates"), [
      [{ "error.type": "REMOTE_UNAUTHORIZED", outcome: "failed", "policy.origin": "remote" }, 1],
    ]);
    assert.deepEqual(await sdk.points("policy.bundle.version"), []);
  } finally {
    await sdk.shutdown();
  }
});
