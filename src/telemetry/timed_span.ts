// This module is browser compatible.
// A span timed on the caller's clock (docs/observability.md "Time"): it starts
// at the clock's wall time and ends that wall time plus the time elapsed on
// the clock's monotonic `now()`, so a wall clock stepped meanwhile changes no
// duration, and a fake clock in tests gives exact ones.
import type { Clock } from "../public/clock.ts";
import { isPolicyError } from "../public/policy_error.ts";
import type { Telemetry, TelemetryAttributes, TelemetrySpan, TelemetrySpanKind } from "./types.ts";

/** The `error.type` of a thrown value: its `PolicyError` code, else `_OTHER`. */
export function errorTypeOf(error: unknown): string {
  return isPolicyError(error) ? error.code : "_OTHER";
}

/** A span in progress, timed on a clock. */
export interface TimedSpan {
  /** The span, to parent others on. */
  readonly span: TelemetrySpan;
  /** Seconds since the start, on the clock's monotonic `now()`. */
  elapsedSeconds(): number;
  /** Adds or replaces attributes. */
  setAttributes(attributes: TelemetryAttributes): void;
  /**
   * Marks it failed with the error's message and `errorType`, by default
   * the error's code (see {@link errorTypeOf}).
   */
  fail(error: unknown, errorType?: string): void;
  /** Ends it now. */
  end(): void;
}

/** Starts span `name` on `telemetry` now, as `clock` tells the time. */
export function startTimedSpan(
  telemetry: Telemetry,
  clock: Clock,
  name: string,
  options: { kind?: TelemetrySpanKind; attributes?: TelemetryAttributes; parent?: TimedSpan } = {},
): TimedSpan {
  const startWall = clock.wallNow();
  const startNow = clock.now();
  const span = telemetry.startSpan(name, {
    startTime: startWall,
    ...(options.kind !== undefined && { kind: options.kind }),
    ...(options.attributes !== undefined && { attributes: options.attributes }),
    ...(options.parent !== undefined && { parent: options.parent.span }),
  });
  const elapsedMs = () => Math.max(0, clock.now() - startNow);
  return {
    span,
    elapsedSeconds: () => elapsedMs() / 1000,
    setAttributes: (attributes) => span.setAttributes(attributes),
    fail: (error, errorType = errorTypeOf(error)) =>
      span.fail(errorType, error instanceof Error ? error.message : String(error)),
    end: () => span.end(startWall + elapsedMs()),
  };
}
