/**
 * OpenTelemetry for the policy runtime (docs/observability.md): metrics,
 * spans and events of the clients, the enforcer, the decision logs and the
 * OpenFeature providers, on `@opentelemetry/api`, and a decision-log sink
 * that emits records as OpenTelemetry log records.
 *
 * `@opentelemetry/api` (1.9 or later; 1.10 for the global logs API) is a
 * peer dependency of this module alone: nothing else of the package loads
 * it. Without an OpenTelemetry SDK, the API is a no-op and so is this.
 *
 * @example A client and an enforcer, measured
 * ```ts
 * import { createTelemetry } from "./mod.ts";
 * import { createLocalClient } from "../clients/mod.ts";
 * import { createEnforcer } from "../enforce/mod.ts";
 * import { MeterProvider, MetricReader } from "@opentelemetry/sdk-metrics";
 * import assert from "node:assert/strict";
 *
 * class Reader extends MetricReader {
 *   protected override onForceFlush() { return Promise.resolve(); }
 *   protected override onShutdown() { return Promise.resolve(); }
 * }
 * const reader = new Reader();
 * const telemetry = createTelemetry({ meterProvider: new MeterProvider({ readers: [reader] }) });
 * const bundlePath = new URL("../../examples/bundle.json", import.meta.url).pathname;
 * await using client = await createLocalClient({ bundlePath, allowUnsigned: true, telemetry });
 * const enforcer = createEnforcer({ telemetry });
 * const decision = client.evaluate({
 *   target: { service: "billing", resource: "invoice", action: "create" },
 *   context: { plan: "pro" },
 * });
 * assert.equal((await enforcer.enforce(decision)).proceed, true);
 *
 * const { resourceMetrics } = await reader.collect();
 * const scope = resourceMetrics.scopeMetrics[0]!;
 * assert.equal(scope.scope.name, "@policy/runtime");
 * const names = scope.metrics.map((metric) => metric.descriptor.name);
 * assert.ok(names.includes("policy.decisions"));
 * assert.ok(names.includes("policy.bundle.updates"));
 * ```
 *
 * @module
 */
export {
  createTelemetry,
  type OtelAttributes,
  type OtelLoggerProvider,
  type OtelLogRecord,
  type OtelMeterProvider,
  type OtelTelemetry,
  type OtelTracerProvider,
  type TelemetryOptions,
} from "./create_telemetry.ts";
export {
  createOtelDecisionLog,
  DEFAULT_FLUSH_RECORDS,
  DEFAULT_MAX_BUFFER_RECORDS,
  DEFAULT_OTEL_FLUSH_INTERVAL_MS,
  type OtelDecisionLog,
  type OtelDecisionLogOptions,
  type OtelDecisionLogStats,
} from "./create_otel_decision_log.ts";
// The interface the library's `telemetry` options take.
export type * from "../telemetry/types.ts";
// The library's one clock, the type of this module's `clock` options.
export type { Clock } from "../public/clock.ts";
