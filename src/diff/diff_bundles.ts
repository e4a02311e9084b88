// This module is browser compatible.
import type { Policy, RuntimeBundleV1, Target } from "../engine/types.ts";
import { type RankEntry, rankings } from "./rankings.ts";
import { booleanField, checkOptions } from "../_internal/check_options.ts";
import { conditionMeaning } from "./_condition_meaning.ts";

/** A field whose value changed; `null` stands for absent. */
export interface FieldChange {
  /** The field's name, for example `priority` or `defaults`. */
  field: string;
  /** The old value, or null when it was absent. */
  old: unknown;
  /** The new value, or null when it is absent. */
  new: unknown;
}

/** A rule added or removed, whole. */
export interface RuleEntry {
  /** The rule's id. */
  ruleId: string;
  /** Its index in its policy's rules (in the bundle it is in). */
  index: number;
  /** The rule as written. */
  rule: unknown;
}

/** A rule of the same id in both, whose fields differ. */
export interface RuleChange {
  /** The rule's id. */
  ruleId: string;
  /** Every field that differs, known fields first. */
  fields: FieldChange[];
}

/** A policy of the same key in both, whose fields or rules differ. */
export interface PolicyChange {
  /** The policy's key. */
  policyKey: string;
  /** `activeVersion` and `defaults`, when they differ. */
  fields: FieldChange[];
  /** Rules by id: added, removed, changed. */
  rules: { added: RuleEntry[]; removed: RuleEntry[]; changed: RuleChange[] };
}

/** A policy added or removed, whole. */
export interface PolicyEntry {
  /** The policy's key. */
  policyKey: string;
  /** Its index in the bundle it is in. */
  index: number;
  /** The policy as the engine reads it: policyKey, activeVersion, defaults (when set), rules. */
  policy: unknown;
}

/** A target whose ranking differs (including targets only one bundle has). */
export interface RankingChange {
  /** The target. */
  target: Target;
  /** Its ranking in the old bundle, strongest first (empty when no rule names it). */
  old: RankEntry[];
  /** Its ranking in the new bundle. */
  new: RankEntry[];
}

/** What changed between two bundles, by meaning ({@link diffBundles}). */
export interface BundleDiff {
  /** True when anything below is not empty. */
  changed: boolean;
  /** `env`, `orgId`, `projectId` that differ (only compared with `compareScope`). */
  scope: FieldChange[];
  /** Policies by key. */
  policies: { added: PolicyEntry[]; removed: PolicyEntry[]; changed: PolicyChange[] };
  /** Targets whose ranking differs, sorted by service, resource, action. */
  targets: RankingChange[];
}

/** Options of {@link diffBundles}. */
export interface DiffOptions {
  /** Also compare `env`, `orgId` and `projectId` (true by default; off when one side is a draft). */
  compareScope?: boolean;
}

/** Rule fields in the order changes are listed; other fields follow, sorted. */
const RULE_FIELDS = [
  "status",
  "priority",
  "target",
  "when",
  "effect",
  "thenEffect",
  "elseEffect",
  "description",
];

/**
 * Lists what changed between two valid bundles, by meaning: policies and
 * rules (by key and id) added, removed, or changed field by field; defaults
 * and active versions; the scope; and every target whose ranking (the order
 * in which its candidates are tested, docs/bundle-format.md "Selecting the
 * decision") differs. Values are compared canonically, so key order,
 * formatting, number spelling (`1e1` and `10`), the spellings of the added
 * operators that mean the same (a rollout's default `from`, a version's
 * `v`: see {@link sameCondition}) and the fields that are not
 * part of the canonical payload (`generatedAt`, `bundleVersion`,
 * `checksum`, `signature`, `etag`, policy fields other than `policyKey`,
 * `activeVersion`, `defaults` and `rules`) never show as changes.
 *
 * O(n log n) in the size of the bundles.
 *
 * @example A priority change that reorders a target
 * ```ts
 * import { diffBundles } from "./diff_bundles.ts";
 * import type { RuntimeBundleV1 } from "../engine/types.ts";
 * import assert from "node:assert/strict";
 *
 * const target = { service: "s", resource: "r", action: "a" };
 * const bundle = (priority: number): RuntimeBundleV1 => ({
 *   schemaVersion: 1,
 *   env: "prod",
 *   policies: [{ policyKey: "p", activeVersion: 1, rules: [
 *     { id: "one", status: "active", priority, target, effect: { type: "allow" } },
 *     { id: "two", status: "active", priority: 5, target, effect: { type: "allow" } },
 *   ] }],
 * });
 * const diff = diffBundles(bundle(1), bundle(9));
 * assert.deepEqual(diff.policies.changed[0]!.rules.changed, [
 *   { ruleId: "one", fields: [{ field: "priority", old: 1, new: 9 }] },
 * ]);
 * assert.deepEqual(diff.targets[0]!.new.map((e) => e.ruleId), ["one", "two"]);
 * assert.equal(diffBundles(bundle(1), bundle(1)).changed, false);
 * ```
 */
export function diffBundles(
  oldBundle: RuntimeBundleV1,
  newBundle: RuntimeBundleV1,
  options: DiffOptions = {},
): BundleDiff {
  checkOptions(options, { compareScope: booleanField }, "diffBundles");
  const scope = options.compareScope === false ? [] : changedFields(
    oldBundle as unknown as Record<string, unknown>,
    newBundle as unknown as Record<string, unknown>,
    ["env", "orgId", "projectId"],
  );
  const policies = diffPolicies(oldBundle.policies, newBundle.policies);
  const targets = diffRankings(oldBundle.policies, newBundle.policies);
  const changed = scope.length > 0 || policies.added.length > 0 || policies.removed.length > 0 ||
    policies.changed.length > 0 || targets.length > 0;
  return { changed, scope, policies, targets };
}

function diffPolicies(
  oldPolicies: readonly Policy[],
  newPolicies: readonly Policy[],
): BundleDiff["policies"] {
  const oldByKey = new Map(
    oldPolicies.map((policy, index) => [policy.policyKey, { policy, index }]),
  );
  const newKeys = new Set(newPolicies.map((policy) => policy.policyKey));
  const added: PolicyEntry[] = [];
  const changed: PolicyChange[] = [];
  newPolicies.forEach((policy, index) => {
    const before = oldByKey.get(policy.policyKey);
    if (before === undefined) {
      added.push({ policyKey: policy.policyKey, index, policy: asRead(policy) });
      return;
    }
    const change = diffPolicy(before.policy, policy);
    if (change !== null) changed.push(change);
  });
  const removed = oldPolicies.flatMap((policy, index) =>
    newKeys.has(policy.policyKey)
      ? []
      : [{ policyKey: policy.policyKey, index, policy: asRead(policy) }]
  );
  return { added, removed, changed };
}

/** A policy as the engine reads it (the canonical payload's projection). */
function asRead(policy: Policy): unknown {
  return {
    policyKey: policy.policyKey,
    activeVersion: policy.activeVersion,
    ...(policy.defaults === undefined ? {} : { defaults: policy.defaults }),
    rules: policy.rules,
  };
}

function diffPolicy(before: Policy, after: Policy): PolicyChange | null {
  const fields = changedFields(
    before as unknown as Record<string, unknown>,
    after as unknown as Record<string, unknown>,
    ["activeVersion", "defaults"],
  );
  const oldById = new Map(before.rules.map((rule, index) => [rule.id, { rule, index }]));
  const newIds = new Set(after.rules.map((rule) => rule.id));
  const added: RuleEntry[] = [];
  const changed: RuleChange[] = [];
  after.rules.forEach((rule, index) => {
    const previous = oldById.get(rule.id);
    if (previous === undefined) {
      added.push({ ruleId: rule.id, index, rule });
      return;
    }
    if (same(previous.rule, rule)) return;
    const a = previous.rule as unknown as Record<string, unknown>;
    const b = rule as unknown as Record<string, unknown>;
    // A rule's `when` written another way that means the same is no change.
    const others = [...new Set([...Object.keys(a), ...Object.keys(b)])]
      .filter((field) => !RULE_FIELDS.includes(field) && field !== "id")
      .sort();
    const ruleFields = changedFields(a, b, [...RULE_FIELDS, ...others]);
    if (ruleFields.length > 0) changed.push({ ruleId: rule.id, fields: ruleFields });
  });
  const removed = before.rules.flatMap((rule, index) =>
    newIds.has(rule.id) ? [] : [{ ruleId: rule.id, index, rule }]
  );
  if (fields.length + added.length + removed.length + changed.length === 0) return null;
  return { policyKey: after.policyKey, fields, rules: { added, removed, changed } };
}

/** The fields among `names` whose values differ canonically. */
function changedFields(
  a: Record<string, unknown>,
  b: Record<string, unknown>,
  names: readonly string[],
): FieldChange[] {
  const changes: FieldChange[] = [];
  for (const field of names) {
    const before = Object.hasOwn(a, field) ? a[field] : undefined;
    const after = Object.hasOwn(b, field) ? b[field] : undefined;
    if (sameField(field, before, after)) continue;
    changes.push({ field, old: before ?? null, new: after ?? null });
  }
  return changes;
}

/**
 * Equality of JSON values as the canonical payload sees them: key order does
 * not matter, `-0` is `0`. Depth is bounded by validation.
 */
export function same(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!same(a[i], b[i])) return false;
    return true;
  }
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  let count = 0;
  for (const key in x) {
    if (!Object.hasOwn(x, key) || x[key] === undefined) continue;
    if (!Object.hasOwn(y, key) || !same(x[key], y[key])) return false;
    count++;
  }
  for (const key in y) if (Object.hasOwn(y, key) && y[key] !== undefined) count--;
  return count === 0;
}

/**
 * Equality of two conditions by meaning: {@link same} once the equivalent
 * spellings of the operators added after the specification's are made one
 * (`_condition_meaning.ts`: a rollout's default `from` and `bucketing`, a
 * version's `v` and build metadata, a `like` pattern's redundant stars and
 * escapes, the order of `containsAny` and `containsAll` values).
 */
function sameCondition(a: unknown, b: unknown): boolean {
  return same(a, b) || same(conditionMeaning(a), conditionMeaning(b));
}

/** Equality of a rule's `field` in two versions: `when` by meaning, the others by {@link same}. */
export function sameField(field: string, a: unknown, b: unknown): boolean {
  return field === "when" ? sameCondition(a, b) : same(a, b);
}

function diffRankings(
  oldPolicies: readonly Policy[],
  newPolicies: readonly Policy[],
): RankingChange[] {
  const before = rankings(oldPolicies);
  const after = rankings(newPolicies);
  const changes: RankingChange[] = [];
  for (const key of new Set([...before.keys(), ...after.keys()])) {
    const a = before.get(key);
    const b = after.get(key);
    const oldRanking = a?.ranking ?? [];
    const newRanking = b?.ranking ?? [];
    if (JSON.stringify(oldRanking) === JSON.stringify(newRanking)) continue;
    changes.push({ target: (b ?? a)!.target, old: oldRanking, new: newRanking });
  }
  return changes.sort((x, y) => compareTargets(x.target, y.target));
}

/** Orders targets by service, resource, action (UTF-16 code units). */
export function compareTargets(a: Target, b: Target): number {
  return compareStrings(a.service, b.service) || compareStrings(a.resource, b.resource) ||
    compareStrings(a.action, b.action);
}

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
