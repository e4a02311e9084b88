// This module is browser compatible.
// Compiles a `when` tree once into a test (docs/bundle-format.md "Conditions").
import { PolicyError } from "../public/policy_error.ts";
import { isRecord, MAX_CONDITION_DEPTH } from "../_internal/guards.ts";
import { leafNode, TrieNode } from "./_condition_trie.ts";
import { PathTable, readPath } from "./_path_table.ts";
import { AND, leafOperation, leafTest, NEVER, NOT, OR, type Shape } from "./_condition_code.ts";

/** A compiled condition: a test of the request context. */
export type Test = (context: Record<string, unknown>) => boolean;

/** The shape of every test (see `_condition_code.ts`), beside the closures. */
const shapes = new WeakMap<Test, Shape>();

const NEVER_SHAPE: Shape = { kind: NEVER, key: null, slot: -1, operand: null };
const ALWAYS_FALSE: Test = () => false;
shapes.set(ALWAYS_FALSE, NEVER_SHAPE);

/** The shape of a test this module compiled (see `_condition_code.ts`). */
export function shapeOf(test: Test): Shape {
  return shapes.get(test) ?? NEVER_SHAPE;
}

/** A test running the condition of `shape`: closures over its children, leaves from {@link leafTest}. */
function makeTest(shape: Shape, paths: PathTable): Test {
  let test: Test;
  switch (shape.kind) {
    case AND:
      test = all((shape as { tests: readonly Test[] }).tests);
      break;
    case OR:
      test = any((shape as { tests: readonly Test[] }).tests);
      break;
    case NOT: {
      const [child] = (shape as { tests: readonly [Test] }).tests;
      test = (ctx) => !child(ctx);
      break;
    }
    default: {
      const leaf = shape as { kind: number; key: string | null; slot: number; operand: unknown };
      test = leafTest(leaf.kind, leaf.key, leaf.slot, leaf.operand, paths);
    }
  }
  shapes.set(test, shape);
  return test;
}

/**
 * A test of `and` or `or` of `tests`, or of `not` of `tests[0]`, as compiling
 * makes them (`dispatch/shared_tests.ts` remakes conditions over remembered
 * children).
 */
export function combineTests(
  kind: typeof AND | typeof OR | typeof NOT,
  tests: readonly Test[],
  paths: PathTable,
): Test {
  return makeTest({ kind, tests } as Shape, paths);
}

/** True when every test is (in order, stopping at the first false). */
function all(tests: readonly Test[]): Test {
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
function any(tests: readonly Test[]): Test {
  if (tests.length === 2) {
    const [a, b] = tests as [Test, Test];
    return (ctx) => a(ctx) || b(ctx);
  }
  return (ctx) => {
    for (let i = 0; i < tests.length; i++) if (tests[i]!(ctx)) return true;
    return false;
  };
}

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
      const kind = node.op === "and" ? AND : OR;
      const combine = () => tests.length === 1 ? tests[0]! : makeTest({ kind, tests }, paths);
      if (shared === null) return combine();
      return (shared.at(node.op).atEach(tests).value ??= combine());
    }
    case "not": {
      const child = node.condition !== undefined ? node.condition : node.arg;
      if (!isRecord(child)) return ALWAYS_FALSE;
      const test = compileNode(child, depth + 1, shared, paths);
      const negation = () => makeTest({ kind: NOT, tests: [test] }, paths);
      if (shared === null) return negation();
      return (shared.at("not").at(test).value ??= negation());
    }
    default:
      if (shared === null) return compileLeaf(node, paths);
      return (leafNode(shared, node).value ??= compileLeaf(node, paths));
  }
}

/**
 * A condition that tests the context itself (no child conditions): its
 * kind and operand, for `_condition_code.ts`, which compares. Anything
 * malformed is false whatever the context.
 */
function compileLeaf(node: Record<string, unknown>, paths: PathTable): Test {
  if (typeof node.path !== "string") return ALWAYS_FALSE;
  const operation = leafOperation(node);
  if (operation === null) return ALWAYS_FALSE;
  const { kind, operand } = operation;
  const slot = paths.slotOf(node.path);
  // One key of the context itself, or null for a nested path.
  const key = paths.parents[slot]! < 0 ? paths.keys[slot]! : null;
  return makeTest({ kind, key, slot, operand }, paths);
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
