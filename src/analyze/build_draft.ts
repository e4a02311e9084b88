// This module is browser compatible.
/**
 * The draft document `analyze` writes (`docs/analyze.md`, "The draft document").
 *
 * @module
 */
import type { PolicyDefault, Rule, Target } from "../engine/types.ts";
import { PolicyError } from "../public/policy_error.ts";
import type { EvaluationPoint } from "./types.ts";
import { policyKeyForTarget } from "./policy_key_for_target.ts";
import { friendlyNameForTarget } from "./friendly_name_for_target.ts";

/** One policy of a draft document. */
export interface DraftPolicy {
  /** Unique across the draft; {@link policyKeyForTarget} for discovered policies. */
  policyKey: string;
  /** The version of the policy; 1 for a new draft. */
  activeVersion: number;
  /** A label for people; {@link friendlyNameForTarget} for discovered policies. */
  friendlyName: string;
  /** The target the evaluation points of this policy use. */
  discoveredTarget: Target;
  /** Empty when the draft is first generated. */
  rules: Rule[];
  /** Set later, with `policies update-policy`. */
  defaults?: PolicyDefault;
}

/** The draft document (authoring format), `schemaVersion` `"1.0"`. */
export interface DraftDocument {
  /** Always `"1.0"` for drafts (bundles use the number 1). */
  schemaVersion: "1.0";
  /** ISO 8601. */
  generatedAt: string;
  /** The policies, sorted by policy key. */
  policies: DraftPolicy[];
}

/**
 * Builds the first draft document from discovered evaluation points: one
 * policy per distinct target, with `activeVersion` 1 and no rules. Policies
 * are sorted by policy key (UTF-16 code unit order), so the same points in
 * any order give the same document.
 *
 * @param points The evaluation points (only their targets are used).
 * @param now The time recorded as `generatedAt`.
 * @throws {PolicyError} `INVALID_OPTIONS` when `now` is an invalid date.
 *
 * @example One policy per distinct target
 * ```ts
 * import { buildDraft } from "./build_draft.ts";
 * import assert from "node:assert/strict";
 *
 * const target = { service: "billing", resource: "invoice", action: "create" };
 * const draft = buildDraft([
 *   { target, file: "src/a.ts", line: 3, column: 1 },
 *   { target, file: "src/b.ts", line: 9, column: 5 },
 * ], new Date("2025-01-02T03:04:05Z"));
 * assert.deepEqual(draft, {
 *   schemaVersion: "1.0",
 *   generatedAt: "2025-01-02T03:04:05.000Z",
 *   policies: [{
 *     policyKey: "billing.invoice.create",
 *     activeVersion: 1,
 *     friendlyName: "billing invoice create",
 *     discoveredTarget: target,
 *     rules: [],
 *   }],
 * });
 * ```
 */
export function buildDraft(
  points: readonly EvaluationPoint[],
  now: Date,
): DraftDocument {
  if (Number.isNaN(now.getTime())) {
    throw new PolicyError(
      "INVALID_OPTIONS",
      "the draft time is an invalid date; pass a valid Date",
    );
  }
  const byKey = new Map<string, Target>();
  for (const { target } of points) {
    const policyKey = policyKeyForTarget(target);
    if (!byKey.has(policyKey)) {
      byKey.set(policyKey, {
        service: target.service,
        resource: target.resource,
        action: target.action,
      });
    }
  }
  const keys = [...byKey.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return {
    /** Always `"1.0"` for drafts (bundles use the number 1). */
    schemaVersion: "1.0",
    generatedAt: now.toISOString(),
    /** The policies, sorted by policy key. */
    policies: keys.map((policyKey) => {
      const target = byKey.get(policyKey)!;
      return {
        policyKey,
        activeVersion: 1,
        friendlyName: friendlyNameForTarget(target),
        discoveredTarget: target,
        rules: [],
      };
    }),
  };
}
