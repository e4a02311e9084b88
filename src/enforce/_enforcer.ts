// This module is browser compatible.
// The enforcer behind `createEnforcer` and every guard (docs/enforcement.md):
// its option fields, which a guard's include, and the enforcer of options
// already checked.
import { isPolicyError, PolicyError } from "../public/policy_error.ts";
import type { Decision, ThrottleDescriptor } from "../engine/types.ts";
import { callSafely } from "../_internal/call_safely.ts";
import {
  clockField,
  describeValue,
  type Fields,
  functionField,
} from "../_internal/check_options.ts";
import { SYSTEM_CLOCK } from "../public/clock.ts";
import { telemetryField } from "../telemetry/telemetry_field.ts";
import { SPAN_ATTRIBUTES, SPAN_NAMES } from "../telemetry/names.ts";
import { startTimedSpan, type TimedSpan } from "../telemetry/timed_span.ts";
import type { RateLimitResult } from "../telemetry/types.ts";
import { bucketOf, throttleShape } from "./_bucket.ts";
import { ceilSeconds, rateLimit } from "./_rate_limit_fields.ts";
import { effectiveLimit, windowMicros } from "./sliding_window.ts";
import {
  proceed,
  QUOTA_EXCEEDED,
  refuse,
  refuseDeny,
  refuseKillSwitch,
  refuseStoreUnavailable,
} from "./_verdicts.ts";
import { createMemoryStore } from "./create_memory_store.ts";
import type { Enforcer, EnforcerOptions, ThrottleCount, Verdict } from "./types.ts";
import { describeThrown } from "../_internal/describe_thrown.ts";
/**
 * The options of `createEnforcer`, for the library's one option checker
 * (`checkOptions`): an unknown key is refused like a wrong value, so a typo
 * never leaves a default silently in force.
 */
export const ENFORCER_FIELDS: Fields = {
  store: {
    check: (value) =>
      typeof (value as { hit?: unknown } | null)?.hit === "function"
        ? undefined
        : `must have a hit(bucket, limit, windowMicros) method; got ${describeValue(value)}`,
  },
  whenStoreFails: {
    check: (value) =>
      value === "closed" || value === "open"
        ? undefined
        : `must be "closed" or "open"; got ${describeValue(value)}`,
  },
  onError: functionField,
  telemetry: telemetryField,
  clock: clockField,
};

/** The enforcer of options already checked (a guard checks its own, which include these). */
export function enforcerOf(options: EnforcerOptions): Enforcer {
  const { store, whenStoreFails = "closed", onError, telemetry, clock = SYSTEM_CLOCK } = options;
  const counts = store ?? createMemoryStore({ clock });
  const report = onError ?? null;
  const system = typeof counts.system === "string" ? counts.system : null;

  /** With telemetry: the store call's duration, the throttle's result, on the span too. */
  function throttled(
    span: TimedSpan | null,
    policyKey: string,
    result: RateLimitResult,
    started: number,
    error: PolicyError | null,
  ): void {
    if (telemetry === undefined) return;
    telemetry.recordStoreCall({
      seconds: Math.max(0, clock.now() - started) / 1000,
      system,
      errorType: error?.code ?? null,
    });
    telemetry.recordRateLimit(result, policyKey);
    span?.setAttributes({
      [SPAN_ATTRIBUTES.rateLimitResult]: result,
      ...(system !== null && { [SPAN_ATTRIBUTES.dbSystemName]: system }),
    });
    if (error !== null) span?.fail(error);
  }

  async function throttle(
    decision: Decision,
    descriptor: ThrottleDescriptor,
    context: Record<string, unknown> | undefined,
    span: TimedSpan | null,
  ): Promise<Verdict> {
    const limit = effectiveLimit(descriptor.limit);
    const window = windowMicros(descriptor.windowSeconds);
    const shape = throttleShape(decision, descriptor, limit, window);
    const named = bucketOf(shape, context);
    const bucket = typeof named === "string" ? named : await named;
    const started = telemetry === undefined ? 0 : clock.now();
    const policyKey = decision.policyKey ?? "";
    let count: ThrottleCount;
    try {
      count = await counts.hit(bucket, limit, window);
    } catch (error) {
      const failure = storeError(error);
      const open = whenStoreFails === "open";
      throttled(
        span,
        policyKey,
        open ? "store_error_open" : "store_error_closed",
        started,
        failure,
      );
      callSafely(report, failure);
      return open ? proceed(decision) : refuseStoreUnavailable(decision);
    }
    throttled(span, policyKey, count.admitted ? "admitted" : "limited", started, null);
    const { quotedName, policyField: policy } = shape;
    if (count.admitted) {
      const fields = {
        "ratelimit-policy": policy,
        "ratelimit": rateLimit(quotedName, count.remaining, ceilSeconds(count.resetMicros)),
      };
      return proceed(decision, fields);
    }
    // Refused: no quota until retryMicros (-1: never, for a limit of 0).
    const retry = count.retryMicros >= 0 ? ceilSeconds(count.retryMicros) : -1;
    const fields: Record<string, string> = {
      "ratelimit-policy": policy,
      "ratelimit": rateLimit(quotedName, 0, retry),
    };
    if (retry >= 0) fields["retry-after"] = String(retry);
    const per = `${limit} per ${descriptor.windowSeconds} s`;
    return refuse(
      decision,
      "throttle",
      429,
      retry >= 0
        ? `Too many requests: this rule allows ${per}. Retry in ${retry} s.`
        : `This rule allows no requests (${per}).`,
      fields,
      { type: QUOTA_EXCEEDED, "violated-policies": [shape.name] },
    );
  }

  function verdict(
    decision: Decision,
    context: Record<string, unknown> | undefined,
    span: TimedSpan | null,
  ): Promise<Verdict> {
    if (typeof decision !== "object" || decision === null) {
      return Promise.reject(
        new PolicyError("INVALID_DECISION", "enforce needs the decision evaluate returned"),
      );
    }
    if (context !== undefined && (typeof context !== "object" || context === null)) {
      return Promise.reject(
        new PolicyError("INVALID_REQUEST", "the context must be an object, as for evaluate"),
      );
    }
    switch (decision.decision) {
      case "allow":
      case "custom":
        return Promise.resolve(proceed(decision));
      case "kill_switch":
        return Promise.resolve(refuseKillSwitch(decision));
      case "throttle": {
        const descriptor = decision.throttle;
        if (!isThrottleDescriptor(descriptor)) {
          return Promise.reject(
            new PolicyError(
              "INVALID_DECISION",
              "a throttle decision needs throttle: {limit >= 0, windowSeconds > 0, key}; pass the decision evaluate returned",
            ),
          );
        }
        return throttle(decision, descriptor, context, span);
      }
      default:
        return Promise.resolve(refuseDeny(decision));
    }
  }

  if (telemetry === undefined) {
    return { enforce: (decision, context) => verdict(decision, context, null) };
  }
  return {
    enforce(decision, context) {
      const span = startTimedSpan(telemetry, clock, SPAN_NAMES.enforce, {
        attributes: decisionAttributes(decision),
      });
      const result = verdict(decision, context, span);
      result.then(
        () => span.end(),
        (error) => {
          span.fail(error);
          span.end();
        },
      );
      return result;
    },
  };
}

/** The span attributes of a decision: its type and policy (none for what is not a decision). */
function decisionAttributes(decision: unknown): Record<string, string> {
  const attributes: Record<string, string> = {};
  if (typeof decision !== "object" || decision === null) return attributes;
  const { decision: type, policyKey } = decision as Record<string, unknown>;
  if (typeof type === "string") attributes[SPAN_ATTRIBUTES.decision] = type;
  if (typeof policyKey === "string") attributes[SPAN_ATTRIBUTES.policyKey] = policyKey;
  return attributes;
}

function isThrottleDescriptor(value: unknown): value is ThrottleDescriptor {
  if (typeof value !== "object" || value === null) return false;
  const { limit, windowSeconds, key } = value as Record<string, unknown>;
  return typeof limit === "number" && limit >= 0 && !Number.isNaN(limit) &&
    typeof windowSeconds === "number" && windowSeconds > 0 && typeof key === "string";
}

/** A store's rejection as the `THROTTLE_STORE_UNAVAILABLE` error `onError` gets. */
function storeError(error: unknown): PolicyError {
  if (isPolicyError(error, "THROTTLE_STORE_UNAVAILABLE")) return error;
  const why = describeThrown(error);
  return new PolicyError(
    "THROTTLE_STORE_UNAVAILABLE",
    `the throttle store failed (${why}); check the store, throttled requests are answered as whenStoreFails says`,
    { cause: error },
  );
}
