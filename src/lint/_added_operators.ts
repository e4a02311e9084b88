// This module is browser compatible.
/**
 * The operators a condition uses that were added after the specification's
 * (`ADDED_OPERATORS`): a runtime older than them reads each as an unknown
 * operator, false (docs/bundle-format.md "Conditions"). Reads the condition
 * as the engine does (`visitConditions`).
 *
 * @module
 */
import { ADDED_OPERATORS } from "../public/vocabulary.ts";
import { visitConditions } from "../engine/operators/visit_conditions.ts";

const ADDED: ReadonlySet<unknown> = new Set(ADDED_OPERATORS);

/** The added operators a condition uses, in order of first use, and where the first is. */
export interface AddedOperatorUse {
  /** JSON Pointer segments from the condition to the first leaf of an added operator. */
  readonly at: readonly (string | number)[];
  /** Each added operator used, once, in tree order. */
  readonly operators: readonly string[];
}

/** The added operators `condition` uses, or null when it uses none. */
export function addedOperatorsIn(condition: unknown): AddedOperatorUse | null {
  const operators: string[] = [];
  let first: (string | number)[] | null = null;
  visitConditions(condition, (node, at) => {
    if (!ADDED.has(node.op)) return;
    if (!operators.includes(node.op as string)) operators.push(node.op as string);
    first ??= [...at];
  });
  return first === null ? null : { at: first, operators };
}
