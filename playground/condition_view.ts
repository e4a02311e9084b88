/**
 * Conditions as the Why view shows them: the engine's trace of a rule's
 * `when` (`traceEvaluation`'s `rules[].condition`) as a tree whose leaves
 * read as the engine's formatter writes them (`formatConditionTrace`: the
 * path, the value read, the operator and operand, ✓ or ✗), and whose groups
 * carry their outcome; a condition that was not tested (a disabled rule) as
 * written (`formatCondition`). No DOM.
 *
 * @module
 */
import {
  type Condition,
  type ConditionTrace,
  formatCondition,
  formatConditionTrace,
} from "../src/engine/mod.ts";

/** One node of a condition as the view shows it. */
export interface ConditionNode {
  /** The node in words: `and`, `not`, or a leaf as `seats (3) > 5 ✗`. */
  text: string;
  /** A group's or `not`'s result (a leaf's is in its text). */
  outcome?: boolean;
  children: ConditionNode[];
}

/** A traced condition, node by node. */
export function tracedConditionNode(trace: ConditionTrace): ConditionNode {
  switch (trace.kind) {
    case "and":
    case "or":
      return {
        text: trace.kind,
        outcome: trace.outcome,
        children: trace.conditions.map(tracedConditionNode),
      };
    case "not":
      return {
        text: "not",
        outcome: trace.outcome,
        children: [tracedConditionNode(trace.condition)],
      };
    default:
      return { text: formatConditionTrace(trace), children: [] };
  }
}

/** A condition that was not tested, as written, in one line. */
export function writtenConditionNode(condition: Condition): ConditionNode {
  return { text: formatCondition(condition), children: [] };
}
