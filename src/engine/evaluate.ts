// This module is browser compatible.
import type { ContextPolicy, Decision, EvaluationRequest } from "./types.ts";
import type { CompiledBundle } from "./compile_bundle.ts";
import { checkRequest } from "./_request.ts";
import { makeDecision } from "./_decision.ts";
import { runProgram } from "./_target_program.ts";
import { compiledCodeOf } from "./_compiled_code.ts";
import {
  booleanField,
  checkOptions,
  type Fields,
  NO_OPTIONS,
  objectField,
  required,
  stringListField,
} from "../_internal/check_options.ts";

/** Options of {@link createEvaluator} and {@link evaluate}. */
export interface EvaluateOptions {
  /** Add `parsedValue` to `custom` decisions whose value parses as JSON. */
  parseCustomEffect?: boolean;
  /** Top-level context keys allowed; any other key throws `CONTEXT_KEY_NOT_ALLOWED`. */
  contextPolicy?: ContextPolicy;
}

/** Evaluates one request against a compiled bundle. */
export type Evaluator = (request: EvaluationRequest) => Decision;

/**
 * The fields of {@link EvaluateOptions}, for the library's one option
 * checker (the clients take the same two).
 */
export const EVALUATE_FIELDS: Fields = {
  parseCustomEffect: booleanField,
  contextPolicy: objectField(
    { allowedKeys: required(stringListField(Number.MAX_SAFE_INTEGER)) },
    "{ allowedKeys: string[] }",
  ),
};

/**
 * Binds a compiled bundle and options into a fast evaluation function. The
 * clients hold one and swap it atomically on reload.
 *
 * @example
 * ```ts
 * import { compileBundle, createEvaluator } from "./mod.ts";
 * import assert from "node:assert/strict";
 *
 * const compiled = compileBundle({
 *   schemaVersion: 1,
 *   env: "prod",
 *   policies: [{
 *     policyKey: "billing",
 *     activeVersion: 1,
 *     rules: [{
 *       id: "free-plan",
 *       status: "active",
 *       priority: 10,
 *       target: { service: "billing", resource: "invoice", action: "create" },
 *       effect: { type: "allow" },
 *       when: { op: "eq", path: "ctx.plan", value: "pro" },
 *       elseEffect: { type: "deny" },
 *     }],
 *   }],
 * });
 * const evaluate = createEvaluator(compiled);
 * const target = { service: "billing", resource: "invoice", action: "create" };
 * assert.deepEqual(evaluate({ target, context: { plan: "free" } }), {
 *   decision: "deny",
 *   reason: "rule",
 *   policyKey: "billing",
 *   ruleId: "free-plan",
 * });
 * ```
 */
export function createEvaluator(
  compiled: CompiledBundle,
  options: EvaluateOptions = NO_OPTIONS,
): Evaluator {
  if (options !== NO_OPTIONS) checkOptions(options, EVALUATE_FIELDS, "createEvaluator");
  const parse = options.parseCustomEffect === true;
  const allowed = options.contextPolicy ? new Set(options.contextPolicy.allowedKeys) : null;
  const { code, programs, paths } = compiledCodeOf(compiled);
  return (request) => {
    const context = checkRequest(request, allowed);
    const { service, resource, action } = request.target;
    const start = programs.find(code, service, resource, action);
    const winner = start < 0 ? -1 : runProgram(code, paths, start, context);
    return winner < 0 ? { decision: "deny", reason: "default" } : makeDecision(code, winner, parse);
  };
}

/**
 * Evaluates one request. For many requests, {@link createEvaluator} binds
 * the options once.
 *
 * @example Deny by default
 * ```ts
 * import { compileBundle, evaluate } from "./mod.ts";
 * import assert from "node:assert/strict";
 *
 * const compiled = compileBundle({ schemaVersion: 1, env: "test", policies: [] });
 * const target = { service: "s", resource: "r", action: "a" };
 * assert.deepEqual(evaluate(compiled, { target }), { decision: "deny", reason: "default" });
 * ```
 */
export function evaluate(
  compiled: CompiledBundle,
  request: EvaluationRequest,
  options: EvaluateOptions = NO_OPTIONS,
): Decision {
  return createEvaluator(compiled, options)(request);
}
