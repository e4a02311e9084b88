// This module is browser compatible.
/**
 * Turns a decision into what a request gets (docs/enforcement.md): go on,
 * or a refusal with its status, header fields and RFC 9457 body. Throttles
 * are counted in a store.
 *
 * @module
 */
import { checkOptions } from "../_internal/check_options.ts";
import { ENFORCER_FIELDS, enforcerOf } from "./_enforcer.ts";
import type { Enforcer, EnforcerOptions } from "./types.ts";

/**
 * Creates an enforcer. `allow` and `custom` go on; `deny` (and any decision
 * this version does not know) is refused with 403, `kill_switch` with 503,
 * and `throttle` is counted in its bucket: over the limit it is refused with
 * 429, `Retry-After` and the `RateLimit` fields, which admitted requests
 * carry too.
 *
 * @example A throttle of 2 per minute per tenant
 * ```ts
 * import { createEnforcer } from "./create_enforcer.ts";
 * import { createMemoryStore } from "./create_memory_store.ts";
 * import type { Decision } from "../engine/types.ts";
 * import assert from "node:assert/strict";
 *
 * // A clock stopped at 0 (the memory store reads only its monotonic now()).
 * const clock = { now: () => 0, wallNow: () => 0, setTimeout: () => 0, clearTimeout() {} };
 * const enforcer = createEnforcer({ store: createMemoryStore({ clock }) });
 * const decision: Decision = {
 *   decision: "throttle",
 *   reason: "rule",
 *   policyKey: "billing.invoice.export",
 *   ruleId: "per-tenant",
 *   throttle: { limit: 2, windowSeconds: 60, key: "tenant" },
 * };
 * const context = { tenant: "t1" };
 * assert.equal((await enforcer.enforce(decision, context)).proceed, true);
 * const second = await enforcer.enforce(decision, context);
 * assert.equal(second.headers["ratelimit"], '"billing.invoice.export/per-tenant";r=0;t=63');
 * const third = await enforcer.enforce(decision, context);
 * assert.ok(!third.proceed);
 * assert.equal(third.status, 429);
 * assert.equal(third.headers["retry-after"], "63");
 * assert.equal((await enforcer.enforce(decision, { tenant: "t2" })).proceed, true);
 * ```
 */
export function createEnforcer(options: EnforcerOptions = {}): Enforcer {
  checkOptions(options, ENFORCER_FIELDS, "createEnforcer");
  return enforcerOf(options);
}
