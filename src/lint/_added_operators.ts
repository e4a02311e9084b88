// This module is browser compatible.
/**
 * The operators a condition uses that were added after the specification's
 * (`ADDED_OPERATORS`): a runtime older than them reads each as an unknown
 * operator, false (docs/bundle-format.md "Conditions"). Reads the condition
 * as the engine does (`args` and `arg` only without `conditions` and
 * `condition`), at most `MAX_CONDITION_DEPTH` deep.
 *
 * @module
 */
import { isRecord, MAX_CONDITION_DEPTH } from "../_internal/guards.ts";
import { ADDED_OPERATORS } from "../public/vocabulary.ts";

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
  const path: (string | number)[] = [];
  const visit = (node: unknown, depth: number): void => {
    if (depth > MAX_CONDITION_DEPTH || !isRecord(node)) return;
    const op = node.op;
    if (ADDED.has(op)) {
      if (!operators.includes(op as string)) operators.push(op as string);
      first ??= [...path];
      return;
    }
    if (op === "and" || op === "or") {
      const key = node.conditions !== undefined ? "conditions" : "args";
      const list = node[key];
      if (!Array.isArray(list)) return;
      for (let i = 0; i < list.length; i++) {
        path.push(key, i);
        visit(list[i], depth + 1);
        path.length -= 2;
      }
    } else if (op === "not") {
      const key = node.condition !== undefined ? "condition" : "arg";
      path.push(key);
      visit(node[key], depth + 1);
      path.length -= 1;
    }
  };
  visit(condition, 1);
  return first === null ? null : { at: first, operators };
}
