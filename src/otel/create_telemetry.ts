/**
 * `createTelemetry`: the library's `Telemetry` (docs/observability.md) on
 * OpenTelemetry's API, so that any OpenTelemetry SDK the application
 * registers (or passes) exports the metrics, spans and events.
 *
 * @module
 */
import * as otel from "@opentelemetry/api";
import type {
  Attributes,
  Counter,
  Histogram,
  Meter,
  MeterProvider,
  Span,
  Tracer,
  TracerProvider,
} from "@opentelemetry/api";
import { SpanKind, SpanStatusCode } from "@opentelemetry/api";
import {
  booleanField,
  checkOptions,
  describeValue,
  type Field,
  type Fields,
  rateField,
} from "../_internal/check_options.ts";
import type { Decision } from "../engine/types.ts";
import type {
  DecisionLogDropReason,
  RateLimitResult,
  Telemetry,
  TelemetryBundleFetch,
  TelemetryBundleUpdate,
  TelemetryClientState,
  TelemetryFlagEvaluation,
  TelemetrySpan,
  TelemetrySpanOptions,
  TelemetryStoreCall,
} from "../telemetry/types.ts";
import {
  ATTRIBUTES,
  EVENTS,
  FETCH_BUCKETS,
  METRICS,
  SCOPE_NAME,
  SCOPE_VERSION,
  SPAN_NAMES,
  STORE_BUCKETS,
} from "./_names.ts";
import { type DecisionTally, decisionTally, Tally } from "./_tally.ts";

/** The `MeterProvider` of `@opentelemetry/api`: an SDK's, or the global one. */
export type OtelMeterProvider = MeterProvider;

/** The `TracerProvider` of `@opentelemetry/api`: an SDK's, or the global one. */
export type OtelTracerProvider = TracerProvider;

/** The `Attributes` of `@opentelemetry/api`: what a log record carries. */
export type OtelAttributes = Attributes;

/**
 * A log record as this module emits it: the fields it sets of
 * OpenTelemetry's `LogRecord` (`@opentelemetry/api` 1.10, or
 * `@opentelemetry/api-logs`).
 */
export interface OtelLogRecord {
  /** The event's name (`feature_flag.evaluation`, `policy.decision`). */
  eventName?: string;
  /** When it happened. */
  timestamp?: Date;
  /** `INFO` (9). */
  severityNumber?: number;
  /** `INFO`. */
  severityText?: string;
  /** The record's body. */
  body?: string;
  /** Its attributes. */
  attributes?: OtelAttributes;
}

/**
 * A `LoggerProvider` of OpenTelemetry's logs API, by the one method used:
 * `@opentelemetry/api` 1.10's, `@opentelemetry/api-logs`'s, or an SDK's.
 */
export interface OtelLoggerProvider {
  /** The logger of an instrumentation scope. */
  getLogger(name: string, version?: string): { emit(record: OtelLogRecord): void };
}

/** Options of {@link createTelemetry}. */
export interface TelemetryOptions {
  /** Where the metrics go. Default: the global one (`metrics.getMeterProvider()`). */
  meterProvider?: OtelMeterProvider;
  /** Where the spans go. Default: the global one (`trace.getTracerProvider()`). */
  tracerProvider?: OtelTracerProvider;
  /**
   * Where the events and OTLP decision logs go. Default: the global one
   * (`logs.getLoggerProvider()` of `@opentelemetry/api` 1.10 and later;
   * with 1.9, which has no logs API, none unless given).
   */
  loggerProvider?: OtelLoggerProvider;
  /**
   * The share of `evaluate` calls, from 0 to 1, that get a
   * `policy.evaluate` span. Default 0: `evaluate` is the hot path, and its
   * decisions are counted by `policy.decisions` anyway.
   */
  evaluateSampleRate?: number;
  /**
   * Add `policy.rule.id` to `policy.decisions`: a series per rule instead
   * of per policy. Default `false` (a bundle may hold many rules).
   */
  ruleIdAttribute?: boolean;
}

/** What {@link createTelemetry} returns: a `Telemetry` for the library's `telemetry` options. */
export interface OtelTelemetry extends Telemetry {
  /** The logger events and OTLP decision logs are emitted on, or null without a logs API. */
  readonly logger: { emit(record: OtelLogRecord): void } | null;
}

const providerField = (method: string): Field => ({
  check: (value) =>
    typeof (value as Record<string, unknown> | null)?.[method] === "function"
      ? undefined
      : `must be an OpenTelemetry provider with ${method}(); got ${describeValue(value)}`,
});

const FIELDS: Fields = {
  meterProvider: providerField("getMeter"),
  tracerProvider: providerField("getTracer"),
  loggerProvider: providerField("getLogger"),
  evaluateSampleRate: rateField,
  ruleIdAttribute: booleanField,
};

/**
 * Creates the library's telemetry on OpenTelemetry: pass it as the
 * `telemetry` option of `createLocalClient`, `createRemoteClient`,
 * `createEnforcer` (and the guards), `createDecisionLogWriter` and the
 * OpenFeature providers. Its meter, tracer and logger are named
 * `@policy/runtime` with the package's version; docs/observability.md lists
 * every name it reports. Without an OpenTelemetry SDK, OpenTelemetry's API
 * is a no-op and so is this.
 *
 * Without `meterProvider`, the global one is read when the telemetry first
 * reports (a client starts, an enforcer or a decision log records): an SDK
 * registered after this call, before the first client, gets the metrics.
 * The global tracer and logger providers are OpenTelemetry's proxies.
 *
 * @throws {PolicyError} `INVALID_OPTIONS` for an unknown or malformed option.
 *
 * @example Decisions of a local client, counted
 * ```ts
 * import { createTelemetry } from "./create_telemetry.ts";
 * import { createLocalClient } from "../clients/create_local_client.ts";
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
 * const client = await createLocalClient({ bundlePath, allowUnsigned: true, telemetry });
 * client.evaluate({
 *   target: { service: "billing", resource: "invoice", action: "create" },
 *   context: { plan: "pro" },
 * });
 * await client.close();
 * const { resourceMetrics } = await reader.collect();
 * const decisions = resourceMetrics.scopeMetrics[0]!.metrics
 *   .find((metric) => metric.descriptor.name === "policy.decisions")!;
 * assert.equal(decisions.dataPoints[0]!.value, 1);
 * assert.equal(decisions.dataPoints[0]!.attributes["policy.decision"], "allow");
 * ```
 */
export function createTelemetry(options: TelemetryOptions = {}): OtelTelemetry {
  checkOptions(options, FIELDS, "createTelemetry");
  const meterProvider = options.meterProvider;
  const tracerProvider = options.tracerProvider ?? otel.trace.getTracerProvider();
  // `logs` is in @opentelemetry/api from 1.10; with 1.9 the namespace has none.
  const globalLogs = (otel as { logs?: { getLoggerProvider(): OtelLoggerProvider } }).logs;
  const loggerProvider = options.loggerProvider ?? globalLogs?.getLoggerProvider() ?? null;
  return new OtelTelemetryImpl(
    // The global meter provider is not a proxy: read it when the first instrument is needed.
    () => (meterProvider ?? otel.metrics.getMeterProvider()).getMeter(SCOPE_NAME, SCOPE_VERSION),
    tracerProvider.getTracer(SCOPE_NAME, SCOPE_VERSION),
    loggerProvider?.getLogger(SCOPE_NAME, SCOPE_VERSION) ?? null,
    options,
  );
}

/** A span of OpenTelemetry behind the library's `TelemetrySpan`. */
class OtelSpan implements TelemetrySpan {
  readonly span: Span;
  #ended = false;

  constructor(span: Span) {
    this.span = span;
  }

  setAttributes(attributes: Attributes): void {
    this.span.setAttributes(attributes);
  }

  fail(errorType: string, message: string): void {
    this.span.setAttribute(ATTRIBUTES.errorType, errorType);
    this.span.setStatus({ code: SpanStatusCode.ERROR, message });
  }

  end(endTime: number): void {
    if (this.#ended) return;
    this.#ended = true;
    this.span.end(new Date(endTime));
  }
}

/** The synchronous instruments (the asynchronous ones are registered with them). */
interface Instruments {
  bundleUpdates: Counter;
  fetchDuration: Histogram;
  storeDuration: Histogram;
}

class OtelTelemetryImpl implements OtelTelemetry {
  readonly evaluateSampleRate: number;
  readonly recordDecision: (decision: Decision) => void;
  readonly logger: { emit(record: OtelLogRecord): void } | null;
  readonly #tracer: Tracer;
  readonly #decisions: DecisionTally;
  readonly #evaluationErrors = new Tally();
  readonly #rateLimits = new Tally();
  readonly #logRecords = new Tally();
  readonly #logDropped = new Tally();
  readonly #clients = new Set<() => TelemetryClientState>();
  readonly #meter: () => Meter;
  #made: Instruments | null = null;

  constructor(
    meter: () => Meter,
    tracer: Tracer,
    logger: { emit(record: OtelLogRecord): void } | null,
    options: TelemetryOptions,
  ) {
    this.evaluateSampleRate = options.evaluateSampleRate ?? 0;
    this.logger = logger;
    this.#tracer = tracer;
    this.#meter = meter;
    const decisions = this.#decisions = decisionTally(options.ruleIdAttribute === true);
    // An own property, not a method: the one call evaluate makes goes straight to the tally.
    // It makes no instrument: decisions come from a client, whose start made them.
    this.recordDecision = (decision) => decisions.add(decision);
  }

  /**
   * The instruments, made once, when first needed (a client starts, an
   * enforcer or a decision log records): so an SDK registered globally
   * after `createTelemetry`, but before the first client, still gets them.
   */
  #instruments(): Instruments {
    return this.#made ??= this.#makeInstruments(this.#meter());
  }

  #makeInstruments(meter: Meter): Instruments {
    const counted = (
      metric: typeof METRICS[keyof typeof METRICS],
      tally: { observe: Tally["observe"] },
    ) =>
      meter.createObservableCounter(metric.name, {
        description: metric.description,
        unit: metric.unit,
      }).addCallback((result) => tally.observe(result));
    counted(METRICS.decisions, this.#decisions);
    counted(METRICS.evaluationErrors, this.#evaluationErrors);
    counted(METRICS.rateLimitRequests, this.#rateLimits);
    counted(METRICS.decisionLogRecords, this.#logRecords);
    counted(METRICS.decisionLogDropped, this.#logDropped);
    // The client gauges, observed together: each client's state is read once per collection.
    type Value = (state: TelemetryClientState) => number | null;
    const gauges: { gauge: otel.ObservableGauge; value: Value }[] = [];
    const gauge = (metric: typeof METRICS[keyof typeof METRICS], value: Value) =>
      gauges.push({
        gauge: meter.createObservableGauge(metric.name, {
          description: metric.description,
          unit: metric.unit,
        }),
        value,
      });
    gauge(METRICS.bundleVersion, (state) => state.bundleVersion ?? -1);
    gauge(METRICS.bundleAge, (state) => state.ageSeconds);
    gauge(METRICS.bundleExpiresIn, (state) => state.expiresInSeconds);
    gauge(METRICS.clientStale, (state) => state.stale ? 1 : 0);
    gauge(METRICS.clientDegraded, (state) => state.degraded ? 1 : 0);
    gauge(METRICS.clientConsecutiveFailures, (state) => state.consecutiveFailures);
    meter.addBatchObservableCallback((result) => {
      for (const read of this.#clients) {
        const state = read();
        const attributes = { [ATTRIBUTES.origin]: state.origin };
        for (const { gauge, value } of gauges) {
          const observed = value(state);
          if (observed !== null) result.observe(gauge, observed, attributes);
        }
      }
    }, gauges.map(({ gauge }) => gauge));
    return {
      bundleUpdates: meter.createCounter(METRICS.bundleUpdates.name, {
        description: METRICS.bundleUpdates.description,
        unit: METRICS.bundleUpdates.unit,
      }),
      fetchDuration: meter.createHistogram(METRICS.bundleFetchDuration.name, {
        description: METRICS.bundleFetchDuration.description,
        unit: METRICS.bundleFetchDuration.unit,
        advice: { explicitBucketBoundaries: FETCH_BUCKETS },
      }),
      storeDuration: meter.createHistogram(METRICS.rateLimitStoreDuration.name, {
        description: METRICS.rateLimitStoreDuration.description,
        unit: METRICS.rateLimitStoreDuration.unit,
        advice: { explicitBucketBoundaries: STORE_BUCKETS },
      }),
    };
  }

  recordEvaluationError(errorType: string): void {
    this.#instruments();
    this.#evaluationErrors.add(errorType, 1, errorTypeAttributes);
  }

  recordBundleUpdate(update: TelemetryBundleUpdate): void {
    const attributes: Attributes = {
      [ATTRIBUTES.outcome]: update.outcome,
      [ATTRIBUTES.origin]: update.origin,
    };
    if (update.errorType !== null) attributes[ATTRIBUTES.errorType] = update.errorType;
    this.#instruments().bundleUpdates.add(1, attributes);
  }

  recordBundleFetch(fetch: TelemetryBundleFetch): void {
    const attributes: Attributes = {
      [ATTRIBUTES.serverAddress]: fetch.serverAddress,
      [ATTRIBUTES.serverPort]: fetch.serverPort,
    };
    if (fetch.statusCode !== null) attributes[ATTRIBUTES.httpStatusCode] = fetch.statusCode;
    if (fetch.errorType !== null) attributes[ATTRIBUTES.errorType] = fetch.errorType;
    this.#instruments().fetchDuration.record(fetch.seconds, attributes);
  }

  recordRateLimit(result: RateLimitResult, policyKey: string): void {
    this.#instruments();
    this.#rateLimits.add(`${result}\u0000${policyKey}`, 1, rateLimitAttributes);
  }

  recordStoreCall(call: TelemetryStoreCall): void {
    const attributes: Attributes = {};
    if (call.system !== null) attributes[ATTRIBUTES.dbSystemName] = call.system;
    if (call.errorType !== null) attributes[ATTRIBUTES.errorType] = call.errorType;
    this.#instruments().storeDuration.record(call.seconds, attributes);
  }

  recordDecisionLogRecords(count: number): void {
    this.#instruments();
    this.#logRecords.add("", count, noAttributes);
  }

  recordDecisionLogDropped(reason: DecisionLogDropReason, count: number): void {
    this.#instruments();
    this.#logDropped.add(reason, count, dropReasonAttributes);
  }

  recordFlagEvaluation(evaluation: TelemetryFlagEvaluation): void {
    this.logger?.emit({
      eventName: EVENTS.flagEvaluation,
      severityNumber: 9,
      severityText: "INFO",
      attributes: flagEvaluationAttributes(evaluation),
    });
  }

  startSpan(name: string, options: TelemetrySpanOptions): TelemetrySpan {
    const parent = options.parent instanceof OtelSpan
      ? otel.trace.setSpan(otel.context.active(), options.parent.span)
      : otel.context.active();
    const span = this.#tracer.startSpan(name, {
      kind: options.kind === "client" ? SpanKind.CLIENT : SpanKind.INTERNAL,
      startTime: new Date(options.startTime),
      ...(options.attributes !== undefined && { attributes: options.attributes }),
    }, parent);
    if (name === SPAN_NAMES.enforce && span.isRecording()) this.#bundleOfEnforce(span);
    return new OtelSpan(span);
  }

  /**
   * The bundle that decided what the enforcer enforces, on its span: a
   * decision does not say which bundle made it, but when this telemetry
   * observes one client, that client's bundle in force did
   * (docs/observability.md "Spans"). With several clients it cannot tell,
   * and says nothing.
   */
  #bundleOfEnforce(span: otel.Span): void {
    if (this.#clients.size !== 1) return;
    try {
      const [read] = this.#clients;
      const state = read!();
      span.setAttribute(ATTRIBUTES.bundleChecksum, state.checksum);
      if (state.bundleVersion !== null) {
        span.setAttribute(ATTRIBUTES.bundleVersion, state.bundleVersion);
      }
    } catch {
      // A client that cannot say (closing) leaves the span without them.
    }
  }

  observeClient(read: () => TelemetryClientState): () => void {
    this.#instruments();
    // A function of its own per call: the same one observed twice is removed once each.
    const entry = () => read();
    this.#clients.add(entry);
    return () => void this.#clients.delete(entry);
  }
}

// The attributes of a tallied series, from its key (`Tally.add`).
const errorTypeAttributes = (errorType: string): Attributes => ({
  [ATTRIBUTES.errorType]: errorType,
});
const noAttributes = (): Attributes => ({});
const dropReasonAttributes = (reason: string): Attributes => ({ [ATTRIBUTES.dropReason]: reason });
/** `<result>\u0000<policyKey>`: the result is one of a few words, never holding a NUL. */
const rateLimitAttributes = (key: string): Attributes => {
  const at = key.indexOf("\u0000");
  return {
    [ATTRIBUTES.rateLimitResult]: key.slice(0, at),
    [ATTRIBUTES.policyKey]: key.slice(at + 1),
  };
};

/**
 * The attributes of a `feature_flag.evaluation` event, as the OpenTelemetry
 * semantic conventions for feature flags name them (reasons and error codes
 * in lower case), plus the decision's `policy.*` attributes.
 */
function flagEvaluationAttributes(evaluation: TelemetryFlagEvaluation): Attributes {
  const attributes: Attributes = {
    "feature_flag.key": evaluation.flagKey,
    "feature_flag.provider.name": evaluation.providerName,
    "feature_flag.result.reason": evaluation.reason.toLowerCase(),
  };
  if (evaluation.variant !== undefined) {
    attributes["feature_flag.result.variant"] = evaluation.variant;
  }
  const value = evaluation.value;
  if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") {
    attributes["feature_flag.result.value"] = value;
  } else if (value !== null && value !== undefined) {
    try {
      attributes["feature_flag.result.value"] = JSON.stringify(value);
    } catch {
      // A value that cannot be serialised is left out.
    }
  }
  if (evaluation.version !== null) attributes["feature_flag.version"] = evaluation.version;
  if (evaluation.contextId !== undefined) {
    attributes["feature_flag.context.id"] = evaluation.contextId;
  }
  if (evaluation.errorCode !== undefined) {
    attributes[ATTRIBUTES.errorType] = evaluation.errorCode.toLowerCase();
    if (evaluation.errorMessage !== undefined) {
      attributes["error.message"] = evaluation.errorMessage;
    }
  }
  if (evaluation.decision !== undefined) attributes[ATTRIBUTES.decision] = evaluation.decision;
  if (evaluation.policyKey !== undefined) attributes[ATTRIBUTES.policyKey] = evaluation.policyKey;
  return attributes;
}
