// This module is browser compatible.
/**
 * Web-standard `Response`s for verdicts: the refusal itself, and the
 * `RateLimit` fields added to a handler's response.
 *
 * @module
 */
import type { Refusal } from "./types.ts";

/**
 * The `Response` of a refusal: its status, its header fields and its
 * problem details as JSON.
 *
 * @example
 * ```ts
 * import { createEnforcer, refusalResponse } from "./mod.ts";
 * import assert from "node:assert/strict";
 *
 * const verdict = await createEnforcer().enforce({ decision: "deny", reason: "default" });
 * assert.ok(!verdict.proceed);
 * const response = refusalResponse(verdict);
 * assert.equal(response.status, 403);
 * assert.equal(response.headers.get("content-type"), "application/problem+json");
 * const problem = (await response.json()) as { title: string };
 * assert.equal(problem.title, "Forbidden");
 * ```
 */
export function refusalResponse(refusal: Refusal): Response {
  return new Response(JSON.stringify(refusal.problem), {
    status: refusal.status,
    headers: refusal.headers,
  });
}

/**
 * `response` with `headers` set on it (a proceed verdict's `RateLimit`
 * fields). A response whose headers are immutable (from `fetch`,
 * `Response.redirect`) is copied first.
 */
export function withHeaders(response: Response, headers: Record<string, string>): Response {
  const entries = Object.entries(headers);
  if (entries.length === 0) return response;
  let target = response;
  try {
    for (const [name, value] of entries) target.headers.set(name, value);
  } catch {
    target = new Response(response.body, response);
    for (const [name, value] of entries) target.headers.set(name, value);
  }
  return target;
}
