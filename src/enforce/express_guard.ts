// This module is browser compatible.
/**
 * The Express 5 adapter: `app.use(expressGuard({...}))`. Express is an
 * optional peer dependency: this file imports only its types (from
 * `@types/express`, an optional peer too), which TypeScript erases, so
 * `target` and `context` get Express's `Request`. See docs/enforcement.md
 * "Guards".
 *
 * @example An allowed request goes on, with the decision in `res.locals`
 * ```ts
 * import { expressGuard } from "./express_guard.ts";
 * // @ts-types="@types/express"
 * import type { Request, Response } from "express";
 * import assert from "node:assert/strict";
 *
 * const guard = expressGuard({
 *   client: { evaluate: () => ({ decision: "allow", reason: "default", policyKey: "p" }) },
 *   target: () => ({ service: "billing", resource: "invoice", action: "read" }),
 * });
 * // Stand-ins with the few members the guard uses (Express's own req and res have them all).
 * const req = {} as Request;
 * const res = {
 *   status() { return this; },
 *   set() { return this; },
 *   send() { return this; },
 *   locals: {},
 * } as unknown as Response;
 * let nexted = false;
 * await guard(req, res, () => void (nexted = true));
 * assert.ok(nexted);
 * assert.deepEqual(res.locals.policyDecision, { decision: "allow", reason: "default", policyKey: "p" });
 * ```
 *
 * @module
 */
// @ts-types="@types/express"
import type { NextFunction, Request, Response } from "express";
import type { Decision } from "../engine/types.ts";
import { guardVerdict } from "./_guard_verdict.ts";
import type { GuardOptions } from "./types.ts";

/**
 * What the guard puts in `res.locals` for the handlers behind it. The npm
 * package merges it into Express's `Locals`, so `res.locals.policyDecision`
 * is typed; on Deno, declare the merge in your application
 * (docs/enforcement.md "Guards": JSR packages may not augment global types).
 */
export interface ExpressGuardLocals {
  /** The decision the guard enforced; absent in a handler no guard runs before. */
  policyDecision?: Decision;
}

/**
 * An Express middleware that enforces the decision for each request: a
 * refusal is answered (status, header fields, problem details) without
 * calling `next`; otherwise the `RateLimit` fields of throttled routes are
 * set, the decision is put in `res.locals.policyDecision`, and `next()` is
 * called. A failure (a throwing `target`, `evaluate` refusing the context)
 * goes to `next(error)`, so Express answers 500.
 *
 * @example Guarding a route (Deno reads Express's types from the `@ts-types` line)
 * ```ts
 * // @ts-types="@types/express"
 * import express from "express";
 * import { compileBundle, createEvaluator } from "../engine/mod.ts";
 * import { createMemoryStore } from "./mod.ts";
 * import { expressGuard } from "./express_guard.ts";
 *
 * const evaluate = createEvaluator(compileBundle({ schemaVersion: 1, env: "dev", policies: [] }));
 * const app = express();
 * app.use(
 *   "/invoices",
 *   expressGuard({
 *     client: { evaluate },
 *     store: createMemoryStore(),
 *     target: (req) => ({ service: "billing", resource: "invoice", action: req.method === "GET" ? "read" : "create" }),
 *     context: (req) => ({ tenant: req.get("x-tenant") }),
 *   }),
 * );
 * app.get("/invoices/export", (_req, res) => {
 *   res.send(`decided: ${res.locals.policyDecision?.decision}`);
 * });
 * ```
 */
export function expressGuard(
  options: GuardOptions<Request>,
): (req: Request, res: Response, next: NextFunction) => Promise<void> {
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
