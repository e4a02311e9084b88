// This module is browser compatible.
/**
 * What the library reports about itself (docs/observability.md): the
 * `Telemetry` interface that the clients, the enforcer, the decision-log
 * writer and the OpenFeature providers take as their `telemetry` option.
 * The library depends on no telemetry package: `createTelemetry` of
 * `@policy/runtime/otel` implements it with OpenTelemetry, and any other
 * implementation may be passed.
 *
 * Every method is called synchronously where the event happens. An
 * implementation must be cheap and must not throw: what it throws is
 * ignored where the library can (callbacks), but `recordDecision` runs
 * inside `evaluate`.
 *
 * @module
 */
import type { Decision } from "../engine/types.ts";

/** Attribute values of spans: strings, numbers, booleans. */
export type TelemetryAttributes = Readonly<Record<string, string | number | boolean>>;

/** The kind of a span: `client` for a request to another service, else `internal`. */
export type TelemetrySpanKind = "internal" | "client";

/** How a span starts. Times are wall-clock milliseconds since the epoch, from the caller's clock. */
export interface TelemetrySpanOptions {
  /** Default `internal`. */
  kind?: TelemetrySpanKind;
  /** Attributes known at the start. */
  attributes?: TelemetryAttributes;
  /** When it started (the caller's `clock.wallNow()`). */
  startTime: number;
  /** The span this one is part of; default: the context active when it starts. */
  parent?: TelemetrySpan;
}

/** A span started by {@link Telemetry.startSpan}. */
export interface TelemetrySpan {
  /** Adds or replaces attributes. */
  setAttributes(attributes: TelemetryAttributes): void;
  /** Marks the span failed: error status, `error.type` set to `errorType`. */
  fail(errorType: string, message: string): void;
  /** Ends the span at `endTime` (wall-clock ms). Later calls do nothing. */
  end(endTime: number): void;
}

/** How an attempt to bring in a bundle ended (`policy.bundle.updates`). */
export type BundleUpdateOutcome = "updated" | "unchanged" | "failed" | "rejected";

/** One attempt to bring in a bundle: a start, a reload of a changed file, a poll. */
export interface TelemetryBundleUpdate {
  /**
   * `updated`: a bundle came into force; `unchanged`: the one in force was
   * confirmed; `failed`: no bundle could be had (a read or request
   * failed); `rejected`: one was had and refused (invalid, signature,
   * freshness, scope, rollback, size).
   */
  outcome: BundleUpdateOutcome;
  /** The client: `local` or `remote`. */
  origin: "local" | "remote";
  /** The error code of a `failed` or `rejected` attempt, else null. */
  errorType: string | null;
}

/** One request of the remote client to an origin (`policy.bundle.fetch.duration`). */
export interface TelemetryBundleFetch {
  /** How long the request took, body included, in seconds of the client's clock. */
  seconds: number;
  /** The origin's host name. */
  serverAddress: string;
  /** The origin's port. */
  serverPort: number;
  /** The HTTP status of the answer, or null when none came. */
  statusCode: number | null;
  /** The error code when the request failed, else null. */
  errorType: string | null;
}

/** A client's state, read at each collection of the gauges. */
export interface TelemetryClientState {
  /** The client: `local` or `remote`. */
  origin: "local" | "remote";
  /** The `bundleVersion` in force, or null when the bundle has none. */
  bundleVersion: number | null;
  /** The checksum of the bundle in force. */
  checksum: string;
  /** Seconds since the freshness statement in force was issued, or null without one. */
  ageSeconds: number | null;
  /** Seconds until that statement expires (negative once expired), or null without one. */
  expiresInSeconds: number | null;
  /** `evaluate` fails closed with `BUNDLE_STALE` (remote; always false for a local client). */
  stale: boolean;
  /** The remote client is degraded (always false for a local client). */
  degraded: boolean;
  /** Failed polls (remote) or failed reloads (local) since the last success. */
  consecutiveFailures: number;
}

/** What the enforcer did with a throttle (`policy.rate_limit.requests`). */
export type RateLimitResult = "admitted" | "limited" | "store_error_open" | "store_error_closed";

/** One call to a throttle store (`policy.rate_limit.store.duration`). */
export interface TelemetryStoreCall {
  /** How long it took, in seconds of the enforcer's clock. */
  seconds: number;
  /** What the store is (its `system`, as `db.system.name`), or null when it does not say. */
  system: string | null;
  /** The error code when it failed, else null. */
  errorType: string | null;
}

/** Why a decision-log record was lost (`policy.decision_log.dropped`). */
export type DecisionLogDropReason =
  | "sampling"
  | "buffer_full"
  | "write_failed"
  | "unserialisable"
  | "closed";

/** One flag resolved by an OpenFeature provider (the `feature_flag.evaluation` event). */
export interface TelemetryFlagEvaluation {
  /** The flag key. */
  flagKey: string;
  /** The provider's name. */
  providerName: string;
  /** OpenFeature's reason (`TARGETING_MATCH`, `DEFAULT`, `DISABLED`, `ERROR`…). */
  reason: string;
  /** The variant: the rule id, `__default__` for a policy default; absent otherwise. */
  variant?: string;
  /** The value resolved. */
  value: unknown;
  /** OpenFeature's error code of a failed resolution (`FLAG_NOT_FOUND`…). */
  errorCode?: string;
  /** Its message. */
  errorMessage?: string;
  /** The evaluation context's `targetingKey`, when it has one. */
  contextId?: string;
  /** The checksum of the bundle that decided (the flag set's version), or null before one. */
  version: string | null;
  /** The decision (`allow`, `deny`…), when one was made. */
  decision?: string;
  /** The policy that decided, when one did. */
  policyKey?: string;
}

/**
 * Where the library reports its metrics, spans and events
 * (docs/observability.md). `createTelemetry` of `@policy/runtime/otel`
 * makes one from OpenTelemetry providers.
 */
export interface Telemetry {
  /**
   * The share of `evaluate` calls, from 0 to 1, that get a
   * `policy.evaluate` span (0: none). Read when a bundle comes into force.
   */
  readonly evaluateSampleRate: number;
  /** One decision `evaluate` returned. Runs inside `evaluate`: must be cheap, must not throw. */
  recordDecision(decision: Decision): void;
  /** One `evaluate` that threw, by its error code (`_OTHER` for an error without one). */
  recordEvaluationError(errorType: string): void;
  /** An attempt to bring in a bundle settled. */
  recordBundleUpdate(update: TelemetryBundleUpdate): void;
  /** A request of the remote client to an origin settled. */
  recordBundleFetch(fetch: TelemetryBundleFetch): void;
  /** The enforcer handled a throttle decision of `policyKey`. */
  recordRateLimit(result: RateLimitResult, policyKey: string): void;
  /** The enforcer called its throttle store. */
  recordStoreCall(call: TelemetryStoreCall): void;
  /** A decision-log sink emitted `count` records. */
  recordDecisionLogRecords(count: number): void;
  /** `count` decision-log records were lost, and why. */
  recordDecisionLogDropped(reason: DecisionLogDropReason, count: number): void;
  /** An OpenFeature provider resolved a flag. */
  recordFlagEvaluation(evaluation: TelemetryFlagEvaluation): void;
  /** Starts a span. */
  startSpan(name: string, options: TelemetrySpanOptions): TelemetrySpan;
  /**
   * Adds a client whose state the gauges report, read at each collection;
   * returns the function that removes it (called by the client's `close()`).
   */
  observeClient(read: () => TelemetryClientState): () => void;
}
