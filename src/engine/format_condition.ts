// This module is browser compatible.
/**
 * Conditions in readable form, one renderer for a condition as written
 * (`policy inspect --policies`) and a condition tested against a request
 * (`policy simulate --trace full`, traces of `traceEvaluation`):
 * `plan == "free" and seats > 5`, and with what a request held,
 * `plan == "free" ✓ and seats (3) > 5 ✗`; the other operators by name
 * (`roles contains "admin"`, `version semver >= "2.1.0"`, a rollout with its
 * range, salt and the bucket the value fell in:
 * `userId ("u-1", bucket 17.5) rollout [0, 30) salt "checkout" ✓`). See
 * `docs/bundle-format.md`, "Traces".
 *
 * @module
 */
import type {
  ConditionDescription,
  ConditionTrace,
  LeafDescription,
  LeafTrace,
  RolloutParameters,
  TracedValue,
} from "./condition_trace.ts";
import { describeCondition } from "./_explain_condition.ts";

/** How each leaf operator reads. */
const SYMBOLS: Readonly<Record<string, string>> = {
  eq: "==",
  neq: "!=",
  ne: "!=",
  gt: ">",
  gte: ">=",
  lt: "<",
  lte: "<=",
  in: "in",
};

/**
 * A condition as written, in readable form: comparisons as `path == value`,
 * groups joined by `and`/`or` (nested ones in parentheses), `not (…)`;
 * legacy spellings (`ne`, `args`, `arg`) read as their current ones, and a
 * node that is false whatever the context says why in brackets. Values are
 * cut as traces cut them.
 *
 * @example
 * ```ts
 * import { formatCondition } from "./format_condition.ts";
 * import assert from "node:assert/strict";
 *
 * assert.equal(
 *   formatCondition({
 *     op: "and",
 *     conditions: [
 *       { op: "eq", path: "plan", value: "free" },
 *       { op: "not", condition: { op: "exists", path: "user.beta" } },
 *     ],
 *   }),
 *   'plan == "free" and not (user.beta exists)',
 * );
 * assert.equal(formatCondition({ op: "regex", path: "plan", value: "^f" }),
 *   'plan regex "^f" [unknown operator regex: always false]');
 * ```
 */
export function formatCondition(condition: unknown): string {
  return render(describeCondition(condition));
}

/**
 * A condition tested against a request, in readable form: as
 * {@link formatCondition}, each leaf with the value it read in parentheses
 * (left out when it is the operand itself; `absent` when there was none)
 * and `✓` or `✗`; nested groups and `not` carry their own mark. The whole
 * condition's outcome is not marked: the rule's outcome says it.
 *
 * @example
 * ```ts
 * import { compileBundle, formatConditionTrace, traceEvaluation } from "./mod.ts";
 * import assert from "node:assert/strict";
 *
 * const target = { service: "billing", resource: "invoice", action: "create" };
 * const compiled = compileBundle({
 *   schemaVersion: 1,
 *   env: "prod",
 *   policies: [{
 *     policyKey: "billing",
 *     activeVersion: 1,
 *     rules: [{
 *       id: "free-many-seats",
 *       status: "active",
 *       priority: 10,
 *       target,
 *       when: {
 *         op: "and",
 *         conditions: [
 *           { op: "eq", path: "plan", value: "free" },
 *           { op: "gt", path: "seats", value: 5 },
 *         ],
 *       },
 *       effect: { type: "deny" },
 *     }],
 *   }],
 * });
 * const [rule] = traceEvaluation(compiled, { target, context: { plan: "free", seats: 3 } }).rules;
 * assert.equal(formatConditionTrace(rule!.condition!), 'plan == "free" ✓ and seats (3) > 5 ✗');
 * assert.equal(formatConditionTrace(rule!.falseBecause!), "seats (3) > 5 ✗");
 * ```
 */
export function formatConditionTrace(trace: ConditionTrace): string {
  return render(trace);
}

type Node = ConditionDescription | ConditionTrace;

/** `✓`, `✗`, or nothing for a condition as written. */
function mark(node: Node): string {
  return "outcome" in node ? (node.outcome ? " ✓" : " ✗") : "";
}

/** A node without its own mark (leaves carry theirs). */
function render(node: Node): string {
  switch (node.kind) {
    case "leaf":
      return leafText(node);
    case "invalid":
      return `[invalid: ${node.problem}]${mark(node)}`;
    case "not": {
      const inner = node.condition;
      const composite = inner.kind === "and" || inner.kind === "or";
      return `not (${composite ? render(inner) : asChild(inner)})`;
    }
    default:
      return (node.conditions as Node[]).map(asChild).join(` ${node.kind} `);
  }
}

/** A node inside a group or `not`: with its own mark, a group in parentheses. */
function asChild(node: Node): string {
  switch (node.kind) {
    case "and":
    case "or":
      return `(${render(node)})${mark(node)}`;
    case "not":
      return `${render(node)}${mark(node)}`;
    default:
      return render(node);
  }
}

function leafText(leaf: LeafDescription | LeafTrace): string {
  let symbol = SYMBOLS[leaf.op] ?? leaf.op;
  if (leaf.cmp !== undefined) symbol += ` ${SYMBOLS[leaf.cmp] ?? leaf.cmp}`;
  let read = "";
  if ("outcome" in leaf) {
    const same = !leaf.absent && !Array.isArray(leaf.operand) && isPrimitive(leaf.value) &&
      leaf.value === leaf.operand && leaf.rollout === undefined;
    const bucket = typeof leaf.bucket === "number" ? `, bucket ${JSON.stringify(leaf.bucket)}` : "";
    if (!same) read = ` (${leaf.absent ? "absent" : valueText(leaf.value)}${bucket})`;
  }
  const operand = leaf.op === "exists" || (leaf.op === "rollout" && leaf.rollout === undefined)
    ? ""
    : leaf.rollout !== undefined
    ? ` ${rolloutText(leaf.rollout)}`
    : ` ${operandText(leaf)}`;
  const problem = leaf.problem === null ? "" : ` [${leaf.problem}]`;
  return `${leaf.path}${read} ${symbol}${operand}${problem}${mark(leaf)}`;
}

/** A rollout's range and salt: `[0, 30) salt "checkout"`, then ` mod100` for that bucketing. */
function rolloutText(rollout: RolloutParameters): string {
  const { salt, from, to, bucketing } = rollout;
  return `[${from}, ${to}) salt ${valueText(salt)}${
    bucketing === "fraction" ? "" : ` ${bucketing}`
  }`;
}

function operandText(leaf: LeafDescription): string {
  const operand = leaf.operand;
  if (!Array.isArray(operand)) return valueText(operand);
  const more = (leaf.operandCount ?? operand.length) - operand.length;
  return `[${operand.map(valueText).join(", ")}${more > 0 ? `, … ${more} more` : ""}]`;
}

function isPrimitive(value: TracedValue): boolean {
  return value === null || typeof value !== "object";
}

/** A value as text: JSON for primitives, the preview of a summary. */
function valueText(value: TracedValue): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  return value.preview;
}
