// createTelemetry against the real OpenTelemetry SDKs with in-memory
// exporters (docs/observability.md): a local client and an enforcer driven
// through decisions, errors, reloads and throttles, and the exact counts,
// attributes, units, spans and times they report.
import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { metrics, SpanKind, SpanStatusCode } from "@opentelemetry/api";
import { DataPointType } from "@opentelemetry/sdk-metrics";
import { createLocalClient } from "../../mod.ts";
import { createEnforcer, createMemoryStore, type ThrottleStore } from "../../src/enforce/mod.ts";
import { createTelemetry } from "../../src/otel/mod.ts";
import { PACKAGE_VERSION } from "../../src/_internal/version.ts";
import { FakeClock } from "../_fake_clock.ts";
import { withTempDir } from "../temp_dir.ts";
import { assertRejectsCode, assertThrowsCode } from "../_assert_policy_error.ts";
import { millis, Sdk } from "./_sdk.ts";
import { bundle, TARGETS } from "./_bundle.ts";

const { REPORT, ADMIN, OTHER } = TARGETS;

Deno.test("a local client and an enforcer report every name of docs/observability.md, exactly", async () => {
  await withTempDir(async (dir) => {
    const sdk = new Sdk();
    const clock = new FakeClock();
    const telemetry = sdk.telemetry();
    const bundlePath = `${dir}/bundle.json`;
    await writeFile(bundlePath, JSON.stringify(bundle(7)));
    const client = await createLocalClient({
      bundlePath,
      allowUnsigned: true,
      clock,
      telemetry,
      contextPolicy: { allowedKeys: ["role", "user"] },
    });
    // A store that takes 2 ms of the fake clock per call.
    const memory = createMemoryStore({ clock });
    const store: ThrottleStore = {
      system: "memory-test",
      hit: (...args) => {
        clock.tick(2);
        return memory.hit(...args);
      },
    };
    const enforcer = createEnforcer({ telemetry, store, clock });
    try {
      for (let i = 0; i < 3; i++) client.evaluate({ target: ADMIN, context: { role: "admin" } });
      for (let i = 0; i < 2; i++) client.evaluate({ target: ADMIN, context: { role: "user" } });
      client.evaluate({ target: OTHER });
      assertThrowsCode(
        () => client.evaluate({ target: ADMIN, context: { evil: 1 } }),
        "CONTEXT_KEY_NOT_ALLOWED",
      );
      const results = [];
      for (let i = 0; i < 3; i++) {
        const decision = client.evaluate({ target: REPORT, context: { user: "ann" } });
        results.push((await enforcer.enforce(decision, { user: "ann" })).proceed);
      }
      assert.deepEqual(results, [true, true, false]);
      const allow = client.evaluate({ target: ADMIN, context: { role: "admin" } });
      assert.equal((await enforcer.enforce(allow)).proceed, true);

      const metrics = await sdk.metrics();
      const decisions = metrics.get("policy.decisions")!;
      assert.equal(decisions.descriptor.unit, "{decision}");
      assert.equal(decisions.dataPointType, DataPointType.SUM);
      assert.equal((decisions as { isMonotonic?: boolean }).isMonotonic, true);
      assert.deepEqual(await sdk.points("policy.decisions"), [
        [{ "policy.decision": "allow", "policy.key": "admin", "policy.reason": "rule" }, 4],
        [{ "policy.decision": "deny", "policy.key": "admin", "policy.reason": "default" }, 2],
        [{ "policy.decision": "deny", "policy.reason": "default" }, 1],
        [{ "policy.decision": "throttle", "policy.key": "reports", "policy.reason": "rule" }, 3],
      ]);
      assert.deepEqual(await sdk.points("policy.evaluation.errors"), [
        [{ "error.type": "CONTEXT_KEY_NOT_ALLOWED" }, 1],
      ]);
      assert.deepEqual(await sdk.points("policy.bundle.updates"), [
        [{ outcome: "updated", "policy.origin": "local" }, 1],
      ]);
      assert.deepEqual(await sdk.points("policy.bundle.version"), [[
        { "policy.origin": "local" },
        7,
      ]]);
      assert.deepEqual(await sdk.points("policy.client.stale"), [[
        { "policy.origin": "local" },
        0,
      ]]);
      assert.deepEqual(await sdk.points("policy.client.degraded"), [[
        { "policy.origin": "local" },
        0,
      ]]);
      assert.deepEqual(await sdk.points("policy.client.consecutive_failures"), [
        [{ "policy.origin": "local" }, 0],
      ]);
      // No freshness statement: no age, no expiry.
      assert.deepEqual(await sdk.points("policy.bundle.age"), []);
      assert.deepEqual(await sdk.points("policy.bundle.expires_in"), []);
      assert.deepEqual(await sdk.points("policy.rate_limit.requests"), [
        [{ "policy.key": "reports", "policy.rate_limit.result": "admitted" }, 2],
        [{ "policy.key": "reports", "policy.rate_limit.result": "limited" }, 1],
      ]);
      const storeDurations = await sdk.histogram("policy.rate_limit.store.duration");
      assert.deepEqual(storeDurations, [{
        attributes: { "db.system.name": "memory-test" },
        count: 3,
        sum: 0.006,
      }]);
      assert.equal(metrics.get("policy.rate_limit.store.duration")!.descriptor.unit, "s");

      // Spans: one load, one enforce per verdict, no evaluate span by default.
      const [load, ...more] = sdk.spans("policy.bundle.load");
      assert.equal(more.length, 0);
      assert.equal(load!.kind, SpanKind.INTERNAL);
      assert.equal(load!.instrumentationScope.name, "@policy/runtime");
      assert.equal(load!.instrumentationScope.version, PACKAGE_VERSION);
      assert.equal(load!.attributes["policy.bundle.version"], 7);
      assert.match(String(load!.attributes["policy.bundle.checksum"]), /^sha256:[0-9a-f]{64}$/);
      assert.equal(load!.attributes["outcome"], "updated");
      assert.equal(millis(load!.startTime), Date.UTC(2026, 10, 21, 9, 0, 0));
      const enforced = sdk.spans("policy.enforce");
      assert.equal(enforced.length, 4);
      assert.deepEqual(
        enforced.map((s) => [s.attributes["policy.key"], s.attributes["policy.rate_limit.result"]]),
        [["reports", "admitted"], ["reports", "admitted"], ["reports", "limited"], [
          "admin",
          undefined,
        ]],
      );
      assert.equal(enforced[0]!.attributes["policy.decision"], "throttle");
      assert.equal(enforced[0]!.attributes["db.system.name"], "memory-test");
      // The bundle in force of the one client this telemetry observes decided what is enforced.
      for (const span of enforced) {
        assert.equal(span.attributes["policy.bundle.version"], 7);
        assert.equal(
          span.attributes["policy.bundle.checksum"],
          load!.attributes["policy.bundle.checksum"],
        );
      }
      // Timed on the enforcer's clock: the store call took 2 ms of it.
      assert.equal(millis(enforced[0]!.endTime) - millis(enforced[0]!.startTime), 2);
      assert.equal(sdk.spans("policy.evaluate").length, 0);
    } finally {
      await client.close();
      await sdk.shutdown();
    }
  });
});

Deno.test("a closed client is no longer observed by the gauges", async () => {
  await withTempDir(async (dir) => {
    // Delta: a collection shows only the series observed in it.
    const sdk = new Sdk({ delta: true });
    const bundlePath = `${dir}/bundle.json`;
    await writeFile(bundlePath, JSON.stringify(bundle(7)));
    const client = await createLocalClient({
      bundlePath,
      allowUnsigned: true,
      clock: new FakeClock(),
      telemetry: sdk.telemetry(),
    });
    try {
      assert.deepEqual(await sdk.points("policy.bundle.version"), [[
        { "policy.origin": "local" },
        7,
      ]]);
      await client.close();
      assert.deepEqual(await sdk.points("policy.bundle.version"), []);
    } finally {
      await client.close();
      await sdk.shutdown();
    }
  });
});

/**
 * Runs `fn` with a local client watching `bundle.json` (bundle 1) in a
 * scratch folder, on a fake clock, reporting to an in-memory SDK. `check`
 * writes the file when given a text, then runs the watch's next check to
 * its end.
 */
async function withWatchedClient(
  fn: (
    sdk: Sdk,
    check: (text?: string) => Promise<void>,
    bundlePath: string,
    errors: string[],
  ) => Promise<void>,
): Promise<void> {
  await withTempDir(async (dir) => {
    const sdk = new Sdk();
    const clock = new FakeClock();
    const bundlePath = `${dir}/bundle.json`;
    await writeFile(bundlePath, JSON.stringify(bundle(1)));
    const errors: string[] = [];
    const client = await createLocalClient({
      bundlePath,
      allowUnsigned: true,
      clock,
      watch: { intervalMs: 1000 },
      telemetry: sdk.telemetry(),
      onError: (error) => errors.push(error.code),
    });
    const check = async (text?: string) => {
      if (text !== undefined) await writeFile(bundlePath, text);
      const next = clock.nextTimer();
      clock.tick(1000);
      await next;
    };
    try {
      await fn(sdk, check, bundlePath, errors);
    } finally {
      await client.close();
      await sdk.shutdown();
    }
  });
}

Deno.test("reloads of a watched file: updated, unchanged, rejected with error.type, failures as a gauge", async () => {
  await withWatchedClient(async (sdk, check, _bundlePath, errors) => {
    await check(JSON.stringify(bundle(2)));
    await check("{ not json");
    const failed = sdk.spans("policy.bundle.load")[2]!;
    assert.equal(failed.status.code, SpanStatusCode.ERROR);
    assert.equal(failed.attributes["error.type"], "BUNDLE_PARSE_ERROR");
    assert.deepEqual(await sdk.points("policy.client.consecutive_failures"), [
      [{ "policy.origin": "local" }, 1],
    ]);
    await check(JSON.stringify(bundle(2), null, 2));
    assert.deepEqual(errors, ["BUNDLE_PARSE_ERROR"]);
    assert.deepEqual(await sdk.points("policy.bundle.updates"), [
      [{ "error.type": "BUNDLE_PARSE_ERROR", outcome: "rejected", "policy.origin": "local" }, 1],
      [{ outcome: "unchanged", "policy.origin": "local" }, 1],
      [{ outcome: "updated", "policy.origin": "local" }, 2],
    ]);
    assert.deepEqual(await sdk.points("policy.client.consecutive_failures"), [
      [{ "policy.origin": "local" }, 0],
    ]);
    assert.deepEqual(await sdk.points("policy.bundle.version"), [[
      { "policy.origin": "local" },
      2,
    ]]);
  });
});

Deno.test("a reload that cannot read the file is a failed load span too, once per cause", async () => {
  await withWatchedClient(async (sdk, check, bundlePath, errors) => {
    await Deno.remove(bundlePath);
    await check();
    await check(); // still gone: not a second failure
    assert.deepEqual(errors, ["BUNDLE_READ_ERROR"]);
    const loads = sdk.spans("policy.bundle.load");
    assert.equal(loads.length, 2, "the start, then the failed reload");
    assert.equal(loads[1]!.status.code, SpanStatusCode.ERROR);
    assert.equal(loads[1]!.attributes["error.type"], "BUNDLE_READ_ERROR");
    assert.equal(loads[1]!.attributes.outcome, "failed");
    assert.deepEqual(await sdk.points("policy.bundle.updates"), [
      [{ "error.type": "BUNDLE_READ_ERROR", outcome: "failed", "policy.origin": "local" }, 1],
      [{ outcome: "updated", "policy.origin": "local" }, 1],
    ]);
  });
});

Deno.test("a client that cannot start reports a failed load with its code", async () => {
  const sdk = new Sdk();
  try {
    await assertRejectsCode(
      createLocalClient({
        bundlePath: ".tmp/no-such-bundle.json",
        allowUnsigned: true,
        telemetry: sdk.telemetry(),
      }),
      "BUNDLE_READ_ERROR",
    );
    assert.deepEqual(await sdk.points("policy.bundle.updates"), [
      [{ "error.type": "BUNDLE_READ_ERROR", outcome: "failed", "policy.origin": "local" }, 1],
    ]);
    const [load] = sdk.spans("policy.bundle.load");
    assert.equal(load!.status.code, SpanStatusCode.ERROR);
  } finally {
    await sdk.shutdown();
  }
});

Deno.test("evaluateSampleRate 1 traces each evaluate; ruleIdAttribute adds policy.rule.id", async () => {
  await withTempDir(async (dir) => {
    const sdk = new Sdk();
    const bundlePath = `${dir}/bundle.json`;
    await writeFile(bundlePath, JSON.stringify(bundle(3)));
    const client = await createLocalClient({
      bundlePath,
      allowUnsigned: true,
      clock: new FakeClock(),
      telemetry: sdk.telemetry({ evaluateSampleRate: 1, ruleIdAttribute: true }),
    });
    try {
      client.evaluate({ target: ADMIN, context: { role: "admin" } });
      client.evaluate({ target: ADMIN });
      const spans = sdk.spans("policy.evaluate");
      assert.equal(spans.length, 2);
      assert.equal(spans[0]!.attributes["policy.key"], "admin");
      assert.equal(spans[0]!.attributes["policy.decision"], "allow");
      assert.equal(spans[1]!.attributes["policy.decision"], "deny");
      assert.equal(spans[0]!.attributes["policy.bundle.version"], 3);
      assert.deepEqual(await sdk.points("policy.decisions"), [
        [{
          "policy.decision": "allow",
          "policy.key": "admin",
          "policy.reason": "rule",
          "policy.rule.id": "admins",
        }, 1],
        [{ "policy.decision": "deny", "policy.key": "admin", "policy.reason": "default" }, 1],
      ]);
    } finally {
      await client.close();
      await sdk.shutdown();
    }
  });
});

Deno.test("the enforcer counts store failures by whenStoreFails, with error.type, and fails the span", async () => {
  const sdk = new Sdk();
  const telemetry = sdk.telemetry();
  const broken: ThrottleStore = { hit: () => Promise.reject(new Error("down")) };
  const decision = {
    decision: "throttle",
    reason: "rule",
    policyKey: "reports",
    ruleId: "per-user",
    throttle: { limit: 1, windowSeconds: 1, key: "user" },
  } as const;
  try {
    const closed = createEnforcer({ telemetry, store: broken, onError: () => {} });
    const open = createEnforcer({
      telemetry,
      store: broken,
      whenStoreFails: "open",
      onError: () => {},
    });
    assert.equal((await closed.enforce(decision, { user: "a" })).proceed, false);
    assert.equal((await open.enforce(decision, { user: "a" })).proceed, true);
    assert.deepEqual(await sdk.points("policy.rate_limit.requests"), [
      [{ "policy.key": "reports", "policy.rate_limit.result": "store_error_closed" }, 1],
      [{ "policy.key": "reports", "policy.rate_limit.result": "store_error_open" }, 1],
    ]);
    const [histogram] = await sdk.histogram("policy.rate_limit.store.duration");
    // A store that does not say what it is: no db.system.name.
    assert.deepEqual(histogram!.attributes, { "error.type": "THROTTLE_STORE_UNAVAILABLE" });
    assert.equal(histogram!.count, 2);
    for (const span of sdk.spans("policy.enforce")) {
      assert.equal(span.status.code, SpanStatusCode.ERROR);
      assert.equal(span.attributes["error.type"], "THROTTLE_STORE_UNAVAILABLE");
    }
  } finally {
    await sdk.shutdown();
  }
});

Deno.test("the default memory store is db.system.name memory", async () => {
  const sdk = new Sdk();
  try {
    const enforcer = createEnforcer({ telemetry: sdk.telemetry(), clock: new FakeClock() });
    const decision = {
      decision: "throttle",
      reason: "rule",
      policyKey: "reports",
      ruleId: "per-user",
      throttle: { limit: 1, windowSeconds: 1, key: "user" },
    } as const;
    assert.equal((await enforcer.enforce(decision, { user: "a" })).proceed, true);
    assert.deepEqual(await sdk.histogram("policy.rate_limit.store.duration"), [{
      attributes: { "db.system.name": "memory" },
      count: 1,
      sum: 0,
    }]);
  } finally {
    await sdk.shutdown();
  }
});

Deno.test("without an SDK, createTelemetry is a no-op that changes no decision", async () => {
  const telemetry = createTelemetry();
  const client = await createLocalClient({
    bundlePath: new URL("../../examples/bundle.json", import.meta.url).pathname,
    allowUnsigned: true,
    telemetry,
  });
  try {
    const target = { service: "billing", resource: "invoice", action: "create" };
    assert.equal(client.evaluate({ target, context: { plan: "pro" } }).decision, "allow");
    assert.equal(
      (await createEnforcer({ telemetry }).enforce(client.evaluate({ target }))).proceed,
      false,
    );
  } finally {
    await client.close();
  }
});

Deno.test("the global meter provider is read when the first client starts, not at createTelemetry", async () => {
  const telemetry = createTelemetry();
  const sdk = new Sdk();
  assert.equal(metrics.setGlobalMeterProvider(sdk.meterProvider), true);
  const client = await createLocalClient({
    bundlePath: new URL("../../examples/bundle.json", import.meta.url).pathname,
    allowUnsigned: true,
    telemetry,
  });
  try {
    client.evaluate({ target: { service: "billing", resource: "invoice", action: "create" } });
    assert.equal((await sdk.points("policy.decisions")).length, 1);
  } finally {
    await client.close();
    metrics.disable();
    await sdk.shutdown();
  }
});

Deno.test("createTelemetry and the telemetry options refuse what they cannot use", () => {
  assertThrowsCode(() => createTelemetry({ meterProvidr: {} } as never), "INVALID_OPTIONS");
  assertThrowsCode(() => createTelemetry({ evaluateSampleRate: 2 }), "INVALID_OPTIONS");
  assertThrowsCode(() => createTelemetry({ meterProvider: {} as never }), "INVALID_OPTIONS");
  assertThrowsCode(() => createEnforcer({ telemetry: {} as never }), "INVALID_OPTIONS");
  // A misspelt telemetry option is refused naming it, not ignored.
  assert.throws(
    () => createEnforcer({ telemetri: createTelemetry() } as never),
    /unknown option "telemetri"; did you mean "telemetry"\?/,
  );
  // A telemetry whose methods are all there (on its prototype) but whose rate is out of range.
  const outOfRange = Object.assign(Object.create(createTelemetry()), { evaluateSampleRate: -1 });
  const refused = assertThrowsCode(
    () => createEnforcer({ telemetry: outOfRange }),
    "INVALID_OPTIONS",
  );
  assert.match(refused.message, /evaluateSampleRate must be a number from 0 to 1/);
});
