// The OpenTelemetry recipe of docs/operations.md, run against the real
// OpenTelemetry metrics SDK: the counter and gauges it registers through
// @opentelemetry/api carry the client's decisions and state.
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { metrics } from "@opentelemetry/api";
import {
  type DataPoint,
  MeterProvider,
  MetricReader,
  type ResourceMetrics,
} from "@opentelemetry/sdk-metrics";
import { createRemoteClient } from "../../mod.ts";
import { countDecisions, observeClient } from "../../examples/operations/otel_metrics.ts";
import { FakeClock } from "../_fake_clock.ts";
import { remoteOptions, TARGET, test, V1, V2 } from "../clients/_remote_fixtures.ts";
import { answer, ok, StubFetch } from "../clients/_stub_fetch.ts";

/** A reader that collects on demand. */
class TestReader extends MetricReader {
  protected override onForceFlush(): Promise<void> {
    return Promise.resolve();
  }
  protected override onShutdown(): Promise<void> {
    return Promise.resolve();
  }
}

/** The data points of metric `name`, as [attributes, value] pairs. */
function points(collected: ResourceMetrics, name: string): [Record<string, unknown>, unknown][] {
  const metric = collected.scopeMetrics.flatMap((scope) => scope.metrics)
    .find((m) => m.descriptor.name === name);
  assert.ok(metric !== undefined, `metric ${name} collected`);
  return (metric.dataPoints as DataPoint<number>[]).map((p) => [p.attributes, p.value]);
}

test("the OpenTelemetry recipe: decisions counted by outcome (scaled by the sample rate), client state as gauges", async () => {
  const reader = new TestReader();
  const provider = new MeterProvider({ readers: [reader] });
  // The recipe's default meter is the global one, as in an application.
  assert.equal(metrics.setGlobalMeterProvider(provider), true);
  const stub = new StubFetch(ok(V1, '"v1"'), answer(503));
  const client = await createRemoteClient(remoteOptions("https://cp.test", {
    clock: new FakeClock(),
    fetch: stub.fetch,
    poll: { intervalMs: 3_600_000 },
    onDecision: countDecisions(),
    decisionLog: { sampleRate: 0.5 },
    random: (() => {
      let n = 0;
      return () => (n++ % 2 === 0 ? 0.25 : 0.75);
    })(),
  }));
  try {
    observeClient(client);
    for (let i = 0; i < 10; i++) client.evaluate({ target: TARGET });
    for (let i = 0; i < 3; i++) await client.refresh();
    const { resourceMetrics, errors } = await reader.collect();
    assert.deepEqual(errors, []);
    const decisions = points(resourceMetrics, "policy.decisions");
    assert.equal(decisions.length, 1);
    const [attributes, value] = decisions[0]!;
    assert.deepEqual(attributes, {
      "policy.decision": "allow",
      "policy.reason": "rule",
      "policy.key": "checkout",
    });
    // 10 decisions, half of them sampled at 0.5: an estimate of 10.
    assert.equal(value, 10);
    assert.deepEqual(points(resourceMetrics, "policy.bundle.version"), [[{}, 1]]);
    assert.deepEqual(points(resourceMetrics, "policy.client.degraded"), [[{}, 1]]);
    assert.deepEqual(points(resourceMetrics, "policy.client.stale"), [[{}, 0]]);
    assert.deepEqual(points(resourceMetrics, "policy.client.consecutive_failures"), [[{}, 3]]);
    stub.script(ok(V2, '"v2"'));
    await client.refresh();
    const after = (await reader.collect()).resourceMetrics;
    assert.deepEqual(points(after, "policy.bundle.version"), [[{}, 2]]);
    assert.deepEqual(points(after, "policy.client.degraded"), [[{}, 0]]);
  } finally {
    await client.close();
    await provider.shutdown();
    metrics.disable();
  }
});

test("docs/operations.md shows the recipe verbatim", async () => {
  const source = await readFile(
    new URL("../../examples/operations/otel_metrics.ts", import.meta.url),
    "utf8",
  );
  const start = source.indexOf("/**\n * An `onDecision` hook");
  const end = source.indexOf("// END recipe");
  const recipe = source.slice(start, end).trimEnd();
  assert.ok(start > 0 && recipe.length > 1_000);
  const docs = await readFile(new URL("../../docs/operations.md", import.meta.url), "utf8");
  assert.ok(docs.includes(recipe), "docs/operations.md must show the recipe verbatim");
});
