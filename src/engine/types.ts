// This module is browser compatible.
/**
 * Types for every resource of the bundle format (SPEC.md "Resources and their
 * fields") and for the engine's inputs and outputs.
 *
 * @module
 */

/** The four environments a bundle can be built for. */
export type Env = "prod" | "staging" | "dev" | "test";

/** The five decisions the engine can return. */
export type EffectType = "allow" | "deny" | "throttle" | "kill_switch" | "custom";

/** The signature algorithms a bundle can carry. */
export type SignatureAlgorithm = "ECDSA_SHA_256" | "HMAC_SHA256";

/** What a rule applies to. Matching is exact string equality of all three fields. */
export interface Target {
  service: string;
  resource: string;
  action: string;
}

/** Descriptor of a `kill_switch` effect. */
export interface KillSwitchDescriptor {
  service: string;
  reason?: string;
}

/** Descriptor of a `throttle` effect: `limit` requests per `windowSeconds` per `key` bucket. */
export interface ThrottleDescriptor {
  limit: number;
  windowSeconds: number;
  key: string;
}

/** The effect of a rule: `type` plus the descriptor that type needs. */
export interface Effect {
  type: EffectType;
  killSwitch?: KillSwitchDescriptor;
  throttle?: ThrottleDescriptor;
  /** The value of a `custom` effect, often JSON-encoded. */
  value?: string;
}

/** A policy's default, applied when no rule of the policy fires. */
export interface PolicyDefault {
  effect: EffectType;
  killSwitch?: KillSwitchDescriptor;
  throttle?: ThrottleDescriptor;
  /** The value of a `custom` default (named `customEffect`, not `value`). */
  customEffect?: string;
}

/** A JSON primitive a comparison can be made against. */
export type ConditionValue = string | number | boolean | null;

/** A comparison of the context value at `path` with `value`. */
export interface ComparisonCondition {
  op: "eq" | "neq" | "ne" | "gt" | "gte" | "lt" | "lte";
  path: string;
  value: ConditionValue;
}

/** True when the context value at `path` equals one of `values`. */
export interface InCondition {
  op: "in";
  path: string;
  values: ConditionValue[];
}

/** True when the context value at `path` is present and not `null`. */
export interface ExistsCondition {
  op: "exists";
  path: string;
}

/** Short-circuit combinators (`args` is the legacy spelling of `conditions`). */
export interface LogicalCondition {
  op: "and" | "or";
  conditions?: Condition[];
  args?: Condition[];
}

/** Inverts its child (`arg` is the legacy spelling of `condition`). */
export interface NotCondition {
  op: "not";
  condition?: Condition;
  arg?: Condition;
}

/** A condition tree (the `when` clause of a rule). */
export type Condition =
  | ComparisonCondition
  | InCondition
  | ExistsCondition
  | LogicalCondition
  | NotCondition;

/** A rule of a policy. */
export interface Rule {
  id: string;
  status: "active" | "disabled";
  priority: number;
  target: Target;
  effect: Effect;
  when?: Condition;
  thenEffect?: Effect;
  elseEffect?: Effect;
  description?: string;
}

/** A policy: rules plus an optional default. */
export interface Policy {
  policyKey: string;
  activeVersion: number;
  rules: Rule[];
  defaults?: PolicyDefault;
}

/** A detached signature over the canonical payload. */
export interface Signature {
  algorithm: SignatureAlgorithm | string;
  keyId: string;
  /** Base64 DER for ECDSA, lowercase hex for HMAC. */
  value: string;
}

/** The bundle document (`RuntimeBundleV1`). */
export interface RuntimeBundleV1 {
  schemaVersion: 1;
  env: Env;
  policies: Policy[];
  orgId?: string;
  projectId?: string;
  generatedAt?: string;
  bundleVersion?: number;
  checksum?: string;
  etag?: string;
  signature?: Signature;
}

/** The input of `evaluate`. */
export interface EvaluationRequest {
  target: Target;
  context?: Record<string, unknown>;
}

/** The result of `evaluate` (SPEC.md "Decision"). Fields are present only when they apply. */
export interface Decision {
  decision: EffectType;
  reason: "rule" | "default";
  policyKey?: string;
  ruleId?: string;
  throttle?: ThrottleDescriptor;
  killSwitch?: KillSwitchDescriptor;
  value?: string;
  parsedValue?: unknown;
}

/** A validation finding: a stable code, a message for people, and a JSON Pointer. */
export interface Issue {
  code: string;
  message: string;
  /** JSON Pointer into the document, for example `/policies/0/rules/2/target`. */
  path: string;
}

/** The result of `validateBundle`. */
export interface ValidationResult {
  valid: boolean;
  errors: Issue[];
  warnings: Issue[];
}

/** Allowed top-level context keys (`ContextPolicy.allowedKeys`). */
export interface ContextPolicy {
  allowedKeys: readonly string[];
}
