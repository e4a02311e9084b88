// This module is browser compatible.
/**
 * Enforcement: from a decision to what a request gets, on one instance and
 * across many (docs/enforcement.md). `allow` and `custom` go on (with the
 * decision); `deny` is refused with 403, `kill_switch` with 503, and a
 * `throttle` is counted in its bucket — over the limit, 429 with
 * `Retry-After` and the IETF `RateLimit-Policy` and `RateLimit` fields.
 * Refusal bodies are RFC 9457 problem details.
 *
 * This module uses web standards only. Its subpath exports add the Redis
 * store (`./enforce/redis`) and the Hono (`./enforce/hono`) and Express
 * (`./enforce/express`) adapters; none of them imports its library.
 *
 * @example Enforcing a decision
 * ```ts
 * import { createEnforcer } from "./mod.ts";
 * import assert from "node:assert/strict";
 *
 * const enforcer = createEnforcer(); // throttles counted in this process's memory
 * const verdict = await enforcer.enforce({
 *   decision: "kill_switch",
 *   reason: "rule",
 *   policyKey: "search",
 *   ruleId: "off",
 *   killSwitch: { service: "search", reason: "index rebuild" },
 * });
 * assert.ok(!verdict.proceed);
 * assert.equal(verdict.status, 503);
 * assert.equal(verdict.problem.detail, "search is switched off by policy: index rebuild.");
 * ```
 *
 * @module
 */
export * from "./types.ts";
export * from "./create_enforcer.ts";
export * from "./create_memory_store.ts";
export * from "./create_guard.ts";
export * from "./refusal_response.ts";
// The library's one clock, the type of this module's `clock` options.
export type { Clock } from "../public/clock.ts";
// The telemetry interface of the `telemetry` option (docs/observability.md).
export type * from "../telemetry/types.ts";
