// This module is browser compatible.
/**
 * The options both OpenFeature providers share: how flag keys and
 * evaluation contexts map to requests (docs/openfeature.md "The mapping").
 *
 * @module
 */
import type { Target } from "../engine/types.ts";

/** How flag keys and evaluation contexts become requests. */
export interface FlagMappingOptions {
  /**
   * Flag keys and the target each one evaluates. A key not listed here is
   * read as `service/resource/action` (three non-empty parts); any other
   * key is `FLAG_NOT_FOUND`.
   */
  flags?: Readonly<Record<string, Target>>;
  /**
   * The context key the evaluation context's `targetingKey` is passed
   * under. Default `"targetingKey"` (kept under that name).
   */
  targetingKey?: string;
}

/**
 * The flag metadata of every resolution (docs/openfeature.md "Flag
 * metadata"): flat, since OpenFeature's flag metadata holds only strings,
 * numbers and booleans. A field is present only when it applies.
 */
export interface PolicyFlagMetadata {
  /** The decision: `allow`, `deny`, `throttle`, `kill_switch` or `custom`. */
  decision?: string;
  /** The policy whose rule or default decided. */
  policyKey?: string;
  /** The rule that decided (absent for a policy default). */
  ruleId?: string;
  /** The `bundleVersion` of the bundle in force (absent when it has none). */
  bundleVersion?: number;
  /** The checksum of the bundle in force, `sha256:<hex>`. */
  checksum?: string;
  /** A `throttle` decision's limit. */
  throttleLimit?: number;
  /** A `throttle` decision's window, in seconds. */
  throttleWindowSeconds?: number;
  /** What a `throttle` decision counts requests by. */
  throttleKey?: string;
  /** The service a `kill_switch` decision turns off. */
  killSwitchService?: string;
  /** Why, when the kill switch says. */
  killSwitchReason?: string;
  /**
   * The `PolicyError` code of an evaluation that failed (`BUNDLE_STALE`,
   * `CONTEXT_KEY_NOT_ALLOWED`…), beside OpenFeature's `errorCode`.
   */
  policyErrorCode?: string;
}
