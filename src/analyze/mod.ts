/**
 * The discovery core of `policy analyze`: finds the evaluation points
 * (`x.evaluate({ target, ... })` calls) of a source tree with the TypeScript
 * parser, derives a policy key per target, builds the first draft document
 * and lists which targets already have a policy. See `docs/analyze.md`.
 *
 * CLI-only: not re-exported by the root `mod.ts`. `scanSourceTree` loads
 * `npm:typescript` lazily, on first call.
 *
 * @example From source text to a draft
 * ```ts
 * import ts from "typescript";
 * import { buildDraft, discoverEvaluationPoints, listDiscoveredPolicies } from "./mod.ts";
 * import assert from "node:assert/strict";
 *
 * const source = `await client.evaluate({
 *   target: { service: "billing", resource: "invoice", action: "create" }, // the target
 *   context: { plan },
 * });`;
 * const { points } = discoverEvaluationPoints("src/invoices.ts", source, ts);
 * const draft = buildDraft(points, new Date("2025-01-01T00:00:00Z"));
 * assert.equal(draft.policies[0]?.policyKey, "billing.invoice.create");
 *
 * const list = listDiscoveredPolicies(points, draft.policies);
 * assert.equal(list.policies[0]?.status, "present");
 * assert.deepEqual(list.policies[0]?.evaluationPoints, [{ file: "src/invoices.ts", line: 1, column: 7 }]);
 * ```
 *
 * @module
 */
export * from "./types.ts";
export * from "./discover_evaluation_points.ts";
export * from "./scan_source_tree.ts";
export * from "./policy_key_for_target.ts";
export * from "./friendly_name_for_target.ts";
export * from "./build_draft.ts";
export * from "./list_discovered_policies.ts";
