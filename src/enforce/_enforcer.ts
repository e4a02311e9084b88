// This module is browser compatible.
// The enforcer behind `createEnforcer` and every guard (docs/enforcement.md):
// its option fields, which a guard's include, and the enforcer of options
// already checked.
import { isPolicyError, PolicyError } from "../public/policy_error.ts";
import type { Decision, ThrottleDescriptor } from "../engine/types.ts";
import { callSafely } from "../_internal/call_safely.ts";
import { describeValue, type Fields, functionField } from "../_internal/check_options.ts";
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
};

/** The enforcer of options already checked (a guard checks its own, which include these). */
export function enforcerOf(options: EnforcerOptions): Enforcer {
  const { store, whenStoreFails = "closed", onError } = options;
  const counts = store ?? createMemoryStore();
  const report = onError ?? null;

  async function throttle(
    decision: Decision,
    descriptor: ThrottleDescriptor,
    context: Record<string, unknown> | undefined,
  ): Promise<Verdict> {
    const limit = effectiveLimit(descriptor.limit);
    const window = windowMicros(descriptor.windowSeconds);
    const shape = throttleShape(decision, descriptor, limit, window);
    const named = bucketOf(shape, context);
    const bucket = typeof named === "string" ? named : await named;
    let count: ThrottleCount;
    try {
      count = await counts.hit(bucket, limit, window);
    } catch (error) {
      callSafely(report, storeError(error));
      return whenStoreFails === "open" ? proceed(decision) : refuseStoreUnavailable(decision);
    }
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

  return {
    enforce(decision, context) {
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
          return throttle(decision, descriptor, context);
        }
        default:
          return Promise.resolve(refuseDeny(decision));
      }
    },
  };
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
