// This module is browser compatible.
// Compiles a `when` tree once into closures (docs/bundle-format.md "Conditions").
import { PolicyError } from "../_internal/policy_error.ts";
import {
  isConditionValue,
  isRecord,
  MAX_CONDITION_DEPTH,
  toComparableNumber,
} from "../_internal/guards.ts";
import { leafNode, TrieNode } from "./_condition_trie.ts";
import { PathTable, readPath } from "./_path_table.ts";

/** A compiled condition: a test of the request context. */
export type Test = (context: Record<string, unknown>) => boolean;

const ALWAYS_FALSE: Test = () => false;

/** Compiles a condition on its own; malformed nodes and unknown operators compile to false. */
export function compileCondition(node: unknown): Test {
  return compileNode(node, 1, null, new PathTable());
}

/** Compiles conditions of one bundle: identical ones share a test, all share one path table. */
export interface ConditionCompiler {
  /** The test of a condition (the same test for an identical condition). */
  compile(node: unknown): Test;
  /** The paths the tests read; an evaluation opens and closes it around its tests. */
  readonly paths: PathTable;
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
export function sharedConditionCompiler(): ConditionCompiler {
  const root = new TrieNode<Test>();
  const paths = new PathTable();
  return { compile: (node) => compileNode(node, 1, root, paths), paths };
}

/** Compiles `node`; with `shared`, finds or records its test there. */
function compileNode(
  node: unknown,
  depth: number,
  shared: TrieNode<Test> | null,
  paths: PathTable,
): Test {
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
      const tests = list.map((child) => compileNode(child, depth + 1, shared, paths));
      const combine = node.op === "and" ? all : any;
      if (shared === null) return combine(tests);
      return (shared.at(node.op).atEach(tests).value ??= combine(tests));
    }
    case "not": {
      const child = node.condition !== undefined ? node.condition : node.arg;
      if (!isRecord(child)) return ALWAYS_FALSE;
      const test = compileNode(child, depth + 1, shared, paths);
      if (shared === null) return negation(test);
      return (shared.at("not").at(test).value ??= negation(test));
    }
    default:
      if (shared === null) return compileLeaf(node, paths);
      return (leafNode(shared, node).value ??= compileLeaf(node, paths));
  }
}

/**
 * A condition that tests the context itself (no child conditions). A
 * top-level key (`plan`, `ctx.plan`) is read from the context and proven an
 * own property only when the result depends on it; a nested path
 * (`user.org.plan`) is read through {@link readPath}, once per evaluation,
 * from own properties of plain objects. An absent value is `undefined`.
 */
function compileLeaf(node: Record<string, unknown>, paths: PathTable): Test {
  if (typeof node.path !== "string") return ALWAYS_FALSE;
  const slot = paths.slotOf(node.path);
  // One key of the context itself, or null for a nested path.
  const key = paths.parents[slot]! < 0 ? paths.keys[slot]! : null;
  switch (node.op) {
    case "eq":
      return compileEq(node.value, false, key, paths, slot);
    case "neq":
    case "ne":
      return compileEq(node.value, true, key, paths, slot);
    case "gt":
    case "gte":
    case "lt":
    case "lte":
      return compileOrdering(node.value, node.op, key, paths, slot);
    case "in":
      return compileIn(node.values, key, paths, slot);
    case "exists":
      return key !== null
        ? (ctx) => ctx[key] != null && Object.hasOwn(ctx, key)
        : (ctx) => readPath(paths, slot, ctx) != null;
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
function compileEq(
  expected: unknown,
  negate: boolean,
  key: string | null,
  paths: PathTable,
  slot: number,
): Test {
  if (!isConditionValue(expected)) return ALWAYS_FALSE;
  if (key !== null) {
    // Read, then prove ownership only when the result depends on it.
    if (expected === null) {
      return negate
        ? (ctx) => ctx[key] != null && Object.hasOwn(ctx, key)
        : (ctx) => ctx[key] == null || !Object.hasOwn(ctx, key);
    }
    return negate
      ? (ctx) => ctx[key] !== expected || !Object.hasOwn(ctx, key)
      : (ctx) => ctx[key] === expected && Object.hasOwn(ctx, key);
  }
  if (expected === null) {
    return negate
      ? (ctx) => readPath(paths, slot, ctx) != null // present and not null
      : (ctx) => readPath(paths, slot, ctx) == null; // absent or null
  }
  return negate
    ? (ctx) => readPath(paths, slot, ctx) !== expected
    : (ctx) => readPath(paths, slot, ctx) === expected;
}

/** Ordering compares numbers; a context value that is not a finite number or numeric string is false. */
function compileOrdering(
  value: unknown,
  op: "gt" | "gte" | "lt" | "lte",
  key: string | null,
  paths: PathTable,
  slot: number,
): Test {
  const bound = toComparableNumber(value);
  if (Number.isNaN(bound)) return ALWAYS_FALSE;
  // An absent value is NaN, and NaN compares false with everything: a true
  // comparison needs ownership proven, a false one does not.
  if (key !== null) {
    switch (op) {
      case "gt":
        return (ctx) => toComparableNumber(ctx[key]) > bound && Object.hasOwn(ctx, key);
      case "gte":
        return (ctx) => toComparableNumber(ctx[key]) >= bound && Object.hasOwn(ctx, key);
      case "lt":
        return (ctx) => toComparableNumber(ctx[key]) < bound && Object.hasOwn(ctx, key);
      case "lte":
        return (ctx) => toComparableNumber(ctx[key]) <= bound && Object.hasOwn(ctx, key);
    }
  }
  switch (op) {
    case "gt":
      return (ctx) => toComparableNumber(readPath(paths, slot, ctx)) > bound;
    case "gte":
      return (ctx) => toComparableNumber(readPath(paths, slot, ctx)) >= bound;
    case "lt":
      return (ctx) => toComparableNumber(readPath(paths, slot, ctx)) < bound;
    case "lte":
      return (ctx) => toComparableNumber(readPath(paths, slot, ctx)) <= bound;
  }
}

function compileIn(values: unknown, key: string | null, paths: PathTable, slot: number): Test {
  if (!Array.isArray(values)) return ALWAYS_FALSE;
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
  if (key === null) return (ctx) => matches(readPath(paths, slot, ctx));
  return (ctx) => {
    const result = matches(ctx[key]);
    // An inherited value reads as absent: ownership matters only if that changes the result.
    return result === matchesNull || Object.hasOwn(ctx, key) ? result : matchesNull;
  };
}

/**
 * Compiles a dot path (one leading `ctx.` stripped) into a reader that reads
 * it as conditions do: through own properties of plain objects only.
 * Inherited properties (`constructor`, `__proto__`, `toString`), arrays and
 * class instances never resolve: the value is absent (`undefined`).
 */
export function compilePath(path: string): (context: Record<string, unknown>) => unknown {
  const table = new PathTable();
  const slot = table.slotOf(path);
  // Outside any evaluation of the table: every call reads afresh and keeps nothing.
  return (context) => readPath(table, slot, context);
}
