// This module is browser compatible.
// What both clients report to their `telemetry` option (docs/observability.md):
// the evaluator that counts decisions and errors (and, sampled, traces one),
// a span and an update record for each attempt to bring in a bundle, and the
// state the gauges read. Without `telemetry` nothing here runs: the clients
// hand out the engine's evaluator as it is.
import type { Evaluator } from "../engine/evaluate.ts";
import type { Decision } from "../engine/types.ts";
import type { Clock } from "../public/clock.ts";
import type { BundleStatus } from "../verify/load_bundle.ts";
import { SPAN_ATTRIBUTES, SPAN_NAMES } from "../telemetry/names.ts";
import { errorTypeOf, startTimedSpan, type TimedSpan } from "../telemetry/timed_span.ts";
import type {
  BundleUpdateOutcome,
  Telemetry,
  TelemetryAttributes,
  TelemetryClientState,
} from "../telemetry/types.ts";
import type { ClientStatus } from "./types.ts";

/**
 * The codes of an attempt that got no bundle (`failed`); any other code is
 * a bundle that was had and refused (`rejected`).
 */
const NO_BUNDLE_CODES: ReadonlySet<string> = new Set([
  "BUNDLE_READ_ERROR",
  "REMOTE_UNAVAILABLE",
  "REMOTE_UNAUTHORIZED",
  "REMOTE_NOT_FOUND",
]);

/** `failed` when an attempt with `errorType` got no bundle, `rejected` when it refused one. */
function failureOutcome(errorType: string): "failed" | "rejected" {
  return NO_BUNDLE_CODES.has(errorType) ? "failed" : "rejected";
}

/** The span attributes naming a bundle. */
export function bundleAttributes(status: BundleStatus): TelemetryAttributes {
  return status.bundleVersion === null ? { [SPAN_ATTRIBUTES.bundleChecksum]: status.checksum } : {
    [SPAN_ATTRIBUTES.bundleChecksum]: status.checksum,
    [SPAN_ATTRIBUTES.bundleVersion]: status.bundleVersion,
  };
}

/** Time and chance as a client sees them, for the sampled `policy.evaluate` spans. */
export interface EvaluateTelemetryEnv {
  random(): number;
  clock: Clock;
}

/**
 * `evaluate` as it is without `telemetry`; else an evaluator that returns
 * the same decisions and throws the same errors, and reports each to
 * `telemetry` (one call per evaluation). A share `evaluateSampleRate` of
 * the calls also gets a `policy.evaluate` span.
 */
export function withTelemetry(
  evaluate: Evaluator,
  bundle: BundleStatus,
  telemetry: Telemetry | undefined,
  env: EvaluateTelemetryEnv,
): Evaluator {
  if (telemetry === undefined) return evaluate;
  const counted: Evaluator = (request) => {
    let decision: Decision;
    try {
      decision = evaluate(request);
    } catch (error) {
      telemetry.recordEvaluationError(errorTypeOf(error));
      throw error;
    }
    telemetry.recordDecision(decision);
    return decision;
  };
  const rate = telemetry.evaluateSampleRate;
  if (!(rate > 0)) return counted;
  const attributes = bundleAttributes(bundle);
  return (request) => {
    if (rate < 1 && !(env.random() < rate)) return counted(request);
    const span = startTimedSpan(telemetry, env.clock, SPAN_NAMES.evaluate, { attributes });
    try {
      const decision = counted(request);
      span.setAttributes(
        decision.policyKey === undefined ? { [SPAN_ATTRIBUTES.decision]: decision.decision } : {
          [SPAN_ATTRIBUTES.decision]: decision.decision,
          [SPAN_ATTRIBUTES.policyKey]: decision.policyKey,
        },
      );
      return decision;
    } catch (error) {
      span.fail(error);
      throw error;
    } finally {
      span.end();
    }
  };
}

/** One attempt to bring in a bundle: its `policy.bundle.load` span and its update record. */
export interface LoadAttempt {
  /** The span, to parent the requests of the attempt on (null without telemetry). */
  readonly span: TimedSpan | null;
  /** A bundle came into force (`updated`), or the one in force was confirmed (`unchanged`). */
  succeeded(outcome: "updated" | "unchanged", status: BundleStatus): void;
  /** The attempt failed with `error` (`failed` or `rejected`, by its code). */
  failed(error: unknown): void;
  /** The attempt was abandoned (the client was closed): the span ends, nothing is counted. */
  abandoned(): void;
}

const NO_ATTEMPT: LoadAttempt = Object.freeze({
  span: null,
  succeeded() {},
  failed() {},
  abandoned() {},
});

/** Starts an attempt of a client of `origin` (a no-op without telemetry). */
export function startLoad(
  telemetry: Telemetry | undefined,
  clock: Clock,
  origin: "local" | "remote",
): LoadAttempt {
  if (telemetry === undefined) return NO_ATTEMPT;
  const span = startTimedSpan(telemetry, clock, SPAN_NAMES.bundleLoad, {
    attributes: { [SPAN_ATTRIBUTES.origin]: origin },
  });
  let done = false;
  const settle = (outcome: BundleUpdateOutcome, errorType: string | null) => {
    telemetry.recordBundleUpdate({ outcome, origin, errorType });
    span.setAttributes({ [SPAN_ATTRIBUTES.outcome]: outcome });
    span.end();
  };
  return {
    span,
    succeeded(outcome, status) {
      if (done) return;
      done = true;
      span.setAttributes(bundleAttributes(status));
      settle(outcome, null);
    },
    failed(error) {
      if (done) return;
      done = true;
      const errorType = errorTypeOf(error);
      span.fail(error);
      settle(failureOutcome(errorType), errorType);
    },
    abandoned() {
      if (done) return;
      done = true;
      span.end();
    },
  };
}

/** What the gauges read of a client, now. */
export function clientState(
  status: ClientStatus,
  clock: Clock,
  consecutiveFailures: number,
): TelemetryClientState {
  const freshness = status.freshness;
  const wallNow = clock.wallNow();
  return {
    origin: status.origin,
    bundleVersion: status.bundleVersion,
    checksum: status.checksum,
    ageSeconds: freshness === null ? null : (wallNow - Date.parse(freshness.issuedAt)) / 1000,
    expiresInSeconds: freshness === null
      ? null
      : (Date.parse(freshness.expiresAt) - wallNow) / 1000,
    stale: status.origin === "remote" && status.stale,
    degraded: status.origin === "remote" && status.degraded,
    consecutiveFailures,
  };
}
