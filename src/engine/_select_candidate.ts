// This module is browser compatible.
// The hot path shared by evaluate and traceEvaluation.
import type { EvaluationRequest } from "./types.ts";
import type { Candidate, TargetEntry } from "./compile_bundle.ts";
import { PolicyError } from "./policy_error.ts";
import { isPlainObject } from "./_guards.ts";

const EMPTY_CONTEXT: Record<string, unknown> = Object.freeze(Object.create(null));

/**
 * The winning candidate at a target, or null. Every active rule of every
 * applicable policy is considered; a policy's default is a candidate only
 * when none of its rules fired. Ranks were fixed at compile time.
 */
export function selectCandidate(
  entry: TargetEntry,
  context: Record<string, unknown>,
): Candidate | null {
  let best: Candidate | null = null;
  let bestRank = Infinity;
  const policies = entry.policies;
  for (let p = 0; p < policies.length; p++) {
    const policy = policies[p]!;
    const rules = policy.activeRules;
    let fired = false;
    for (let r = 0; r < rules.length; r++) {
      const rule = rules[r]!;
      const c = rule.test === null || rule.test(context) ? rule.onTrue : rule.onFalse;
      if (c !== null) {
        fired = true;
        if (c.rank < bestRank) {
          best = c;
          bestRank = c.rank;
        }
      }
    }
    const fallback = policy.fallback;
    if (!fired && fallback !== null && fallback.rank < bestRank) {
      best = fallback;
      bestRank = fallback.rank;
    }
  }
  return best;
}

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
    for (const key of Object.keys(context)) {
      if (!allowed.has(key)) {
        throw new PolicyError(
          "CONTEXT_KEY_NOT_ALLOWED",
          `context key "${key}" is not in contextPolicy.allowedKeys; remove it from the context or allow it`,
        );
      }
    }
  }
  return context;
}
