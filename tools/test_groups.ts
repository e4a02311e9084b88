/**
 * Writes the entry modules of the quick suite's Deno half: every test module
 * of `tests/` (as `deno test` finds them, but `tests/testdata/` and
 * `tests/node/`) is imported by exactly one of {@link GROUPS} modules in
 * `.test-groups/`, which the `test:deno` task runs with `deno test
 * --parallel`.
 *
 * Why: `deno test` runs each module in a fresh worker, and a worker costs
 * about 0.1 s of CPU before its first test (a new V8 heap), 0.2 s with the
 * library to compile again; with some 160 test modules that was a quarter of
 * the Deno half's CPU. A few groups keep two workers busy at a fraction of
 * that. Tests are unchanged and still run alone (`deno test tests/x_test.ts`);
 * they never change the current folder or the environment, which is what lets
 * them share a worker (ARCHITECTURE.md, "Tests").
 *
 * A test module named otherwise than `*_test.ts` (`deno test` would also run
 * `*.test.ts` or `test.ts`) is an error, never left out of the run.
 *
 * Usage: `deno run --allow-read=. --allow-write=.test-groups tools/test_groups.ts`.
 *
 * @module
 */
import { join, relative } from "node:path";
import { findFiles } from "../src/io/find_files.ts";
import { writeIfChanged } from "./_write_if_changed.ts";

/** How many entry modules: twice the two workers of the 2-core machine, for balance. */
export const GROUPS = 4;

/** The folder of the entry modules (git-ignored; not a test folder itself). */
export const GROUP_FOLDER = ".test-groups";

/** The path of group `index`, repository-relative. */
export function groupPath(index: number): string {
  return `${GROUP_FOLDER}/group_${index}.ts`;
}

/** Names `deno test` takes for a test module by default. */
const DENO_TEST_NAME = /^(?:.*[._])?test\.(?:ts|tsx|mts|js|mjs|jsx)$/;

/** The test modules under `root/tests/` that the quick suite runs, repository-relative, sorted. */
export async function testModules(root: string): Promise<string[]> {
  const found = await findFiles(join(root, "tests"), (name) => DENO_TEST_NAME.test(name), {
    enter: (name) => name !== "testdata" && name !== "node" && !name.startsWith("."),
  });
  const modules = found.map((file) => relative(root, file).replaceAll("\\", "/"));
  const misnamed = modules.filter((file) => !file.endsWith("_test.ts"));
  if (misnamed.length > 0) {
    throw new Error(`test modules are named *_test.ts; rename: ${misnamed.join(", ")}`);
  }
  return modules;
}

/** The source of each group: round-robin over the sorted modules, so each folder is spread out. */
export function groupSources(modules: readonly string[], groups = GROUPS): string[] {
  return Array.from(
    { length: groups },
    (_, index) =>
      "// Written by tools/test_groups.ts: do not edit.\n" +
      modules.filter((_, i) => i % groups === index).map((file) => `import "../${file}";\n`)
        .join(""),
  );
}

if (import.meta.main) {
  const root = Deno.cwd();
  const sources = groupSources(await testModules(root));
  for (const [index, source] of sources.entries()) {
    await writeIfChanged(join(root, groupPath(index)), source);
  }
}
