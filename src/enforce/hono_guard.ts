// This module is browser compatible.
/**
 * The Hono adapter: `app.use(honoGuard({...}))`. Hono is an optional peer
 * dependency: this file imports only its types. See docs/enforcement.md
 * "Guards".
 *
 * @module
 */
import type { Context, MiddlewareHandler } from "hono";
import type { Decision } from "../engine/types.ts";
import { guardVerdict } from "./_guard_verdict.ts";
import { refusalResponse } from "./refusal_response.ts";
import type { GuardOptions } from "./types.ts";

/** The variables the guard sets: `c.get("policyDecision")` in the handlers behind it. */
export interface HonoGuardVariables {
  /** The decision the request went on with (`custom` values are in it). */
  policyDecision: Decision;
}

/**
 * A Hono middleware that enforces the decision for each request: a refusal
 * is answered without calling the handlers; otherwise the decision is set as
 * `policyDecision` and the handler's response gets the `RateLimit` fields
 * of throttled routes. `target` and `context` get the Hono `Context`.
 *
 * @example
 * ```ts ignore
 * import { Hono } from "hono";
 * import { honoGuard } from "@policy/runtime/enforce/hono";
 *
 * const app = new Hono();
 * app.use("/invoices/*", honoGuard({
 *   client,
 *   store,
 *   target: (c) => ({ service: "billing", resource: "invoice", action: c.req.method === "GET" ? "read" : "create" }),
 *   context: (c) => ({ tenant: c.req.header("x-tenant") }),
 * }));
 * app.get("/invoices/export", (c) => c.text("id,total\n"));
 * ```
 */
export function honoGuard(
  options: GuardOptions<Context>,
): MiddlewareHandler<{ Variables: HonoGuardVariables }> {
  const verdict = guardVerdict(options);
  return async (c, next) => {
    const result = await verdict(c);
    if (!result.proceed) return refusalResponse(result);
    c.set("policyDecision", result.decision);
    await next();
    for (const [name, value] of Object.entries(result.headers)) c.header(name, value);
  };
}
