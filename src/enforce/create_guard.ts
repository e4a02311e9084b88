// This module is browser compatible.
/**
 * The web-standard guard, for `Deno.serve`, Bun, Cloudflare Workers and
 * anything else that speaks `Request` and `Response`. See
 * docs/enforcement.md "Guards".
 *
 * @module
 */
import type { Decision } from "../engine/types.ts";
import { guardVerdict } from "./_guard_verdict.ts";
import { refusalResponse, withHeaders } from "./refusal_response.ts";
import type { GuardOptions, Verdict } from "./types.ts";

/** A handler behind a guard: it gets the decision, so `custom` values reach it. */
export type GuardedHandler = (request: Request, decision: Decision) => Response | Promise<Response>;

/** What {@link createGuard} returns. */
export interface Guard {
  /** The refusal for `request`, or null when it may go on. */
  (request: Request): Promise<Response | null>;
  /** The whole verdict for `request` (decision, header fields, refusal). */
  verdict(request: Request): Promise<Verdict>;
  /**
   * `handler` behind the guard: refusals are answered without calling it,
   * and its responses get the `RateLimit` fields of throttled routes.
   */
  serve(handler: GuardedHandler): (request: Request) => Promise<Response>;
}

/**
 * Creates a guard: `(request) => Response | null`. The request's target and
 * context come from your functions; the client evaluates them and the
 * enforcer (with `store`, `whenStoreFails`, `onError`) decides.
 *
 * @example Deno.serve behind a guard
 * ```ts
 * import { createGuard, createMemoryStore } from "./mod.ts";
 * import { compileBundle, createEvaluator } from "../engine/mod.ts";
 * import assert from "node:assert/strict";
 *
 * const evaluate = createEvaluator(compileBundle({
 *   schemaVersion: 1,
 *   env: "test",
 *   policies: [{
 *     policyKey: "reports",
 *     activeVersion: 1,
 *     rules: [{
 *       id: "per-user",
 *       status: "active",
 *       priority: 1,
 *       target: { service: "app", resource: "report", action: "read" },
 *       effect: { type: "throttle", throttle: { limit: 1, windowSeconds: 60, key: "user" } },
 *     }],
 *   }],
 * }));
 * const guard = createGuard({
 *   client: { evaluate },
 *   store: createMemoryStore(),
 *   target: () => ({ service: "app", resource: "report", action: "read" }),
 *   context: (request) => ({ user: request.headers.get("x-user") ?? undefined }),
 * });
 * const handler = guard.serve(() => new Response("report"));
 * const request = () => new Request("http://localhost/", { headers: { "x-user": "ann" } });
 * const first = await handler(request());
 * assert.equal(first.status, 200);
 * assert.equal(first.headers.get("ratelimit"), '"reports/per-user";r=0;t=63');
 * const second = await handler(request());
 * assert.equal(second.status, 429);
 * assert.equal(second.headers.get("retry-after"), "63");
 * ```
 */
export function createGuard(options: GuardOptions<Request>): Guard {
  const verdict = guardVerdict(options, "createGuard");
  const guard = async (request: Request): Promise<Response | null> => {
    const result = await verdict(request);
    return result.proceed ? null : refusalResponse(result);
  };
  return Object.assign(guard, {
    verdict,
    serve: (handler: GuardedHandler) => async (request: Request): Promise<Response> => {
      const result = await verdict(request);
      if (!result.proceed) return refusalResponse(result);
      return withHeaders(await handler(request, result.decision), result.headers);
    },
  });
}
