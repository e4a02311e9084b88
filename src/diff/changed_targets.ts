// This module is browser compatible.
import type { Policy, Target } from "../engine/types.ts";
import { collectTargets } from "../engine/rank_target.ts";
import { compareTargets, same, sameField } from "./diff_bundles.ts";

/** The fields of a rule that decide what it gives (`description` is for people). */
const DECIDING_FIELDS = [
  "id",
  "status",
  "priority",
  "when",
  "effect",
  "thenEffect",
  "elseEffect",
] as const;

/**
 * The targets whose decisions may differ between two bundles, sorted by
 * service, resource, action: the targets only one of them names, and those
 * whose rules differ by meaning. A decision at a target depends on exactly
 * the rules that name it, in bundle order, with their policies' keys and
 * `defaults` (docs/bundle-format.md "Selecting the decision"), so a target
 * is listed when that list differs: a rule added, removed or moved, a
 * condition, effect, priority, status or id changed, a policy's `defaults`
 * changed, or two policies naming it swapped places. Everything else is
 * not a change: formatting, key order, number spelling, `description`,
 * `activeVersion`, the bundle's metadata (`bundleVersion`, `generatedAt`),
 * rules of other targets, and policies added or moved elsewhere in the
 * bundle. A target listed may still decide every request as before (a
 * priority raised without changing the order, say); a target not listed
 * cannot change a decision.
 *
 * Linear in the size of the two bundles (no ranking is computed).
 * {@link diffBundles} says what changed; this says where decisions may
 * move, which is what a flag provider tells its listeners
 * (docs/openfeature.md "Events").
 *
 * @example A condition changed at one target of two
 * ```ts
 * import { changedTargets } from "./changed_targets.ts";
 * import type { Policy } from "../engine/types.ts";
 * import assert from "node:assert/strict";
 *
 * const read = { service: "docs", resource: "page", action: "read" };
 * const edit = { service: "docs", resource: "page", action: "edit" };
 * const policies = (plan: string): Policy[] => [{
 *   policyKey: "docs", activeVersion: 1, rules: [
 *     { id: "r", status: "active", priority: 1, target: read, effect: { type: "allow" } },
 *     { id: "e", status: "active", priority: 1, target: edit, effect: { type: "allow" },
 *       when: { op: "eq", path: "plan", value: plan } },
 *   ],
 * }];
 * assert.deepEqual(changedTargets(policies("pro"), policies("team")), [edit]);
 * assert.deepEqual(changedTargets(policies("pro"), policies("pro")), []);
 * ```
 */
export function changedTargets(
  oldPolicies: readonly Policy[],
  newPolicies: readonly Policy[],
): Target[] {
  const before = collectTargets(oldPolicies);
  const after = collectTargets(newPolicies);
  const changed: Target[] = [];
  const seen = new Set<number[]>();
  before.transform((refs) => {
    const target = targetOf(oldPolicies, refs);
    const other = after.get(target.service, target.resource, target.action);
    if (other === undefined) {
      changed.push(target);
    } else {
      seen.add(other);
      if (!sameRules(oldPolicies, refs, newPolicies, other)) changed.push(target);
    }
    return refs;
  });
  after.transform((refs) => {
    if (!seen.has(refs)) changed.push(targetOf(newPolicies, refs));
    return refs;
  });
  return changed.sort(compareTargets);
}

/** The target of the first rule of `refs` (every rule of `refs` names it). */
function targetOf(policies: readonly Policy[], refs: readonly number[]): Target {
  const { service, resource, action } = policies[refs[0]!]!.rules[refs[1]!]!.target;
  return { service, resource, action };
}

/**
 * The rules naming one target in the two bundles are the same by meaning:
 * pair by pair in bundle order, the same policy key, the same `defaults`
 * when the policy starts, and the same deciding fields.
 */
function sameRules(
  a: readonly Policy[],
  refsA: readonly number[],
  b: readonly Policy[],
  refsB: readonly number[],
): boolean {
  if (refsA.length !== refsB.length) return false;
  for (let k = 0; k < refsA.length; k += 2) {
    const policyA = a[refsA[k]!]!;
    const policyB = b[refsB[k]!]!;
    const starts = k === 0 || refsA[k - 2] !== refsA[k];
    if (starts !== (k === 0 || refsB[k - 2] !== refsB[k])) return false;
    if (starts) {
      if (policyA.policyKey !== policyB.policyKey) return false;
      if (!same(policyA.defaults, policyB.defaults)) return false;
    }
    const ruleA = policyA.rules[refsA[k + 1]!] as unknown as Record<string, unknown>;
    const ruleB = policyB.rules[refsB[k + 1]!] as unknown as Record<string, unknown>;
    if (ruleA === ruleB) continue;
    for (const field of DECIDING_FIELDS) {
      const x = Object.hasOwn(ruleA, field) ? ruleA[field] : undefined;
      const y = Object.hasOwn(ruleB, field) ? ruleB[field] : undefined;
      if (!sameField(field, x, y)) return false;
    }
  }
  return true;
}
