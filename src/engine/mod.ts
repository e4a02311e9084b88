// This module is browser compatible.
/**
 * The bundle model, validation, canonical payload, compiled index and
 * evaluation. Touches no file system and no network.
 *
 * @example Validate, compile once, evaluate many times, trace one decision
 * ```ts
 * import { compileBundle, createEvaluator, traceEvaluation, validateBundle } from "./mod.ts";
 * import assert from "node:assert/strict";
 *
 * const target = { service: "billing", resource: "invoice", action: "create" };
 * const bundle = {
 *   schemaVersion: 1 as const,
 *   env: "prod" as const,
 *   policies: [{
 *     policyKey: "billing.invoice.create",
 *     activeVersion: 1,
 *     rules: [{
 *       id: "pro-only",
 *       status: "active" as const,
 *       priority: 1,
 *       target,
 *       when: { op: "eq" as const, path: "ctx.plan", value: "pro" },
 *       effect: { type: "allow" as const },
 *       elseEffect: { type: "deny" as const },
 *     }],
 *   }],
 * };
 * assert.equal(validateBundle(bundle).valid, true);
 * const compiled = compileBundle(bundle);
 * const evaluate = createEvaluator(compiled);
 * assert.equal(evaluate({ target, context: { plan: "pro" } }).decision, "allow");
 * assert.equal(evaluate({ target, context: { plan: "free" } }).decision, "deny");
 * const trace = traceEvaluation(compiled, { target, context: { plan: "free" } });
 * assert.equal(trace.selected?.ruleId, "pro-only");
 * ```
 *
 * @module
 */
export * from "./types.ts";
// The vocabulary as values, for callers that check or list effect types,
// environments, rule statuses and comparison operators.
export {
  COMPARISON_OPERATORS,
  EFFECT_TYPES,
  ENVS,
  ROLLOUT_BUCKETINGS,
  RULE_STATUSES,
  SEMVER_COMPARISONS,
} from "../public/vocabulary.ts";
export * from "../public/policy_error.ts";
export { JsonParseError, parseJson, type ParseJsonOptions } from "./parse_json.ts";
// Named, not `*`: these modules also export what only the load pipeline
// calls (validateForLoad, canonicalPayloadBytesOfParsed, compileForLoad).
export {
  type BundleDigest,
  canonicalJson,
  canonicalJsonBytes,
  canonicalPayload,
  canonicalPayloadBytes,
  computeDigest,
  sortBundleKeys,
} from "./canonical_payload.ts";
export { FRESHNESS_TYPE, freshnessSignedBytes, statementTime } from "./freshness_statement.ts";
export {
  assertValidBundle,
  DEFAULT_MAX_ISSUES,
  validateBundle,
  type ValidateBundleOptions,
} from "./validate_bundle.ts";
export {
  type BundleScope,
  compileBundle,
  type CompiledBundle,
  type CompileOptions,
  COMPILER_VERSION,
  policiesOf,
} from "./compile_bundle.ts";
export { createEvaluator, evaluate, type EvaluateOptions, type Evaluator } from "./evaluate.ts";
// Not rulesThatFire: what suites count as covered (src/authoring/suite.ts), not an API.
export {
  type CandidateTrace,
  type EvaluationTrace,
  type FiredRuleTrace,
  type RuleOutcome,
  type RuleTrace,
  type SkippedRuleTrace,
  traceEvaluation,
} from "./trace_evaluation.ts";
export * from "./condition_trace.ts";
export { formatCondition, formatConditionTrace } from "./format_condition.ts";
