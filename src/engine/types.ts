// This module is browser compatible.
/**
 * Types for every resource of the bundle format (docs/bundle-format.md) and
 * for the engine's inputs and outputs.
 *
 * @module
 */

import type {
  ComparisonOperator,
  EffectType,
  Env,
  RolloutBucketing,
  RuleStatus,
  SemverComparison,
  SignatureAlgorithm,
} from "../public/vocabulary.ts";
import type { Issue } from "../public/issue.ts";

// The vocabulary, each list once with its type derived from it (src/public/vocabulary.ts).
export type {
  ComparisonOperator,
  EffectType,
  Env,
  Issue,
  RolloutBucketing,
  RuleStatus,
  SemverComparison,
  SignatureAlgorithm,
};

/** What a rule applies to. Matching is exact string equality of all three fields. */
export interface Target {
  /** The service the request comes from, for example `billing`. */
  service: string;
  /** The resource acted on, for example `invoice`. */
  resource: string;
  /** The action, for example `create`. */
  action: string;
}

/** Descriptor of a `kill_switch` effect. */
export interface KillSwitchDescriptor {
  /** The service the kill switch turns off. */
  service: string;
  /** Why, for people (for example `maintenance`). */
  reason?: string;
}

/** Descriptor of a `throttle` effect: `limit` requests per `windowSeconds` per `key` bucket. */
export interface ThrottleDescriptor {
  /** Requests allowed per window. */
  limit: number;
  /** Length of the window, in seconds. */
  windowSeconds: number;
  /** What the caller counts requests by, for example `tenant` or `ip`. */
  key: string;
}

/** The effect of a rule: `type` plus the descriptor that type needs. */
export interface Effect {
  /** The decision this effect gives. */
  type: EffectType;
  /** Required when `type` is `kill_switch`. */
  killSwitch?: KillSwitchDescriptor;
  /** Required when `type` is `throttle`. */
  throttle?: ThrottleDescriptor;
  /** The value of a `custom` effect, often JSON-encoded. */
  value?: string;
}

/** A policy's default, applied when no rule of the policy fires. */
export interface PolicyDefault {
  /** The decision of the default. */
  effect: EffectType;
  /** Required for a `kill_switch` default; without it the default is ignored. */
  killSwitch?: KillSwitchDescriptor;
  /** Required for a `throttle` default; without it the default is ignored. */
  throttle?: ThrottleDescriptor;
  /** The value of a `custom` default (named `customEffect`, not `value`). */
  customEffect?: string;
}

/** A JSON primitive a comparison can be made against. */
export type ConditionValue = string | number | boolean | null;

/** A comparison of the context value at `path` with `value`. */
export interface ComparisonCondition {
  /** `eq`, `neq` (legacy `ne`) compare strictly; `gt`, `gte`, `lt`, `lte` compare numbers. */
  op: ComparisonOperator;
  /** Dotted path into the context; one leading `ctx.` is stripped. */
  path: string;
  /** The value compared with. */
  value: ConditionValue;
}

/** True when the context value at `path` equals one of `values`. */
export interface InCondition {
  /** The operator. */
  op: "in";
  /** Dotted path into the context; one leading `ctx.` is stripped. */
  path: string;
  /** The values accepted. */
  values: ConditionValue[];
}

/** True when the context value at `path` is present and not `null`. */
export interface ExistsCondition {
  /** The operator. */
  op: "exists";
  /** Dotted path into the context; one leading `ctx.` is stripped. */
  path: string;
}

/** Short-circuit combinators (`args` is the legacy spelling of `conditions`). */
export interface LogicalCondition {
  /** `and`: every operand is true; `or`: at least one is. */
  op: "and" | "or";
  /** The operands; a missing or empty list makes the condition false. */
  conditions?: Condition[];
  /** Legacy spelling of `conditions`. */
  args?: Condition[];
}

/** Inverts its child (`arg` is the legacy spelling of `condition`). */
export interface NotCondition {
  /** The operator. */
  op: "not";
  /** The condition inverted; a missing one makes `not` false. */
  condition?: Condition;
  /** Legacy spelling of `condition`. */
  arg?: Condition;
}

/**
 * True when the value at `path` is an array with an element equal to
 * `value` (compared as `eq` compares; objects and arrays inside never match).
 */
export interface ContainsCondition {
  /** The operator. */
  op: "contains";
  /** Dotted path into the context; one leading `ctx.` is stripped. */
  path: string;
  /** The element looked for. */
  value: ConditionValue;
}

/**
 * True when the value at `path` is an array holding at least one of
 * `values` (`containsAny`), or every one of them (`containsAll`).
 */
export interface ContainsListCondition {
  /** The operator. */
  op: "containsAny" | "containsAll";
  /** Dotted path into the context; one leading `ctx.` is stripped. */
  path: string;
  /** The elements looked for: a non-empty array. */
  values: ConditionValue[];
}

/**
 * True when the value at `path` is a string that starts (`startsWith`) or
 * ends (`endsWith`) with `value`, comparing UTF-16 code units; `""` matches
 * every string.
 */
export interface AffixCondition {
  /** The operator. */
  op: "startsWith" | "endsWith";
  /** Dotted path into the context; one leading `ctx.` is stripped. */
  path: string;
  /** The prefix or suffix. */
  value: string;
}

/**
 * True when the whole of the string at `path` matches `pattern`: `*`
 * matches any run of characters (also none), `\` makes the next character
 * literal, every other character matches itself.
 */
export interface LikeCondition {
  /** The operator. */
  op: "like";
  /** Dotted path into the context; one leading `ctx.` is stripped. */
  path: string;
  /** At most 1,024 characters, not ending in a lone `\`. */
  pattern: string;
}

/**
 * True when the value at `path` is a SemVer 2.0.0 version (a leading `v`
 * allowed) that compares with `value` as `cmp` says, by SemVer precedence
 * (build metadata ignored). Anything else at `path` is false, for `neq` too.
 */
export interface SemverCondition {
  /** The operator. */
  op: "semver";
  /** Dotted path into the context; one leading `ctx.` is stripped. */
  path: string;
  /** The comparison. */
  cmp: SemverComparison;
  /** A SemVer 2.0.0 version, a leading `v` allowed. */
  value: string;
}

/**
 * True when the value at `path` (a non-empty string, or a whole number
 * within ±(2^53−1)) falls in the bucket range `from ≤ bucket < to`; the
 * bucket comes from MurmurHash3 of `salt + ":" + value`
 * (docs/bundle-format.md "Rollout buckets").
 */
export interface RolloutCondition {
  /** The operator. */
  op: "rollout";
  /** Dotted path into the context; one leading `ctx.` is stripped. */
  path: string;
  /** A non-empty string hashed before the value: the same salt, the same buckets. */
  salt: string;
  /** The lowest bucket in the rollout, 0 to 100, at most `to` (default 0). */
  from?: number;
  /** Buckets below `to` are in the rollout, 0 to 100. */
  to: number;
  /** `fraction` (default): `h / 2^32 × 100`; `mod100`: `h mod 100`. */
  bucketing?: RolloutBucketing;
}

/** A condition tree (the `when` clause of a rule). */
export type Condition =
  | ComparisonCondition
  | InCondition
  | ExistsCondition
  | LogicalCondition
  | NotCondition
  | ContainsCondition
  | ContainsListCondition
  | AffixCondition
  | LikeCondition
  | SemverCondition
  | RolloutCondition;

/** A rule of a policy. */
export interface Rule {
  /** Identifier of the rule, unique in its policy. */
  id: string;
  /** Only `active` rules fire; a `disabled` rule still makes its policy apply. */
  status: RuleStatus;
  /** Higher wins among candidates of the same effect type. */
  priority: number;
  /** The exact target the rule applies to. */
  target: Target;
  /** The effect when there is no `when`, or when it is true and there is no `thenEffect`. */
  effect: Effect;
  /** The condition deciding between `thenEffect`/`effect` and `elseEffect`. */
  when?: Condition;
  /** The effect when `when` is true. */
  thenEffect?: Effect;
  /** The effect when `when` is false; without it the rule is skipped. */
  elseEffect?: Effect;
  /** A note for people. */
  description?: string;
}

/** A policy: rules plus an optional default. */
export interface Policy {
  /** Unique key of the policy, for example `billing.invoice.create`. */
  policyKey: string;
  /** The version of the policy in force. */
  activeVersion: number;
  /** The rules, in order. */
  rules: Rule[];
  /** Applied when the policy applies to a target but none of its rules fires. */
  defaults?: PolicyDefault;
}

/** A detached signature over the canonical payload. */
export interface Signature {
  /** `ECDSA_SHA_256` or `HMAC_SHA256` (anything else is refused at load). */
  algorithm: SignatureAlgorithm | string;
  /** Identifier of the signing key. */
  keyId: string;
  /** Base64 DER for ECDSA, lowercase hex for HMAC. */
  value: string;
}

/**
 * A signed freshness statement (`docs/bundle-format.md`, "Freshness
 * statement"): names one bundle (its checksum, `bundleVersion` and scope)
 * and how long it is current. Its signature covers the statement without
 * `signature`, serialised as the canonical payload is.
 */
export interface FreshnessStatement {
  /** Always `policy-bundle-freshness/v1`. */
  type: "policy-bundle-freshness/v1";
  /** `sha256:<hex>` of the canonical payload of the bundle it names. */
  checksum: string;
  /** The `bundleVersion` of that bundle: the signed one. */
  bundleVersion: number;
  /** The bundle's `orgId`, present exactly when the bundle has one. */
  orgId?: string;
  /** The bundle's `projectId`, present exactly when the bundle has one. */
  projectId?: string;
  /** The bundle's environment. */
  env: Env;
  /** When it was issued: UTC, `YYYY-MM-DDTHH:MM:SS[.mmm]Z`. */
  issuedAt: string;
  /** When it stops being current: UTC, `YYYY-MM-DDTHH:MM:SS[.mmm]Z`. */
  expiresAt: string;
  /** The signature over the statement without this member. */
  signature: Signature;
}

/** The bundle document (`RuntimeBundleV1`). */
export interface RuntimeBundleV1 {
  /** Always `1`. */
  schemaVersion: 1;
  /** The environment the bundle was built for. */
  env: Env;
  /** The policies, in order. */
  policies: Policy[];
  /** The organisation the bundle belongs to. */
  orgId?: string;
  /** The project the bundle belongs to. */
  projectId?: string;
  /** When the bundle was built (ISO 8601); not covered by the checksum. */
  generatedAt?: string;
  /** Revision counter of the bundle; not covered by the checksum. */
  bundleVersion?: number;
  /** `sha256:<hex>` of the canonical payload; checked at load when present. */
  checksum?: string;
  /** ETag as served; not covered by the checksum. */
  etag?: string;
  /** Signature over the canonical payload. */
  signature?: Signature;
  /** A signed freshness statement for this bundle; outside the canonical payload. */
  freshness?: FreshnessStatement;
}

/** The input of `evaluate`. */
export interface EvaluationRequest {
  /** The exact target to decide for. */
  target: Target;
  /** Values the conditions read (`ctx.plan` reads `context.plan`). */
  context?: Record<string, unknown>;
}

/**
 * Where a decision comes from, when a rule decided: its policy and rule are
 * always named.
 */
export interface RuleReason {
  /** A rule fired and decided. */
  reason: "rule";
  /** The policy of the rule. */
  policyKey: string;
  /** The rule that decided. */
  ruleId: string;
}

/**
 * Where a decision comes from, when no rule decided but a policy's
 * `defaults` did: its policy is always named. (When no policy applies, the
 * decision is the {@link DenyByDefault}, which names none.)
 */
export interface DefaultReason {
  /** A default decided. */
  reason: "default";
  /** The policy whose default applied. */
  policyKey: string;
  /** Never present: no rule decided. */
  ruleId?: never;
}

/**
 * The global deny-by-default: no policy applies to the target (or none
 * decided), so the decision is `deny` and names no policy
 * (docs/bundle-format.md "Selecting the decision").
 */
export interface DenyByDefault {
  /** Always `deny`. */
  decision: "deny";
  /** No rule decided. */
  reason: "default";
  /** Never present: no policy decided. */
  policyKey?: never;
  /** Never present: no rule decided. */
  ruleId?: never;
  /** Never present on this decision. */
  throttle?: never;
  /** Never present on this decision. */
  killSwitch?: never;
  /** Never present on this decision. */
  value?: never;
  /** Never present on this decision. */
  parsedValue?: never;
}

/** An `allow` or `deny` decision: no descriptor. */
export interface AllowOrDenyOutcome {
  /** The effect selected. */
  decision: "allow" | "deny";
  /** Never present on this decision. */
  throttle?: never;
  /** Never present on this decision. */
  killSwitch?: never;
  /** Never present on this decision. */
  value?: never;
  /** Never present on this decision. */
  parsedValue?: never;
}

/** A `throttle` decision: the throttle the caller enforces. */
export interface ThrottleOutcome {
  /** The effect selected. */
  decision: "throttle";
  /** The throttle to enforce (always present). */
  throttle: ThrottleDescriptor;
  /** Never present on this decision. */
  killSwitch?: never;
  /** Never present on this decision. */
  value?: never;
  /** Never present on this decision. */
  parsedValue?: never;
}

/** A `kill_switch` decision: the service turned off. */
export interface KillSwitchOutcome {
  /** The effect selected. */
  decision: "kill_switch";
  /** Never present on this decision. */
  throttle?: never;
  /** The kill switch (always present). */
  killSwitch: KillSwitchDescriptor;
  /** Never present on this decision. */
  value?: never;
  /** Never present on this decision. */
  parsedValue?: never;
}

/** A `custom` decision: the rule's value. */
export interface CustomOutcome {
  /** The effect selected. */
  decision: "custom";
  /** Never present on this decision. */
  throttle?: never;
  /** Never present on this decision. */
  killSwitch?: never;
  /** The custom value (always present). */
  value: string;
  /** `value` parsed as JSON, with `parseCustomEffect` and when it parses. */
  parsedValue?: unknown;
}

/**
 * Why a policy decided: a rule ({@link RuleReason}) or the policy's default
 * ({@link DefaultReason}); either names the policy.
 */
export type DecisionReason = RuleReason | DefaultReason;

/** What the engine decided: the effect and the descriptor it carries. */
export type DecisionOutcome =
  | AllowOrDenyOutcome
  | ThrottleOutcome
  | KillSwitchOutcome
  | CustomOutcome;

/**
 * The result of `evaluate` (docs/bundle-format.md "Selecting the decision"),
 * a discriminated union: a field is present exactly when it applies, and
 * the types say so. After `if (d.decision === "throttle")`, `d.throttle` is
 * a {@link ThrottleDescriptor} (the same for `killSwitch` and `value`);
 * after `if (d.reason === "rule")`, `d.policyKey` and `d.ruleId` are
 * strings. Every decision but the {@link DenyByDefault} names the policy
 * that decided: after `if (d.decision !== "deny")`, `d.policyKey` is a
 * string.
 *
 * @example Narrowing on the decision
 * ```ts
 * import { compileBundle, type Decision, evaluate } from "./mod.ts";
 * import assert from "node:assert/strict";
 *
 * const target = { service: "api", resource: "search", action: "query" };
 * const compiled = compileBundle({
 *   schemaVersion: 1,
 *   env: "prod",
 *   policies: [{
 *     policyKey: "api.search",
 *     activeVersion: 1,
 *     rules: [{
 *       id: "per-tenant",
 *       status: "active",
 *       priority: 1,
 *       target,
 *       effect: { type: "throttle", throttle: { limit: 10, windowSeconds: 60, key: "tenant" } },
 *     }],
 *   }],
 * });
 * const d: Decision = evaluate(compiled, { target });
 * if (d.decision === "throttle" && d.reason === "rule") {
 *   assert.equal(d.throttle.limit / d.throttle.windowSeconds, 1 / 6);
 *   assert.equal(d.ruleId, "per-tenant");
 * } else {
 *   assert.fail("a throttle rule decided");
 * }
 * ```
 */
export type Decision = (DecisionReason & DecisionOutcome) | DenyByDefault;

/** The result of `validateBundle`. */
export interface ValidationResult {
  /** True when there are no errors (warnings allowed). */
  valid: boolean;
  /** The errors found, up to the cap (`maxIssues`). */
  errors: Issue[];
  /** The warnings found, up to the cap (`maxIssues`). */
  warnings: Issue[];
  /**
   * Present only when the cap was reached: how many more errors and warnings
   * there were, not listed.
   */
  omitted?: { errors: number; warnings: number };
}

/** Allowed top-level context keys (`ContextPolicy.allowedKeys`). */
export interface ContextPolicy {
  /** The top-level context keys `evaluate` accepts. */
  allowedKeys: readonly string[];
}
