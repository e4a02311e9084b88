// This module is browser compatible.
/**
 * The Hono adapter: `app.use(honoGuard({...}))`. Hono is an optional peer
 * dependency: this file imports nothing from it and types the few members
 * of its `Context` it uses itself. See docs/enforcement.md "Guards".
 *
 * @example A denied request is answered 403 without calling the handlers
 * ```ts
 * import { honoGuard, type HonoContextLike } from "./hono_guard.ts";
 * import assert from "node:assert/strict";
 *
 * const guard = honoGuard({
 *   client: { evaluate: () => ({ decision: "deny", reason: "default" }) },
 *   target: (c) => ({ service: "billing", resource: "invoice", action: c.req.method }),
 * });
 * // The few members of Hono's Context the guard uses (Hono's own Context has them all).
 * const c: HonoContextLike = {
 *   req: { raw: new Request("http://x/invoices"), path: "/invoices", method: "GET", header: () => undefined },
 *   set: () => {},
 *   header: () => {},
 * };
 * let called = false;
 * const response = await guard(c, async () => void (called = true));
 * assert.equal(response?.status, 403);
 * assert.equal(called, false);
 * ```
 *
 * @module
 */
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
 * The members of Hono's `Context` the guard and most `target` and `context`
 * functions use. Hono's `Context` has them all; annotate your functions'
 * parameter as `Context` to use the rest.
 */
export interface HonoContextLike {
  /** The request. */
  req: {
    /** The web-standard `Request`. */
    raw: Request;
    /** The URL's path. */
    path: string;
    /** The method. */
    method: string;
    /** A request header field. */
    header(name: string): string | undefined;
  };
  /** Sets a variable for the handlers: the guard sets `policyDecision`. */
  set(key: "policyDecision", value: Decision): void;
  /** Sets a response header field. */
  header(name: string, value: string): void;
}

/** Hono's `next`. */
export type HonoNext = () => Promise<void>;

/**
 * A Hono middleware that enforces the decision for each request: a refusal
 * is answered without calling the handlers; otherwise the decision is set as
 * `policyDecision` and the handler's response gets the `RateLimit` fields
 * of throttled routes. `target` and `context` get the Hono `Context`.
 *
 * @example
 * ```ts ignore
 * import { Hono } from "hono";
 * import { honoGuard, type HonoGuardVariables } from "@policy/runtime/enforce/hono";
 *
 * const app = new Hono<{ Variables: HonoGuardVariables }>();
 * app.use("/invoices/*", honoGuard({
 *   client,
 *   store,
 *   target: (c) => ({ service: "billing", resource: "invoice", action: c.req.method === "GET" ? "read" : "create" }),
 *   context: (c) => ({ tenant: c.req.header("x-tenant") }),
 * }));
 * app.get("/invoices/export", (c) => c.text(`decided: ${c.get("policyDecision").decision}`));
 * ```
 */
export function honoGuard<C extends HonoContextLike = HonoContextLike>(
  options: GuardOptions<C>,
): (c: C, next: HonoNext) => Promise<Response | void> {
  const verdict = guardVerdict(options, "honoGuard");
  return async (c, next) => {
    const result = await verdict(c);
    if (!result.proceed) return refusalResponse(result);
    c.set("policyDecision", result.decision);
    await next();
    for (const [name, value] of Object.entries(result.headers)) c.header(name, value);
  };
}
