/**
 * The real OpenTelemetry SDKs with in-memory exporters, for exact counts,
 * attributes and spans: a meter provider whose reader collects on demand,
 * a tracer provider and a logger provider that keep what they export.
 *
 * @module
 */
import assert from "node:assert/strict";
import {
  AggregationTemporality,
  type DataPoint,
  type Histogram,
  MeterProvider,
  type MetricData,
  MetricReader,
} from "@opentelemetry/sdk-metrics";
import {
  InMemorySpanExporter,
  SimpleSpanProcessor,
  TracerProvider,
} from "@opentelemetry/sdk-trace";
import type { ReadableSpan } from "@opentelemetry/sdk-trace";
import {
  InMemoryLogRecordExporter,
  LoggerProvider,
  SimpleLogRecordProcessor,
} from "@opentelemetry/sdk-logs";
import type { ReadableLogRecord } from "@opentelemetry/sdk-logs";
import { createTelemetry, type OtelTelemetry, type TelemetryOptions } from "../../src/otel/mod.ts";

/** A reader that collects when asked. */
class TestReader extends MetricReader {
  protected override onForceFlush(): Promise<void> {
    return Promise.resolve();
  }
  protected override onShutdown(): Promise<void> {
    return Promise.resolve();
  }
}

/** Attributes and value of one data point. */
export type Point = [Record<string, unknown>, number];

/** The three SDKs, a telemetry on them, and what they collected. */
export class Sdk {
  readonly reader: TestReader;
  readonly meterProvider: MeterProvider;

  /**
   * With `delta`, each collection reports only what was recorded or
   * observed since the last one (a gauge no callback observes any more is
   * absent); else cumulative, as a Prometheus exporter reads.
   */
  constructor({ delta = false }: { delta?: boolean } = {}) {
    this.reader = new TestReader(
      delta ? { aggregationTemporalitySelector: () => AggregationTemporality.DELTA } : {},
    );
    this.meterProvider = new MeterProvider({ readers: [this.reader] });
  }

  readonly spanExporter = new InMemorySpanExporter();
  readonly tracerProvider = new TracerProvider({
    spanProcessors: [new SimpleSpanProcessor({ exporter: this.spanExporter })],
  });
  readonly logExporter = new InMemoryLogRecordExporter();
  readonly loggerProvider = new LoggerProvider({
    processors: [new SimpleLogRecordProcessor({ exporter: this.logExporter })],
  });

  /** A telemetry on these SDKs, with `options`. */
  telemetry(
    options: Omit<TelemetryOptions, "meterProvider" | "tracerProvider"> = {},
  ): OtelTelemetry {
    return createTelemetry({
      meterProvider: this.meterProvider,
      tracerProvider: this.tracerProvider,
      loggerProvider: this.loggerProvider,
      ...options,
    });
  }

  /** Every metric collected now, by name. */
  async metrics(): Promise<Map<string, MetricData>> {
    const { resourceMetrics, errors } = await this.reader.collect();
    assert.deepEqual(errors, []);
    const out = new Map<string, MetricData>();
    for (const scope of resourceMetrics.scopeMetrics) {
      assert.equal(scope.scope.name, "@policy/runtime");
      for (const metric of scope.metrics) out.set(metric.descriptor.name, metric);
    }
    return out;
  }

  /** The data points of the sum or gauge `name`, sorted by their attributes. */
  async points(name: string): Promise<Point[]> {
    const metric = (await this.metrics()).get(name);
    if (metric === undefined) return [];
    return (metric.dataPoints as DataPoint<number>[])
      .map((p): Point => [sortedKeys(p.attributes), p.value])
      .sort((a, b) => JSON.stringify(a[0]).localeCompare(JSON.stringify(b[0])));
  }

  /** The data points of histogram `name`: attributes, count and sum. */
  async histogram(
    name: string,
  ): Promise<{ attributes: Record<string, unknown>; count: number; sum: number }[]> {
    const metric = (await this.metrics()).get(name);
    if (metric === undefined) return [];
    return (metric.dataPoints as DataPoint<Histogram>[]).map((p) => ({
      attributes: { ...p.attributes },
      count: p.value.count,
      sum: p.value.sum ?? NaN,
    }));
  }

  /** The finished spans named `name`, in the order they ended. */
  spans(name?: string): ReadableSpan[] {
    return this.spanExporter.getFinishedSpans().filter((s) =>
      name === undefined || s.name === name
    );
  }

  /** The log records emitted, with event name `eventName`. */
  logs(eventName?: string): ReadableLogRecord[] {
    return this.logExporter.getFinishedLogRecords()
      .filter((r) => eventName === undefined || r.eventName === eventName);
  }

  /** Shuts the SDKs down, once their exports in progress are done (no timer left behind). */
  async shutdown(): Promise<void> {
    await this.tracerProvider.forceFlush();
    await this.loggerProvider.forceFlush();
    await this.meterProvider.shutdown();
    await this.tracerProvider.shutdown();
    await this.loggerProvider.shutdown();
  }
}

/** `attributes` with its keys in order (what the sort of points compares). */
function sortedKeys(attributes: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(attributes).sort(([a], [b]) => a < b ? -1 : 1));
}

/** A span's start or end as milliseconds since the epoch. */
export function millis(time: [number, number]): number {
  return time[0] * 1000 + time[1] / 1e6;
}
