// This module is browser compatible.
// Identical conditions share one compiled test: less memory, and fewer
// closures for the call sites that run tests. Conditions are found again in a
// trie keyed by exactly what compileCondition reads of them (operator, path,
// value with its type, children's shared tests), part by part: no key string
// is built, so sharing costs a few map lookups per condition node.
import {
  all,
  ALWAYS_FALSE,
  any,
  compileCondition,
  negation,
  type Test,
} from "./_compile_condition.ts";
import { isRecord, MAX_CONDITION_DEPTH } from "./_guards.ts";

/** A trie node: the test of the conditions whose parts lead here, and the next parts. */
interface Slot {
  test: Test | null;
  next: Map<unknown, Slot> | null;
}

/** A path or value that compiles like any other of its kind: not a string, or not a primitive. */
const OTHER = Symbol("other");
/** The end of a list of values or children. */
const END = Symbol("end");

function slot(): Slot {
  return { test: null, next: null };
}

/** The slot after `part` (a primitive, a symbol above or a shared test); made when missing. */
function step(from: Slot, part: unknown): Slot {
  const next = from.next ??= new Map();
  let to = next.get(part);
  if (to === undefined) next.set(part, to = slot());
  return to;
}

/** A path as compileCondition sees it: a string, or not one. */
function pathPart(path: unknown): unknown {
  return typeof path === "string" ? path : OTHER;
}

/**
 * A value with its type: Map keys keep `"5"`, `5` and `true` apart and
 * `0` and `-0` together, as the comparisons do. Objects, arrays and absent
 * values never compare equal to anything: they are all one part.
 */
function valuePart(value: unknown): unknown {
  return value === null || typeof value === "string" || typeof value === "number" ||
      typeof value === "boolean"
    ? value
    : OTHER;
}

/**
 * A compiler that gives identical conditions one shared test. Two conditions
 * share a test only when compileCondition would compile them to tests that
 * behave the same (`ne` and `neq`, `0` and `-0`, every malformed node).
 *
 * @throws {PolicyError} `BUNDLE_INVALID` for a condition nested too deep, as compileCondition.
 */
export function sharedConditionCompiler(): (node: unknown) => Test {
  const root = slot();

  /** The shared test of `node`, or null when it nests too deep. */
  const share = (node: unknown, depth: number): Test | null => {
    if (depth > MAX_CONDITION_DEPTH) return null;
    if (!isRecord(node)) return ALWAYS_FALSE;
    const op = node.op;
    let at: Slot;
    switch (op) {
      case "eq":
      case "neq":
      case "ne":
      case "gt":
      case "gte":
      case "lt":
      case "lte":
        at = step(
          step(step(root, op === "ne" ? "neq" : op), pathPart(node.path)),
          valuePart(node.value),
        );
        return at.test ??= compileCondition(node);
      case "in": {
        at = step(step(root, op), pathPart(node.path));
        const values = node.values;
        if (Array.isArray(values)) {
          for (let i = 0; i < values.length; i++) at = step(at, valuePart(values[i]));
          at = step(at, END);
        } else {
          at = step(at, OTHER);
        }
        return at.test ??= compileCondition(node);
      }
      case "exists":
        at = step(step(root, op), pathPart(node.path));
        return at.test ??= compileCondition(node);
      case "and":
      case "or": {
        const list = node.conditions !== undefined ? node.conditions : node.args;
        if (!Array.isArray(list) || list.length === 0) return ALWAYS_FALSE;
        const tests: Test[] = [];
        at = step(root, op);
        for (let i = 0; i < list.length; i++) {
          const test = share(list[i], depth + 1);
          if (test === null) return null;
          tests.push(test);
          at = step(at, test);
        }
        at = step(at, END);
        return at.test ??= op === "and" ? all(tests) : any(tests);
      }
      case "not": {
        const child = node.condition !== undefined ? node.condition : node.arg;
        if (!isRecord(child)) return ALWAYS_FALSE;
        const test = share(child, depth + 1);
        if (test === null) return null;
        at = step(step(root, op), test);
        return at.test ??= negation(test);
      }
      default:
        return ALWAYS_FALSE;
    }
  };

  // Too deep: compiling it throws the error.
  return (node) => share(node, 1) ?? compileCondition(node);
}
