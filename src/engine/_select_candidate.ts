// This module is browser compatible.
// The hot path shared by evaluate and traceEvaluation.
import type { Decision, EvaluationRequest } from "./types.ts";
import { type Candidate, NO_RANK, type TargetEntry } from "./compile_bundle.ts";
import type { Test } from "./_compile_condition.ts";
import { PolicyError } from "./policy_error.ts";
import { isPlainObject } from "./_guards.ts";

const EMPTY_CONTEXT: Record<string, unknown> = Object.freeze(Object.create(null));

/**
 * The winning candidate at a target, or null. Every active rule of every
 * applicable policy is considered; a policy's default is a candidate only
 * when none of its rules fired. Ranks were fixed at compile time, so this is
 * a minimum over the candidates that fired, read from the flat program.
 */
export function selectCandidate(
  entry: TargetEntry,
  context: Record<string, unknown>,
): Candidate | null {
  const program = entry.program;
  const length = program.length;
  let best: unknown = null;
  let bestRank = NO_RANK;
  let i = 0;
  while (i < length) {
    const start = i;
    const end = start + 3 + (program[start] as number) * 5;
    let fired = false;
    for (i += 3; i < end; i += 5) {
      const test = program[i] as Test | null;
      if (test === null || test(context)) {
        fired = true;
        const rank = program[i + 1] as number;
        if (rank < bestRank) {
          bestRank = rank;
          best = program[i + 2];
        }
      } else {
        const rank = program[i + 3] as number;
        if (rank !== NO_RANK) {
          fired = true;
          if (rank < bestRank) {
            bestRank = rank;
            best = program[i + 4];
          }
        }
      }
    }
    if (!fired && (program[start + 1] as number) < bestRank) {
      bestRank = program[start + 1] as number;
      best = program[start + 2];
    }
  }
  return best as Candidate | null;
}

/** A fresh decision object with exactly the fields SPEC.md lists for the candidate's type. */
export function makeDecision(c: Candidate, parseCustomEffect: boolean): Decision {
  const d: Decision = c.reason === "rule"
    ? { decision: c.type, reason: "rule", policyKey: c.policyKey, ruleId: c.ruleId }
    : { decision: c.type, reason: "default", policyKey: c.policyKey };
  const t = c.throttle;
  if (t !== null) d.throttle = { limit: t.limit, windowSeconds: t.windowSeconds, key: t.key };
  const ks = c.killSwitch;
  if (ks !== null) {
    d.killSwitch = ks.reason === null
      ? { service: ks.service }
      : { service: ks.service, reason: ks.reason };
  }
  if (c.value !== null) {
    d.value = c.value;
    if (parseCustomEffect && c.valueIsJson) d.parsedValue = JSON.parse(c.value);
  }
  return d;
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
        const shown = quoteKey(key);
        throw new PolicyError(
          "CONTEXT_KEY_NOT_ALLOWED",
          `context key ${shown} is not in contextPolicy.allowedKeys; remove it from the context or allow it`,
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
