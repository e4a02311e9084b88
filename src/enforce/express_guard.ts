// This module is browser compatible.
/**
 * The Express 5 adapter: `app.use(expressGuard({...}))`. Express is an
 * optional peer dependency: this file imports nothing from it and types the
 * few members it uses itself. See docs/enforcement.md "Guards".
 *
 * @example An allowed request goes on, with the decision in `res.locals`
 * ```ts
 * import { expressGuard, type ExpressResponseLike } from "./express_guard.ts";
 * import assert from "node:assert/strict";
 *
 * const guard = expressGuard({
 *   client: { evaluate: () => ({ decision: "allow", reason: "default", policyKey: "p" }) },
 *   target: () => ({ service: "billing", resource: "invoice", action: "read" }),
 * });
 * // The few members of Express's res the guard uses (Express's own res has them all).
 * const res: ExpressResponseLike = {
 *   status() { return this; },
 *   set() { return this; },
 *   send() { return this; },
 *   locals: {},
 * };
 * let nexted = false;
 * await guard({}, res, () => void (nexted = true));
 * assert.ok(nexted);
 * assert.deepEqual(res.locals.policyDecision, { decision: "allow", reason: "default", policyKey: "p" });
 * ```
 *
 * @module
 */
import { guardVerdict } from "./_guard_verdict.ts";
import type { GuardOptions } from "./types.ts";

/** The members of Express's `res` the guard uses. */
export interface ExpressResponseLike {
  /** Sets the status code. */
  status(code: number): this;
  /** Sets header fields. */
  set(fields: Record<string, string>): this;
  /** Sends the body. */
  send(body: string): this;
  /** Per-request values for the handlers: the guard sets `policyDecision`. */
  locals: Record<string, unknown>;
}

/** Express's `next`. */
export type ExpressNext = (error?: unknown) => void;

/**
 * An Express middleware that enforces the decision for each request: a
 * refusal is answered (status, header fields, problem details) without
 * calling `next`; otherwise the `RateLimit` fields of throttled routes are
 * set, the decision is put in `res.locals.policyDecision`, and `next()` is
 * called. A failure (a throwing `target`, `evaluate` refusing the context)
 * goes to `next(error)`, so Express answers 500.
 *
 * @example
 * ```ts ignore
 * import express from "express";
 * import { expressGuard } from "@policy/runtime/enforce/express";
 *
 * const app = express();
 * app.use("/invoices", expressGuard({
 *   client,
 *   store,
 *   target: (req) => ({ service: "billing", resource: "invoice", action: req.method === "GET" ? "read" : "create" }),
 *   context: (req) => ({ tenant: req.get("x-tenant") }),
 * }));
 * app.get("/invoices/export", (_req, res) => res.send("id,total\n"));
 * ```
 */
export function expressGuard<Req>(
  options: GuardOptions<Req>,
): (req: Req, res: ExpressResponseLike, next: ExpressNext) => Promise<void> {
  const verdict = guardVerdict(options, "expressGuard");
  return async (req, res, next) => {
    let result;
    try {
      result = await verdict(req);
    } catch (error) {
      next(error);
      return;
    }
    if (!result.proceed) {
      res.status(result.status).set(result.headers).send(JSON.stringify(result.problem));
      return;
    }
    res.locals.policyDecision = result.decision;
    res.set(result.headers);
    next();
  };
}
