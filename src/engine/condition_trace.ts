// This module is browser compatible.
/**
 * The shapes in which traces show conditions (`docs/bundle-format.md`,
 * "Traces"): a condition as written, described node by node
 * ({@link ConditionDescription}), and a condition tested against a request,
 * each leaf with the value it read and every node with its outcome
 * ({@link ConditionTrace}). Both are plain JSON data: no `undefined`, no
 * class instances, nothing that does not survive `JSON.stringify`.
 *
 * @module
 */

/** Strings longer than this are shown cut, as a {@link TracedValueSummary}. */
export const MAX_TRACED_STRING = 64;
/** `in` lists show at most this many values (`operandCount` says how many there are). */
export const MAX_TRACED_VALUES = 16;

/**
 * A value as a trace shows it: a JSON primitive as it is (a string of up to
 * {@link MAX_TRACED_STRING} characters, a finite number, a boolean, null),
 * or a {@link TracedValueSummary} for anything that cannot be shown whole.
 */
export type TracedValue = string | number | boolean | null | TracedValueSummary;

/**
 * A value a trace cannot show whole: a longer string, an object or array, a
 * number that is not finite, or a value JSON does not have.
 */
export interface TracedValueSummary {
  /**
   * `string`, `array`, `object` (a plain object, or `(not a plain object)`
   * for anything else), `number` (`NaN`, `Infinity`), the JavaScript type
   * of a value JSON does not have (`bigint`, `function`, `symbol`), or
   * `missing`: an operand the condition does not have (preview `(missing)`).
   */
  type: string;
  /** The beginning of its JSON text, at most 64 characters, then `…` when cut. */
  preview: string;
  /** A string's or an array's length; null for the rest. */
  length: number | null;
}

/** A `rollout` leaf's parameters, as it applies them (`from` and `bucketing` with their defaults). */
export interface RolloutParameters {
  /** The salt (cut as values are). */
  salt: TracedValue;
  /** The lowest bucket in the rollout. */
  from: number;
  /** Buckets below it are in the rollout. */
  to: number;
  /** `fraction` or `mod100`. */
  bucketing: string;
}

/**
 * A condition that reads the context (`eq`, `neq`/`ne`, `gt`, `gte`, `lt`,
 * `lte`, `in`, `exists`, `contains`, `containsAny`, `containsAll`,
 * `startsWith`, `endsWith`, `like`, `semver`, `rollout`, or an unknown
 * operator with a `path`).
 */
export interface LeafDescription {
  /** A leaf. */
  kind: "leaf";
  /** The operator as written (`ne` stays `ne`; an unknown one as it is). */
  op: string;
  /** The path as written (`ctx.` kept). */
  path: string;
  /**
   * What the value is compared with: a comparison's `value` (also of
   * `contains`, `startsWith`, `endsWith` and `semver`), `like`'s `pattern`,
   * the first {@link MAX_TRACED_VALUES} of the `values` of `in`,
   * `containsAny` and `containsAll` (an unknown operator's `value` or
   * `values`); null for `exists` and `rollout` (and for the JSON value
   * null); a summary of type `missing` when the condition lacks it.
   */
  operand: TracedValue | TracedValue[] | null;
  /** `in`, `containsAny`, `containsAll`: how many values the list has; null for the others. */
  operandCount: number | null;
  /** `semver` only (when well formed): its comparison, `eq`, `neq`, `gt`, `gte`, `lt` or `lte`. */
  cmp?: string;
  /** `rollout` only (when well formed): its parameters. */
  rollout?: RolloutParameters;
  /**
   * Why the leaf is false whatever the context (an unknown operator, a
   * missing or unusable `value` or `values`); null for a well-formed leaf.
   */
  problem: string | null;
}

/** `and` or `or` with its children (`conditions`, or the legacy `args`). */
export interface GroupDescription {
  /** The operator. */
  kind: "and" | "or";
  /** The children, in order. */
  conditions: ConditionDescription[];
}

/** `not` with its child (`condition`, or the legacy `arg`). */
export interface NotDescription {
  /** `not`. */
  kind: "not";
  /** The child. */
  condition: ConditionDescription;
}

/**
 * A node that is false whatever the context and reads nothing: not an
 * object, no `op`, a leaf without a string `path`, `and`/`or` without a
 * non-empty list, `not` without a child object, an unknown operator
 * without a `path`.
 */
export interface InvalidDescription {
  /** A node that is false whatever the context. */
  kind: "invalid";
  /** The `op` when it is a string, else null. */
  op: string | null;
  /** What is wrong, for people. */
  problem: string;
}

/** A condition as written, node by node. */
export type ConditionDescription =
  | LeafDescription
  | GroupDescription
  | NotDescription
  | InvalidDescription;

/** A leaf tested against a request. */
export interface LeafTrace extends LeafDescription {
  /**
   * The value read at `path`, through own properties of plain objects only
   * (as conditions read it); null when absent (see `absent`).
   */
  value: TracedValue;
  /** Nothing was found at `path` (the condition saw it as absent). */
  absent: boolean;
  /**
   * `rollout` only (when well formed): the bucket of the value read
   * (docs/bundle-format.md "Rollout buckets"), or null when the value cannot
   * be bucketed (absent, empty, not a string or a whole number).
   */
  bucket?: number | null;
  /** The leaf's result. */
  outcome: boolean;
}

/** `and` or `or` tested against a request: every child is tested (the trace shows them all). */
export interface GroupTrace {
  /** The operator. */
  kind: "and" | "or";
  /** Every child, in order, tested. */
  conditions: ConditionTrace[];
  /** The group's result. */
  outcome: boolean;
}

/** `not` tested against a request. */
export interface NotTrace {
  /** `not`. */
  kind: "not";
  /** The child, tested. */
  condition: ConditionTrace;
  /** The opposite of the child's outcome. */
  outcome: boolean;
}

/** A node that is false whatever the context (see {@link InvalidDescription}). */
export interface InvalidConditionTrace extends InvalidDescription {
  /** Always false. */
  outcome: false;
}

/** A condition tested against a request, node by node, with each node's outcome. */
export type ConditionTrace = LeafTrace | GroupTrace | NotTrace | InvalidConditionTrace;
