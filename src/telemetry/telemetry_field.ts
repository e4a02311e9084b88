// This module is browser compatible.
// The `telemetry` option of every factory that takes one (docs/observability.md),
// for the library's one option checker.
import { describeValue, type Field, rateField } from "../_internal/check_options.ts";

/** The methods a `Telemetry` must have. */
const METHODS = [
  "recordDecision",
  "recordEvaluationError",
  "recordBundleUpdate",
  "recordBundleFetch",
  "recordRateLimit",
  "recordStoreCall",
  "recordDecisionLogRecords",
  "recordDecisionLogDropped",
  "recordFlagEvaluation",
  "startSpan",
  "observeClient",
] as const;

/**
 * The option `telemetry`: an object with the methods of `Telemetry` and an
 * `evaluateSampleRate` from 0 to 1, such as `createTelemetry()` of
 * `@policy/runtime/otel` returns.
 */
export const telemetryField: Field = {
  check: (value) => {
    if (typeof value !== "object" || value === null) {
      return `must be a Telemetry (createTelemetry() of @policy/runtime/otel); got ${
        describeValue(value)
      }`;
    }
    const record = value as Record<string, unknown>;
    const missing = METHODS.filter((method) => typeof record[method] !== "function");
    if (missing.length > 0) {
      return `must be a Telemetry (createTelemetry() of @policy/runtime/otel); ${
        missing.map((m) => `${m}()`).join(", ")
      } missing`;
    }
    const wrong = rateField.check(record.evaluateSampleRate, "evaluateSampleRate");
    return wrong === undefined ? undefined : `.evaluateSampleRate ${wrong}`;
  },
};
