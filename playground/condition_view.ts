/**
 * Conditions as the Why view shows them: a tree of nodes in words, with
 * each node's outcome and each leaf's value read when the engine's trace
 * explains the condition (`traceEvaluation`'s `rules[].condition`), or as
 * written when it does not (a disabled rule, or an engine that traces rules
 * only). No DOM.
 *
 * @module
 */
import type { Condition } from "../src/engine/mod.ts";

/**
 * One node of a condition as the view shows it. `outcome` and `read` are
 * present when the engine's trace explains the condition (its leaves' values
 * and results); a condition shown as written has neither.
 */
export interface ConditionNode {
  /** The node in words: `and`, `ctx.plan in ["pro"]`, `seats > 5`. */
  text: string;
  /** The node's result, when traced. */
  outcome?: boolean;
  /** For a traced leaf: the path read and the value found there (absent: nothing there). */
  read?: { path: string; found: boolean; value?: unknown };
  children: ConditionNode[];
}

/** A condition as written (no outcome): the tree of its operators and leaves. */
export function conditionNode(condition: Condition): ConditionNode {
  switch (condition.op) {
    case "and":
    case "or": {
      const operands = condition.conditions ?? condition.args ?? [];
      return {
        text: operands.length === 0 ? `${condition.op} (no operands: false)` : condition.op,
        children: operands.map(conditionNode),
      };
    }
    case "not": {
      const operand = condition.condition ?? condition.arg;
      return operand === undefined
        ? { text: "not (no operand: false)", children: [] }
        : { text: "not", children: [conditionNode(operand)] };
    }
    default:
      return { text: leafText(condition), children: [] };
  }
}

const OPERATORS: Record<string, string> = {
  eq: "==",
  neq: "!=",
  ne: "!=",
  gt: ">",
  gte: ">=",
  lt: "<",
  lte: "<=",
};

/** A leaf in words: `ctx.plan in ["pro","enterprise"]`, `seats > 5`, `flags.x exists`. */
function leafText(condition: Condition): string {
  const c = condition as { op: string; path?: unknown; value?: unknown; values?: unknown };
  const path = String(c.path);
  if (c.op === "exists") return `${path} exists`;
  if (c.op === "in") return `${path} in ${JSON.stringify(c.values)}`;
  return `${path} ${OPERATORS[c.op] ?? c.op} ${JSON.stringify(c.value)}`;
}

/**
 * A condition as the engine's trace explains it (`traceEvaluation`'s
 * `rules[].condition`: `{kind: "and" | "or", conditions}`, `{kind: "not",
 * condition}`, `{kind: "leaf", op, path, operand, value, absent}` or
 * `{kind: "invalid", problem}`, each with its `outcome`). Anything else is
 * shown as it is, as JSON.
 */
export function tracedConditionNode(traced: unknown): ConditionNode {
  if (typeof traced !== "object" || traced === null) return { text: String(traced), children: [] };
  const t = traced as Record<string, unknown>;
  const outcome = typeof t.outcome === "boolean" ? { outcome: t.outcome } : {};
  switch (t.kind) {
    case "and":
    case "or":
      return {
        text: t.kind,
        children: Array.isArray(t.conditions) ? t.conditions.map(tracedConditionNode) : [],
        ...outcome,
      };
    case "not":
      return { text: "not", children: [tracedConditionNode(t.condition)], ...outcome };
    case "leaf": {
      const text = leafText(
        { op: t.op, path: t.path, value: t.operand, values: t.operand } as never,
      );
      const read = t.absent === true
        ? { path: String(t.path), found: false }
        : { path: String(t.path), found: true, value: shownValue(t.value) };
      return { text, children: [], read, ...outcome };
    }
    case "invalid":
      return { text: `(${String(t.problem)})`, children: [], ...outcome };
    default:
      return { text: JSON.stringify(traced), children: [], ...outcome };
  }
}

/** A traced value: itself, or the preview of one too long to show whole. */
function shownValue(value: unknown): unknown {
  if (typeof value === "object" && value !== null && "preview" in value) {
    return (value as { preview: unknown }).preview;
  }
  return value;
}
