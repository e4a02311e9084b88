// One case of bench:otel in a process of its own (bench/otel/run.ts starts
// it): only this case's client exists here, so the JIT sees one client, as
// a service has, and no case's code shapes another's. Prints the case's ms
// per call (the fast decile of 2 ms batches) as JSON.
import { MeterProvider, MetricReader } from "@opentelemetry/sdk-metrics";
import { NoopSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";
import { createTelemetry, type TelemetryOptions } from "../../src/otel/mod.ts";
import type { RemoteClientOptions } from "../../mod.ts";
import { memoryClients } from "../_memory_client.ts";
import { QUERIES, scenarioRequests, THREE_RULES } from "../scenarios/mod.ts";
import { measureRounds } from "../_rounds.ts";

/** A reader that collects when asked: the SDK keeps its state, nothing is exported. */
class Reader extends MetricReader {
  protected override onForceFlush(): Promise<void> {
    return Promise.resolve();
  }
  protected override onShutdown(): Promise<void> {
    return Promise.resolve();
  }
}

/**
 * The cases: their bundle's size and the telemetry: none, the global
 * providers (no SDK registered: the API's no-op), or the SDKs with options.
 */
export const CASES: Record<
  string,
  { targets: number; telemetry: TelemetryOptions | "global" | null }
> = {
  "plain": { targets: 1_000, telemetry: null },
  "sdk": { targets: 1_000, telemetry: {} },
  "noop": { targets: 1_000, telemetry: "global" },
  "rule-ids": { targets: 1_000, telemetry: { ruleIdAttribute: true } },
  "traced": { targets: 1_000, telemetry: { evaluateSampleRate: 0.01 } },
  "small-plain": { targets: 10, telemetry: null },
  "small-sdk": { targets: 10, telemetry: {} },
};

if (import.meta.main) {
  const name = Deno.args[0]!;
  const { targets, telemetry } = CASES[name]!;
  const reader = new Reader();
  const meterProvider = new MeterProvider({ readers: [reader] });
  // Spans are made and ended, then dropped: the cost of the span, not of an exporter.
  const tracerProvider = new TracerProvider({ spanProcessors: [new NoopSpanProcessor()] });
  const extra: Partial<RemoteClientOptions> = telemetry === null ? {} : {
    telemetry: telemetry === "global"
      ? createTelemetry()
      : createTelemetry({ meterProvider, tracerProvider, ...telemetry }),
  };
  const client = await (await memoryClients(THREE_RULES.bundle(targets)))(extra);
  const requests = scenarioRequests(THREE_RULES, targets);
  let i = 0;
  const figures = await measureRounds([{
    name,
    fn: () => client.evaluate(requests[i++ & (QUERIES - 1)]!),
  }], { rounds: 1, warmupMs: 300, measureMs: 700 });
  if (telemetry !== null && telemetry !== "global") {
    // The decisions were counted, and a collection reads them.
    const { resourceMetrics } = await reader.collect();
    const counted = resourceMetrics.scopeMetrics[0]?.metrics
      .find((metric) => metric.descriptor.name === "policy.decisions");
    if (counted === undefined || counted.dataPoints.length === 0) {
      throw new Error(`bench:otel ${name}: no policy.decisions were collected`);
    }
  }
  await client.close();
  await meterProvider.shutdown();
  await tracerProvider.shutdown();
  console.log(JSON.stringify({ msPerCall: figures.get(name)![0] }));
}
