// This module is browser compatible.
// The request check shared by evaluate and traceEvaluation.
import type { EvaluationRequest } from "./types.ts";
import { PolicyError } from "../public/policy_error.ts";
import { isPlainObject } from "../_internal/guards.ts";

const EMPTY_CONTEXT: Record<string, unknown> = Object.freeze(Object.create(null));

/**
 * Checks the shape of a request and the context policy; returns the context.
 * @throws {PolicyError} `INVALID_REQUEST` or `CONTEXT_KEY_NOT_ALLOWED`.
 */
export function checkRequest(
  request: EvaluationRequest,
  allowed: ReadonlySet<string> | null,
): Record<string, unknown> {
  const target = request?.target;
  if (
    typeof target !== "object" || target === null || typeof target.service !== "string" ||
    typeof target.resource !== "string" || typeof target.action !== "string"
  ) {
    throw new PolicyError(
      "INVALID_REQUEST",
      "evaluate needs { target: { service, resource, action } } with three strings",
    );
  }
  const context = request.context;
  if (context === undefined) return EMPTY_CONTEXT;
  if (!isPlainObject(context)) {
    throw new PolicyError("INVALID_REQUEST", "context must be a plain object when given");
  }
  if (allowed !== null) {
    // for…in allocates nothing (Object.keys would); inherited keys are not the context's.
    for (const key in context) {
      if (!allowed.has(key) && Object.hasOwn(context, key)) {
        throw new PolicyError(
          "CONTEXT_KEY_NOT_ALLOWED",
          `context key ${
            quoteKey(key)
          } is not in contextPolicy.allowedKeys; remove it from the context or allow it`,
        );
      }
    }
  }
  return context;
}

/**
 * A context key as messages show it: JSON-quoted (so a newline in a key
 * cannot forge a log line) and cut to 100 characters (a request may carry a
 * key of any length, and messages end up in logs).
 */
function quoteKey(key: string): string {
  return JSON.stringify(key.length > 100 ? `${key.slice(0, 100)}…` : key);
}
