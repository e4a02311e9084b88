// This module is browser compatible.
/**
 * The shared-test memo of wide programs: the instructions an index cannot
 * skip (`program_dispatch.ts`: tests with no admission on the paths it
 * indexes) run at every evaluation that reaches them, and identical
 * conditions compile to one test (`compile_condition.ts`), so a part shared
 * by several of them (`neq status "banned"` in a hundred rules) would run
 * once per rule. Here each part that two or more of those instructions
 * contain is remembered for the evaluation: the first instruction to test it
 * stores its result in a slot of the path table, stamped with the
 * evaluation's number like a path's value, and the others read it. The
 * conditions above a remembered part are remade over it, once per index.
 *
 * A remembered result is the same as testing again: a test is a function of
 * the context, and within one evaluation every nested path is read once.
 *
 * @module
 */
import { combineTests, shapeOf, type Test } from "../compile_condition.ts";
import { AND, NOT, OR } from "../_condition_code.ts";
import type { PathTable } from "../_path_table.ts";

/**
 * The tests of a program with the parts that the instructions numbered in
 * `always` share remembered; the others as they are.
 */
export function withSharedTests(
  tests: readonly (Test | null)[],
  always: readonly number[],
  paths: PathTable,
): (Test | null)[] {
  const counts = new Map<Test, number>();
  for (const i of always) {
    const test = tests[i];
    if (test === null || test === undefined) continue;
    for (const part of partsOf(test, new Set())) counts.set(part, (counts.get(part) ?? 0) + 1);
  }
  const shared = new Set<Test>();
  for (const [part, n] of counts) if (n >= 2) shared.add(part);
  if (shared.size === 0) return tests.slice();
  const made = new Map<Test, Test>();
  const remake = (test: Test): Test => {
    let out = made.get(test);
    if (out !== undefined) return out;
    out = test;
    const shape = shapeOf(test);
    if (shape.kind === AND || shape.kind === OR || shape.kind === NOT) {
      const children = (shape as { tests: readonly Test[] }).tests;
      const remade = children.map(remake);
      if (remade.some((child, k) => child !== children[k])) {
        out = combineTests(shape.kind, remade, paths);
      }
    }
    if (shared.has(test)) out = remembered(out, paths);
    made.set(test, out);
    return out;
  };
  const run = new Set(always);
  return tests.map((test, i) => test !== null && run.has(i) ? remake(test) : test);
}

/** `test` and every condition inside it, each once. */
function partsOf(test: Test, into: Set<Test>): Set<Test> {
  if (into.has(test)) return into;
  into.add(test);
  const shape = shapeOf(test);
  if (shape.kind === AND || shape.kind === OR || shape.kind === NOT) {
    for (const child of (shape as { tests: readonly Test[] }).tests) partsOf(child, into);
  }
  return into;
}

/** `test`, its result remembered for the evaluation in progress (see the module's description). */
function remembered(test: Test, paths: PathTable): Test {
  const slot = paths.memoSlot();
  const { stamps, values } = paths;
  return (ctx) => {
    if (stamps[slot] === paths.gen) return values[slot] as boolean;
    const result = test(ctx);
    // Outside an evaluation (-1) nothing is kept; a getter's evaluation has ended by now.
    const gen = paths.gen;
    if (gen >= 0) {
      stamps[slot] = gen;
      values[slot] = result;
    }
    return result;
  };
}
