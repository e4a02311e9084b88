// This module is browser compatible.
/**
 * The vocabulary of the bundle format (docs/bundle-format.md), each list
 * once, as a frozen `as const` array, with its type derived from it: code
 * that checks or lists a value and code that types it read the same list.
 *
 * @module
 */

/** Effect types, strongest first (docs/bundle-format.md, "Selecting the decision"). */
export const EFFECT_TYPES = ["kill_switch", "deny", "throttle", "allow", "custom"] as const;

/** The five decisions the engine can return. */
export type EffectType = typeof EFFECT_TYPES[number];

/** The four environments a bundle can be built for. */
export const ENVS = ["prod", "staging", "dev", "test"] as const;

/** The four environments a bundle can be built for. */
export type Env = typeof ENVS[number];

/**
 * Every supported signature algorithm: ECDSA P-256 with SHA-256 (base64 DER
 * signature) and HMAC-SHA256 with a 256-bit secret (lowercase hex).
 */
export const SIGNATURE_ALGORITHMS = ["ECDSA_SHA_256", "HMAC_SHA256"] as const;

/** The signature algorithms a bundle can carry. */
export type SignatureAlgorithm = typeof SIGNATURE_ALGORITHMS[number];

/** A rule's statuses: only `active` rules fire. */
export const RULE_STATUSES = ["active", "disabled"] as const;

/** A rule's status: only `active` rules fire; a `disabled` rule still makes its policy apply. */
export type RuleStatus = typeof RULE_STATUSES[number];

/** The ordering comparisons: numbers (or strings that are JSON number literals). */
export const ORDERING_OPERATORS = ["gt", "gte", "lt", "lte"] as const;

/** An ordering comparison. */
export type OrderingOperator = typeof ORDERING_OPERATORS[number];

/** The comparisons of a value at a path with one value (`ne` is the legacy spelling of `neq`). */
export const COMPARISON_OPERATORS = ["eq", "neq", "ne", ...ORDERING_OPERATORS] as const;

/** A comparison operator: `eq`, `neq` (legacy `ne`) compare strictly; the others order numbers. */
export type ComparisonOperator = typeof COMPARISON_OPERATORS[number];

/** The combinators of condition lists. */
export const LOGICAL_OPERATORS = ["and", "or"] as const;

/** The operators of an array at a path: one value, any of several, all of several. */
export const CONTAINS_OPERATORS = ["contains", "containsAny", "containsAll"] as const;

/** The operators of a string at a path: prefix, suffix, `*` pattern. */
export const STRING_OPERATORS = ["startsWith", "endsWith", "like"] as const;

/**
 * The operators added after the specification's set (docs/bundle-format.md
 * "Conditions"): a runtime that predates them reads each as an unknown
 * operator, false.
 */
export const ADDED_OPERATORS = [
  ...CONTAINS_OPERATORS,
  ...STRING_OPERATORS,
  "semver",
  "rollout",
] as const;

/** An operator added after the specification's set. */
export type AddedOperator = typeof ADDED_OPERATORS[number];

/** How `semver` compares the version at a path with its `value`. */
export const SEMVER_COMPARISONS = ["eq", "neq", "gt", "gte", "lt", "lte"] as const;

/** A comparison of `semver`. */
export type SemverComparison = typeof SEMVER_COMPARISONS[number];

/** How `rollout` turns a hash into a bucket: `h / 2^32 × 100`, or `h mod 100`. */
export const ROLLOUT_BUCKETINGS = ["fraction", "mod100"] as const;

/** A bucketing of `rollout`. */
export type RolloutBucketing = typeof ROLLOUT_BUCKETINGS[number];

/** Every condition operator the runtime knows (an unknown one evaluates to false). */
export const CONDITION_OPERATORS = [
  ...COMPARISON_OPERATORS,
  "in",
  "exists",
  ...LOGICAL_OPERATORS,
  "not",
  ...ADDED_OPERATORS,
] as const;

/** A condition operator the runtime knows. */
export type ConditionOperator = typeof CONDITION_OPERATORS[number];

// Frozen: the lists are shared by every caller.
Object.freeze(EFFECT_TYPES);
Object.freeze(ENVS);
Object.freeze(SIGNATURE_ALGORITHMS);
Object.freeze(RULE_STATUSES);
Object.freeze(ORDERING_OPERATORS);
Object.freeze(COMPARISON_OPERATORS);
Object.freeze(LOGICAL_OPERATORS);
Object.freeze(CONTAINS_OPERATORS);
Object.freeze(STRING_OPERATORS);
Object.freeze(ADDED_OPERATORS);
Object.freeze(SEMVER_COMPARISONS);
Object.freeze(ROLLOUT_BUCKETINGS);
Object.freeze(CONDITION_OPERATORS);
