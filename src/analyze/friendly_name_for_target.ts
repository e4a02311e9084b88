// This module is browser compatible.
/**
 * The human-readable name `analyze` gives a discovered policy.
 *
 * @module
 */
import type { Target } from "../engine/types.ts";

/**
 * The `friendlyName` of a discovered policy: service, resource and action
 * joined by single spaces, exactly as written in the code (no case change,
 * no word splitting), so a reader recognises them. It is a label for people,
 * not an identifier: unlike the policy key it may be the same for two
 * targets (`"a b"` + `"c"` and `"a"` + `"b c"`).
 *
 * @param target The target found in source code.
 * @returns For example `billing invoice create`.
 *
 * @example
 * ```ts
 * import { friendlyNameForTarget } from "./friendly_name_for_target.ts";
 * import assert from "node:assert/strict";
 *
 * assert.equal(
 *   friendlyNameForTarget({ service: "billing", resource: "invoice", action: "create" }),
 *   "billing invoice create",
 * );
 * ```
 */
export function friendlyNameForTarget(target: Target): string {
  return `${target.service} ${target.resource} ${target.action}`;
}
