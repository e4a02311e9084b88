// ./otel from the installed package, under Node, with the real OpenTelemetry
// SDKs installed beside it (docs/observability.md): a local client and an
// enforcer report their decisions, throttles and spans under the package's
// name and version. And without @opentelemetry/api installed (it is a peer
// of ./otel alone), the root, ./clients and ./enforce load, and ./otel names
// what is missing.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { test } from "node:test";
import {
  alone,
  denoJson,
  importDependency,
  importPackage,
  manifest,
  testdata,
} from "./_package.mjs";

const { createTelemetry } = await importPackage("./otel");
const { createLocalClient } = await importPackage("./clients");
const { createEnforcer } = await importPackage("./enforce");
const { MeterProvider, MetricReader } = await importDependency("@opentelemetry/sdk-metrics");
const { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } = await importDependency(
  "@opentelemetry/sdk-trace",
);

class Reader extends MetricReader {
  onForceFlush() {
    return Promise.resolve();
  }
  onShutdown() {
    return Promise.resolve();
  }
}

const TARGET = { service: "app", resource: "report", action: "read" };
/** A throttle of 2 per minute per user on TARGET (the bundle of tests/otel/_bundle.ts). */
const BUNDLE = testdata("otel/bundle.json");

test("a local client and an enforcer, measured through the installed SDKs", async () => {
  const dir = mkdtempSync(join(tmpdir(), "policy-otel-"));
  const reader = new Reader();
  const meterProvider = new MeterProvider({ readers: [reader] });
  const spans = new InMemorySpanExporter();
  const tracerProvider = new TracerProvider({
    spanProcessors: [new SimpleSpanProcessor({ exporter: spans })],
  });
  const telemetry = createTelemetry({ meterProvider, tracerProvider });
  const bundlePath = join(dir, "bundle.json");
  writeFileSync(bundlePath, JSON.stringify(BUNDLE));
  const client = await createLocalClient({ bundlePath, allowUnsigned: true, telemetry });
  try {
    const enforcer = createEnforcer({ telemetry });
    const verdicts = [];
    for (let i = 0; i < 3; i++) {
      const decision = client.evaluate({ target: TARGET, context: { user: "ann" } });
      verdicts.push((await enforcer.enforce(decision, { user: "ann" })).proceed);
    }
    assert.deepEqual(verdicts, [true, true, false]);
    const { resourceMetrics } = await reader.collect();
    const [scope] = resourceMetrics.scopeMetrics;
    assert.equal(scope.scope.name, denoJson.name);
    assert.equal(scope.scope.version, manifest.version);
    const metric = (name) => scope.metrics.find((m) => m.descriptor.name === name);
    assert.deepEqual(
      metric("policy.decisions").dataPoints.map((p) => [p.attributes, p.value]),
      [[{ "policy.decision": "throttle", "policy.reason": "rule", "policy.key": "reports" }, 3]],
    );
    const requests = metric("policy.rate_limit.requests").dataPoints
      .map((p) => [p.attributes["policy.rate_limit.result"], p.value]).sort();
    assert.deepEqual(requests, [["admitted", 2], ["limited", 1]]);
    assert.deepEqual(metric("policy.bundle.version").dataPoints[0].value, 1);
    const names = spans.getFinishedSpans().map((s) => s.name).sort();
    assert.deepEqual(names, [
      "policy.bundle.load",
      "policy.enforce",
      "policy.enforce",
      "policy.enforce",
    ]);
  } finally {
    await client.close();
    await meterProvider.shutdown();
    await tracerProvider.shutdown();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("without @opentelemetry/api installed, the root, ./clients and ./enforce load; ./otel names it", () => {
  const run = (source) =>
    spawnSync(process.execPath, ["--input-type=module", "-e", source], {
      cwd: alone,
      encoding: "utf8",
    });
  const installed = JSON.parse(readFileSync(join(alone, "package.json"), "utf8"));
  assert.deepEqual(Object.keys(installed.dependencies), [denoJson.name]);
  const loads = run(`
    await import("${denoJson.name}");
    await import("${denoJson.name}/clients");
    const { createEnforcer } = await import("${denoJson.name}/enforce");
    console.log(typeof createEnforcer);
  `);
  assert.equal(loads.status, 0, loads.stderr);
  assert.equal(loads.stdout.trim(), "function");
  const missing = run(`await import("${denoJson.name}/otel");`);
  assert.notEqual(missing.status, 0);
  assert.match(missing.stderr, /Cannot find package '@opentelemetry\/api'/);
});
