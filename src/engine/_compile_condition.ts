// This module is browser compatible.
// Compiles a `when` tree once into closures (docs/bundle-format.md, "Conditions (`when`)").
import { PolicyError } from "./policy_error.ts";
import {
  isConditionValue,
  isPlainObject,
  isRecord,
  MAX_CONDITION_DEPTH,
  toComparableNumber,
} from "./_guards.ts";
import { leafNode, TrieNode } from "./_condition_trie.ts";

/** A compiled condition: a test of the request context. */
export type Test = (context: Record<string, unknown>) => boolean;

const ALWAYS_FALSE: Test = () => false;

/** Compiles a condition; malformed nodes and unknown operators compile to false. */
export function compileCondition(node: unknown): Test {
  return compileNode(node, 1, null);
}

/**
 * A compiler that gives identical conditions one shared test: less memory,
 * and fewer closures for the call sites that run tests. Identical means the
 * same parts wherever compiling reads them (see `_condition_trie.ts`), so two
 * conditions share a test only when they would compile to tests that behave
 * the same (`ne` and `neq`, `0` and `-0`, every malformed node).
 *
 * @throws {PolicyError} `BUNDLE_INVALID` for a condition nested too deep.
 */
export function sharedConditionCompiler(): (node: unknown) => Test {
  const root = new TrieNode<Test>();
  return (node) => compileNode(node, 1, root);
}

/** Compiles `node`; with `shared`, finds or records its test there. */
function compileNode(node: unknown, depth: number, shared: TrieNode<Test> | null): Test {
  if (depth > MAX_CONDITION_DEPTH) {
    throw new PolicyError(
      "BUNDLE_INVALID",
      `conditions nest at most ${MAX_CONDITION_DEPTH} deep; flatten the condition`,
    );
  }
  if (!isRecord(node)) return ALWAYS_FALSE;
  switch (node.op) {
    case "and":
    case "or": {
      const list = node.conditions !== undefined ? node.conditions : node.args;
      if (!Array.isArray(list) || list.length === 0) return ALWAYS_FALSE;
      const tests = list.map((child) => compileNode(child, depth + 1, shared));
      const combine = node.op === "and" ? all : any;
      if (shared === null) return combine(tests);
      return (shared.at(node.op).atEach(tests).value ??= combine(tests));
    }
    case "not": {
      const child = node.condition !== undefined ? node.condition : node.arg;
      if (!isRecord(child)) return ALWAYS_FALSE;
      const test = compileNode(child, depth + 1, shared);
      if (shared === null) return negation(test);
      return (shared.at("not").at(test).value ??= negation(test));
    }
    default:
      if (shared === null) return compileLeaf(node);
      return (leafNode(shared, node).value ??= compileLeaf(node));
  }
}

/** A condition that tests the context itself (no child conditions). */
function compileLeaf(node: Record<string, unknown>): Test {
  switch (node.op) {
    case "eq":
      return compileEq(node, false);
    case "neq":
    case "ne":
      return compileEq(node, true);
    case "gt":
    case "gte":
    case "lt":
    case "lte":
      return compileOrdering(node, node.op);
    case "in":
      return compileIn(node);
    case "exists": {
      if (typeof node.path !== "string") return ALWAYS_FALSE;
      const key = singleKey(node.path);
      if (key !== null) return (ctx) => ctx[key] != null && Object.hasOwn(ctx, key);
      const get = compilePath(node.path);
      return (ctx) => get(ctx) != null;
    }
    default:
      return ALWAYS_FALSE;
  }
}

/** The opposite of a test. */
function negation(test: Test): Test {
  return (ctx) => !test(ctx);
}

/** True when every test is (in order, stopping at the first false). */
function all(tests: Test[]): Test {
  if (tests.length === 1) return tests[0]!;
  if (tests.length === 2) {
    const [a, b] = tests as [Test, Test];
    return (ctx) => a(ctx) && b(ctx);
  }
  return (ctx) => {
    for (let i = 0; i < tests.length; i++) if (!tests[i]!(ctx)) return false;
    return true;
  };
}

/** True when some test is (in order, stopping at the first true). */
function any(tests: Test[]): Test {
  if (tests.length === 1) return tests[0]!;
  if (tests.length === 2) {
    const [a, b] = tests as [Test, Test];
    return (ctx) => a(ctx) || b(ctx);
  }
  return (ctx) => {
    for (let i = 0; i < tests.length; i++) if (tests[i]!(ctx)) return true;
    return false;
  };
}

/** `eq` compares JSON primitives strictly; an absent value compares as null. `neq` negates. */
function compileEq(node: Record<string, unknown>, negate: boolean): Test {
  const expected = node.value;
  if (typeof node.path !== "string" || !isConditionValue(expected)) return ALWAYS_FALSE;
  const key = singleKey(node.path);
  if (key !== null) {
    // Fast path: read, then prove ownership only when the result depends on it.
    if (expected === null) {
      return negate
        ? (ctx) => ctx[key] != null && Object.hasOwn(ctx, key)
        : (ctx) => ctx[key] == null || !Object.hasOwn(ctx, key);
    }
    return negate
      ? (ctx) => ctx[key] !== expected || !Object.hasOwn(ctx, key)
      : (ctx) => ctx[key] === expected && Object.hasOwn(ctx, key);
  }
  const get = compilePath(node.path);
  if (expected === null) {
    return negate
      ? (ctx) => get(ctx) != null // present and not null
      : (ctx) => get(ctx) == null; // absent or null
  }
  return negate ? (ctx) => get(ctx) !== expected : (ctx) => get(ctx) === expected;
}

/** Ordering compares numbers; a context value that is not a finite number or numeric string is false. */
function compileOrdering(node: Record<string, unknown>, op: "gt" | "gte" | "lt" | "lte"): Test {
  const bound = toComparableNumber(node.value);
  if (typeof node.path !== "string" || Number.isNaN(bound)) return ALWAYS_FALSE;
  const holds = ordering(op, bound);
  const key = singleKey(node.path);
  if (key === null) {
    const get = compilePath(node.path);
    return (ctx) => holds(toComparableNumber(get(ctx)));
  }
  return (ctx) => holds(toComparableNumber(ctx[key])) && Object.hasOwn(ctx, key);
}

/** `n op bound`; false whenever n is NaN. */
function ordering(op: "gt" | "gte" | "lt" | "lte", bound: number): (n: number) => boolean {
  switch (op) {
    case "gt":
      return (n) => n > bound;
    case "gte":
      return (n) => n >= bound;
    case "lt":
      return (n) => n < bound;
    case "lte":
      return (n) => n <= bound;
  }
}

function compileIn(node: Record<string, unknown>): Test {
  const values = node.values;
  if (typeof node.path !== "string" || !Array.isArray(values)) return ALWAYS_FALSE;
  // Objects and arrays never match; an absent value compares as null.
  const primitives = values.filter(isConditionValue);
  const matchesNull = primitives.includes(null);
  const set = primitives.length > 8 ? new Set<unknown>(primitives) : null;
  const matches = (v: unknown): boolean => {
    if (v === undefined) return matchesNull;
    // Set uses SameValueZero, which would match NaN with NaN; `===` never does.
    if (set !== null) return v === v && set.has(v);
    for (let i = 0; i < primitives.length; i++) if (primitives[i] === v) return true;
    return false;
  };
  const key = singleKey(node.path);
  if (key === null) {
    const get = compilePath(node.path);
    return (ctx) => matches(get(ctx));
  }
  return (ctx) => {
    const v = ctx[key];
    if (v === undefined) return matchesNull;
    return Object.hasOwn(ctx, key) ? matches(v) : matchesNull;
  };
}

/** The key of a one-segment path (after stripping `ctx.`), or null. */
function singleKey(path: string): string | null {
  const stripped = path.startsWith("ctx.") ? path.slice(4) : path;
  return stripped.includes(".") ? null : stripped;
}

/**
 * Compiles a dot path (one leading `ctx.` stripped) into a reader that goes
 * through own properties of plain objects only. Inherited properties
 * (`constructor`, `__proto__`, `toString`), arrays and class instances never
 * resolve: the value is absent (`undefined`).
 */
export function compilePath(path: string): (context: Record<string, unknown>) => unknown {
  const segments = (path.startsWith("ctx.") ? path.slice(4) : path).split(".");
  if (segments.length === 1) {
    const key = segments[0]!;
    return (ctx) => Object.hasOwn(ctx, key) ? ctx[key] : undefined;
  }
  if (segments.length === 2) {
    const [a, b] = segments as [string, string];
    return (ctx) => {
      if (!Object.hasOwn(ctx, a)) return undefined;
      const inner = ctx[a];
      return isPlainObject(inner) && Object.hasOwn(inner, b) ? inner[b] : undefined;
    };
  }
  return (ctx) => {
    let current: unknown = ctx;
    for (let i = 0; i < segments.length; i++) {
      if (i > 0 && !isPlainObject(current)) return undefined;
      const key = segments[i]!;
      const record = current as Record<string, unknown>;
      if (!Object.hasOwn(record, key)) return undefined;
      current = record[key];
    }
    return current;
  };
}
