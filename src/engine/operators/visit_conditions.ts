// This module is browser compatible.
/**
 * Walks a condition as the engine reads it (docs/bundle-format.md
 * "Conditions"): `and`/`or` through `conditions` (or the legacy `args` when
 * there is none), `not` through `condition` (or `arg`), never into the
 * children of any other node, at most `MAX_CONDITION_DEPTH` deep. What
 * `lint` and `policy inspect` read of a condition's operators.
 *
 * Not exported by `mod.ts`.
 *
 * @module
 */
import { isRecord, MAX_CONDITION_DEPTH } from "../../_internal/guards.ts";
import { CONDITION_OPERATORS } from "../../public/vocabulary.ts";

/**
 * Calls `visit` with every node of `condition` that is an object, in tree
 * order, with the JSON Pointer segments from `condition` to it (the array
 * is reused: copy it to keep it).
 */
export function visitConditions(
  condition: unknown,
  visit: (node: Record<string, unknown>, at: readonly (string | number)[]) => void,
): void {
  const at: (string | number)[] = [];
  const walk = (node: unknown, depth: number): void => {
    if (depth > MAX_CONDITION_DEPTH || !isRecord(node)) return;
    visit(node, at);
    if (node.op === "and" || node.op === "or") {
      const key = node.conditions !== undefined ? "conditions" : "args";
      const list = node[key];
      if (!Array.isArray(list)) return;
      for (let i = 0; i < list.length; i++) {
        at.push(key, i);
        walk(list[i], depth + 1);
        at.length -= 2;
      }
    } else if (node.op === "not") {
      const key = node.condition !== undefined ? "condition" : "arg";
      at.push(key);
      walk(node[key], depth + 1);
      at.length -= 1;
    }
  };
  walk(condition, 1);
}

/**
 * Every operator the conditions use, once each: the known ones in the
 * vocabulary's order (`CONDITION_OPERATORS`), then any other, sorted.
 */
export function operatorsUsed(conditions: Iterable<unknown>): string[] {
  const seen = new Set<string>();
  for (const condition of conditions) {
    visitConditions(condition, (node) => {
      if (typeof node.op === "string") seen.add(node.op);
    });
  }
  const known: readonly string[] = CONDITION_OPERATORS;
  return [
    ...known.filter((op) => seen.has(op)),
    ...[...seen].filter((op) => !known.includes(op)).sort(),
  ];
}
