// This module is browser compatible.
/**
 * Which discovered targets already have a policy (`policy analyze` listing and
 * `analyze --check`).
 *
 * @module
 */
import type { Target } from "../engine/types.ts";
import type { EvaluationPoint, SourceLocation } from "./types.ts";
import { policyKeyForTarget } from "./policy_key_for_target.ts";
import { compareLocations } from "./_compare_locations.ts";

/**
 * A policy that already exists, as found in a draft (`DraftPolicy`) or a
 * bundle (`Policy`): both can be passed as they are.
 */
export interface KnownPolicy {
  /** The policy's key. */
  policyKey: string;
  /** Present on draft policies. */
  discoveredTarget?: Target | undefined;
  /** The policy's rules (only their targets are read). */
  rules?: readonly { readonly target?: Target | undefined }[] | undefined;
}

/**
 * `present`: some known policy names the target, in its `discoveredTarget`
 * or in the target of any of its rules (active or disabled). `missing`: none does.
 */
export type DiscoveredPolicyStatus = "present" | "missing";

/** One discovered target, its status and where the code evaluates it. */
export interface DiscoveredPolicy {
  /** The key `analyze` gives the target ({@link policyKeyForTarget}). */
  policyKey: string;
  /** The discovered target. */
  target: Target;
  /** Whether a known policy names the target. */
  status: DiscoveredPolicyStatus;
  /** Keys of the known policies that name the target, in their order; empty when missing. */
  matchedPolicyKeys: string[];
  /** Every evaluation point of the target, sorted by file, line and column. */
  evaluationPoints: SourceLocation[];
}

/** The listing: one entry per distinct target, sorted by policy key, and counts. */
export interface DiscoveredPolicyList {
  /** One entry per distinct target, sorted by policy key. */
  policies: DiscoveredPolicy[];
  /** Counts over the whole listing. */
  summary: {
    /** Distinct targets found. */
    targets: number;
    /** Evaluation points found. */
    evaluationPoints: number;
    /** Targets with a policy. */
    present: number;
    /** Targets without a policy. */
    missing: number;
  };
}

/**
 * Lists each distinct target of `points` with status `present` when a known
 * policy names it (its `discoveredTarget`, or the target of any rule, active
 * or disabled; matching is exact, as in evaluation) and `missing` otherwise,
 * with every evaluation point of it. `analyze --check` fails when
 * `summary.missing` is not 0.
 *
 * Entries are sorted by policy key and points by file, line and column, so
 * the result can be printed as text or serialised as JSON as it is. Known
 * policies are read defensively: entries or rules without a usable target
 * are ignored.
 *
 * @param points The evaluation points found in source code.
 * @param knownPolicies The `policies` of an existing draft or bundle (empty when there is none).
 *
 * @example A present and a missing target
 * ```ts
 * import { listDiscoveredPolicies } from "./list_discovered_policies.ts";
 * import assert from "node:assert/strict";
 *
 * const invoice = { service: "billing", resource: "invoice", action: "create" };
 * const refund = { service: "billing", resource: "refund", action: "create" };
 * const list = listDiscoveredPolicies(
 *   [
 *     { target: invoice, file: "src/a.ts", line: 3, column: 1 },
 *     { target: refund, file: "src/b.ts", line: 7, column: 9 },
 *   ],
 *   [{ policyKey: "invoices", rules: [{ target: invoice }] }],
 * );
 * assert.deepEqual(list.policies.map((p) => [p.policyKey, p.status, p.matchedPolicyKeys]), [
 *   ["billing.invoice.create", "present", ["invoices"]],
 *   ["billing.refund.create", "missing", []],
 * ]);
 * assert.deepEqual(list.summary, { targets: 2, evaluationPoints: 2, present: 1, missing: 1 });
 * ```
 */
export function listDiscoveredPolicies(
  points: readonly EvaluationPoint[],
  knownPolicies: readonly KnownPolicy[],
): DiscoveredPolicyList {
  const byKey = new Map<string, { target: Target; evaluationPoints: SourceLocation[] }>();
  for (const point of points) {
    const policyKey = policyKeyForTarget(point.target);
    let entry = byKey.get(policyKey);
    if (entry === undefined) {
      const { service, resource, action } = point.target;
      entry = { target: { service, resource, action }, evaluationPoints: [] };
      byKey.set(policyKey, entry);
    }
    entry.evaluationPoints.push({ file: point.file, line: point.line, column: point.column });
  }

  const policies: DiscoveredPolicy[] = [...byKey.keys()]
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
    .map((policyKey) => {
      const { target, evaluationPoints } = byKey.get(policyKey)!;
      const matchedPolicyKeys = _policiesNaming(knownPolicies, target);
      return {
        policyKey,
        target,
        status: matchedPolicyKeys.length > 0 ? "present" : "missing",
        matchedPolicyKeys,
        evaluationPoints: evaluationPoints.sort(compareLocations),
      };
    });

  const present = policies.filter((policy) => policy.status === "present").length;
  return {
    policies,
    /** Counts over the whole listing. */
    summary: {
      targets: policies.length,
      evaluationPoints: points.length,
      present,
      /** Targets without a policy. */
      missing: policies.length - present,
    },
  };
}

function _policiesNaming(knownPolicies: readonly KnownPolicy[], target: Target): string[] {
  const keys: string[] = [];
  for (const policy of knownPolicies) {
    if (typeof policy !== "object" || policy === null || typeof policy.policyKey !== "string") {
      continue;
    }
    const rules = Array.isArray(policy.rules) ? policy.rules : [];
    const names = _sameTarget(policy.discoveredTarget, target) ||
      rules.some((rule) =>
        typeof rule === "object" && rule !== null && _sameTarget(rule.target, target)
      );
    if (names && !keys.includes(policy.policyKey)) keys.push(policy.policyKey);
  }
  return keys;
}

function _sameTarget(candidate: unknown, target: Target): boolean {
  if (typeof candidate !== "object" || candidate === null) return false;
  const { service, resource, action } = candidate as Record<string, unknown>;
  return service === target.service && resource === target.resource && action === target.action;
}
