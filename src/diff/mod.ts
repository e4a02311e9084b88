// This module is browser compatible.
/**
 * What a change to a bundle changes: {@link diffBundles} lists the changes
 * by meaning (policies, rules field by field, defaults, scope, and targets
 * whose ranking differs), and {@link compareDecisions} evaluates recorded
 * requests against both bundles and reports every decision that differs.
 * `policy diff` is built on them (docs/change-safety.md). Touches no file
 * system and no network.
 *
 * @module
 */
export {
  type BundleDiff,
  diffBundles,
  type DiffOptions,
  type FieldChange,
  type PolicyChange,
  type PolicyEntry,
  type RankingChange,
  type RuleChange,
  type RuleEntry,
} from "./diff_bundles.ts";
export type { RankEntry } from "./rankings.ts";
export {
  compareDecisions,
  type DecisionChange,
  type DecisionComparison,
  type TargetCount,
  type Transition,
} from "./compare_decisions.ts";
