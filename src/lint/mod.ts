// This module is browser compatible.
/**
 * Dead-rule analysis: what in a bundle can never make a difference. Rules
 * outranked on every context, branches that never apply, conditions that
 * are never true or never false, duplicated rules, defaults that never
 * decide. Every finding is certain; where the analysis cannot decide it
 * says nothing. `policy validate` reports these as warnings (docs/errors.md
 * "Dead and shadowed rules"). Touches no file system and no network.
 *
 * @example
 * ```ts
 * import { lintBundle } from "./mod.ts";
 * import assert from "node:assert/strict";
 *
 * const target = { service: "s", resource: "r", action: "a" };
 * const findings = lintBundle({
 *   schemaVersion: 1,
 *   env: "prod",
 *   policies: [{
 *     policyKey: "p",
 *     activeVersion: 1,
 *     rules: [{
 *       id: "never",
 *       status: "active",
 *       priority: 1,
 *       target,
 *       effect: { type: "allow" },
 *       when: { op: "and", conditions: [
 *         { op: "gt", path: "ctx.seats", value: 10 },
 *         { op: "lt", path: "seats", value: 5 },
 *       ] },
 *     }],
 *   }],
 * });
 * assert.deepEqual(findings.map((f) => f.code), ["CONDITION_NEVER_TRUE"]);
 * assert.equal(findings[0]!.path, "/policies/0/rules/0/when");
 * ```
 *
 * @module
 */
export { LINT_CODES, lintBundle, type LintCode, type LintIssue } from "./lint_bundle.ts";
