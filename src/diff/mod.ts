// This module is browser compatible.
/**
 * What a change to a bundle changes: {@link diffBundles} lists the changes
 * by meaning (policies, rules field by field, defaults, scope, and targets
 * whose ranking differs), {@link changedTargets} lists the targets whose
 * decisions may differ, and {@link compareDecisions} evaluates recorded
 * requests against both bundles and reports every decision that differs.
 * `policy diff` is built on them (docs/change-safety.md). Touches no file
 * system and no network.
 *
 * @example What a change of effect does to recorded requests
 * ```ts
 * import { compareDecisions, diffBundles } from "./mod.ts";
 * import assert from "node:assert/strict";
 *
 * const target = { service: "search", resource: "index", action: "query" };
 * const bundle = (type: "allow" | "deny") => ({
 *   schemaVersion: 1 as const,
 *   env: "prod" as const,
 *   policies: [{
 *     policyKey: "search",
 *     activeVersion: 1,
 *     rules: [{ id: "r", status: "active" as const, priority: 1, target, effect: { type } }],
 *   }],
 * });
 * const diff = diffBundles(bundle("allow"), bundle("deny"));
 * assert.equal(diff.changed, true);
 * const comparison = compareDecisions(bundle("allow"), bundle("deny"), [{ target }]);
 * assert.equal(comparison.changed, 1);
 * assert.equal(comparison.changes[0]!.new.decision, "deny");
 * ```
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
export { changedTargets } from "./changed_targets.ts";
export {
  compareDecisions,
  type DecisionChange,
  type DecisionComparison,
  type TargetCount,
  type Transition,
} from "./compare_decisions.ts";
