// Decision logs and the telemetry (docs/observability.md "Decision logs"):
// the JSON-lines writer counts the lines it writes and every line it loses,
// by reason; a client counts the records its sampling leaves out; and the
// OTLP sink emits each record as an OpenTelemetry log record through the
// real logs SDK, counting what it emits and drops.
import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { createLocalClient, type DecisionRecord } from "../../mod.ts";
import { createDecisionLogWriter } from "../../src/decision_log/mod.ts";
import { createOtelDecisionLog, createTelemetry } from "../../src/otel/mod.ts";
import { FakeClock } from "../_fake_clock.ts";
import { withTempDir } from "../temp_dir.ts";
import { assertThrowsCode } from "../_assert_policy_error.ts";
import { Sdk } from "./_sdk.ts";
import { createRemoteClient } from "../../mod.ts";
import { DRIVEN_BY_REFRESH, remoteOptions, TARGET, test, V1 } from "../clients/_remote_fixtures.ts";
import { ok, StubFetch } from "../clients/_stub_fetch.ts";
import { bundle, TARGETS } from "./_bundle.ts";

const record = (i: number, context: Record<string, unknown> = { i }): DecisionRecord => ({
  timestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
  request: { target: TARGETS.ADMIN, context },
  decision: { decision: "allow", reason: "rule", policyKey: "admin", ruleId: "admins" },
  bundle: { checksum: "sha256:ab", bundleVersion: 3 },
  sampleRate: 1,
});

/** The bytes of one line of {@link record}. */
const LINE_BYTES = new TextEncoder().encode(`${JSON.stringify(record(0))}\n`).byteLength;

Deno.test("the JSON-lines writer counts written lines, and lost ones by reason", async () => {
  const sdk = new Sdk();
  const clock = new FakeClock();
  let fail = false;
  const stream = new WritableStream<Uint8Array>({
    write: () => fail ? Promise.reject(new Error("disk full")) : Promise.resolve(),
  });
  const log = createDecisionLogWriter({
    stream,
    clock,
    // Two lines fit, not three.
    maxBufferBytes: Math.floor(LINE_BYTES * 2.5),
    onError: () => {},
    telemetry: sdk.telemetry(),
  });
  try {
    for (let i = 0; i < 2; i++) log.onDecision(record(i));
    await log.flush();
    for (let i = 0; i < 3; i++) log.onDecision(record(i));
    log.onDecision(record(9, { big: 1n }));
    fail = true;
    await log.flush();
    await log.close();
    log.onDecision(record(10));
    assert.deepEqual(log.stats(), { written: 2, dropped: 5, failedWrites: 1, bufferedBytes: 0 });
    assert.deepEqual(await sdk.points("policy.decision_log.records"), [[{}, 2]]);
    assert.deepEqual(await sdk.points("policy.decision_log.dropped"), [
      [{ reason: "buffer_full" }, 1],
      [{ reason: "closed" }, 1],
      [{ reason: "unserialisable" }, 1],
      [{ reason: "write_failed" }, 2],
    ]);
  } finally {
    await sdk.shutdown();
  }
});

test("a client counts the records its sampleRate leaves out", async () => {
  const sdk = new Sdk();
  const logged: DecisionRecord[] = [];
  let n = 0;
  const client = await createRemoteClient(remoteOptions("https://a.test", {
    ...DRIVEN_BY_REFRESH,
    clock: new FakeClock(),
    fetch: new StubFetch(ok(V1)).fetch,
    telemetry: sdk.telemetry(),
    onDecision: (r) => logged.push(r),
    decisionLog: { sampleRate: 0.25 },
    random: () => (n++ % 4 === 0 ? 0.1 : 0.9),
  }));
  try {
    for (let i = 0; i < 8; i++) client.evaluate({ target: TARGET });
    assert.equal(logged.length, 2);
    assert.deepEqual(await sdk.points("policy.decision_log.dropped"), [
      [{ reason: "sampling" }, 6],
    ]);
    // Every decision is counted, sampled or not.
    assert.deepEqual(await sdk.points("policy.decisions"), [
      [{ "policy.decision": "allow", "policy.key": "checkout", "policy.reason": "rule" }, 8],
    ]);
  } finally {
    await client.close();
    await sdk.shutdown();
  }
});

Deno.test("the OTLP sink emits each record as a log record, off evaluate, and counts drops", async () => {
  await withTempDir(async (dir) => {
    const sdk = new Sdk();
    const clock = new FakeClock();
    const telemetry = sdk.telemetry();
    const log = createOtelDecisionLog({
      telemetry,
      clock,
      maxBufferRecords: 3,
      flushIntervalMs: 500,
    });
    const bundlePath = `${dir}/bundle.json`;
    await writeFile(bundlePath, JSON.stringify(bundle(3)));
    const client = await createLocalClient({
      bundlePath,
      allowUnsigned: true,
      clock,
      onDecision: log.onDecision,
      decisionLog: { maskContextKeys: ["user"] },
    });
    try {
      const context = { role: "admin", user: "ann" };
      for (let i = 0; i < 4; i++) client.evaluate({ target: TARGETS.ADMIN, context });
      // Changed after evaluate: the record was taken as it was.
      context.role = "changed";
      assert.equal(sdk.logs().length, 0, "nothing is emitted inside evaluate");
      assert.deepEqual(log.stats(), { emitted: 0, dropped: 1, buffered: 3 });
      clock.tick(500);
      await sdk.loggerProvider.forceFlush();
      const emitted = sdk.logs("policy.decision");
      assert.equal(emitted.length, 3);
      const [first] = emitted;
      const body = JSON.parse(String(first!.body));
      assert.deepEqual(body.request.context, { role: "admin", user: "[masked]" });
      assert.equal(body.decision.decision, "allow");
      assert.equal(first!.severityText, "INFO");
      assert.equal(first!.instrumentationScope.name, "@policy/runtime");
      assert.equal(first!.hrTime[0] * 1000, clock.wallNow() - 500);
      assert.deepEqual({ ...first!.attributes }, {
        "policy.decision": "allow",
        "policy.reason": "rule",
        "policy.key": "admin",
        "policy.rule.id": "admins",
        "policy.target.service": "app",
        "policy.target.resource": "admin",
        "policy.target.action": "open",
        "policy.bundle.checksum": client.status().checksum,
        "policy.bundle.version": 3,
        "policy.decision_log.sample_rate": 1,
      });
      await log.close();
      log.onDecision(record(1));
      assert.deepEqual(log.stats(), { emitted: 3, dropped: 2, buffered: 0 });
      assert.deepEqual(await sdk.points("policy.decision_log.records"), [[{}, 3]]);
      assert.deepEqual(await sdk.points("policy.decision_log.dropped"), [
        [{ reason: "buffer_full" }, 1],
        [{ reason: "closed" }, 1],
      ]);
    } finally {
      await client.close();
      await log.close();
      await sdk.shutdown();
    }
  });
});

Deno.test("the OTLP sink emits at once once flushRecords wait, and refuses a telemetry without a logger", async () => {
  const sdk = new Sdk();
  const clock = new FakeClock();
  const log = createOtelDecisionLog({ telemetry: sdk.telemetry(), clock, flushRecords: 2 });
  try {
    log.onDecision(record(1));
    assert.deepEqual(clock.pendingDelays(), [1000]);
    log.onDecision(record(2));
    assert.deepEqual(clock.pendingDelays(), [0]);
    clock.tick(0);
    assert.equal(log.stats().emitted, 2);
    assert.equal(clock.pending, 0);
  } finally {
    await log.close();
    await sdk.shutdown();
  }
  const global = createTelemetry();
  // The global logs API of @opentelemetry/api 1.10 is there: a logger, no-op without an SDK.
  assert.notEqual(global.logger, null);
  // As with @opentelemetry/api 1.9 and no loggerProvider.
  const noLogs = Object.assign(Object.create(global), { logger: null });
  assertThrowsCode(() => createOtelDecisionLog({ telemetry: noLogs }), "INVALID_OPTIONS");
  assertThrowsCode(
    () => createOtelDecisionLog({ telemetry: global, maxBufferRecord: 1 } as never),
    "INVALID_OPTIONS",
  );
});
