/**
 * tools/test_groups.ts: the quick suite's entry modules import every test
 * module of `tests/` once (checked against a walk of its own here), none of
 * `tests/testdata/` or `tests/node/`, and a test module named so that deno
 * would run it but the groups would not is an error; the `test:deno` task
 * writes the groups, then runs exactly them.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { groupPath, GROUPS, groupSources, testModules } from "../../tools/test_groups.ts";
import { withTempDir } from "../temp_dir.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** Every `*_test.ts` under `folder`, but in testdata/ and node/: a plain walk of this test's own. */
async function walk(folder: string, relative = "tests"): Promise<string[]> {
  const found: string[] = [];
  for await (const entry of Deno.readDir(folder)) {
    const path = `${relative}/${entry.name}`;
    if (entry.isDirectory && !["testdata", "node"].includes(entry.name)) {
      found.push(...await walk(`${folder}/${entry.name}`, path));
    } else if (entry.isFile && entry.name.endsWith("_test.ts")) found.push(path);
  }
  return found;
}

/** The modules a group's source imports, repository-relative. */
const imported = (source: string) =>
  [...source.matchAll(/^import "\.\.\/(.+)";$/gm)].map((match) => match[1]!);

Deno.test("test groups: every test module of tests/ in exactly one group, the groups even", async () => {
  const modules = await testModules(ROOT);
  assert.deepEqual([...modules].sort(), (await walk(`${ROOT}/tests`)).sort());
  assert.ok(modules.length > 100, `${modules.length} test modules`);
  assert.ok(modules.includes("tests/tools/test_groups_test.ts"));
  const sources = groupSources(modules);
  assert.equal(sources.length, GROUPS);
  const all = sources.flatMap(imported);
  assert.deepEqual([...all].sort(), [...modules].sort(), "each module once");
  const sizes = sources.map((source) => imported(source).length);
  assert.ok(Math.max(...sizes) - Math.min(...sizes) <= 1, `sizes ${sizes}`);
});

Deno.test("test groups: testdata/ and node/ are left out; a test module named otherwise is an error", async () => {
  await withTempDir(async (root) => {
    const files = [
      "tests/a_test.ts",
      "tests/deep/b_test.ts",
      "tests/testdata/c_test.ts",
      "tests/node/d_test.ts",
      "tests/_helper.ts",
      "tests/notes.md",
    ];
    for (const file of files) {
      await Deno.mkdir(`${root}/${file.slice(0, file.lastIndexOf("/"))}`, { recursive: true });
      await Deno.writeTextFile(`${root}/${file}`, "");
    }
    assert.deepEqual(await testModules(root), ["tests/a_test.ts", "tests/deep/b_test.ts"]);
    for (const name of ["e.test.ts", "test.ts", "f_test.js", "g.test.mjs"]) {
      await Deno.writeTextFile(`${root}/tests/deep/${name}`, "");
      await assert.rejects(testModules(root), new RegExp(`rename: tests/deep/${name}`));
      await Deno.remove(`${root}/tests/deep/${name}`);
    }
  }, "test-groups-");
});

Deno.test("test groups: test:deno writes the groups, then runs exactly them", async () => {
  const task: string = JSON.parse(await Deno.readTextFile(`${ROOT}/deno.json`)).tasks["test:deno"];
  const [write, run] = task.split(" && ").slice(-2);
  assert.match(write!, /^deno run .*--allow-write=\.test-groups tools\/test_groups\.ts$/);
  const words = run!.split(" | ")[0]!.split(/\s+/);
  assert.equal(words.slice(0, 2).join(" "), "deno test");
  const paths = words.filter((word) => !word.startsWith("-") && word !== "2>&1").slice(2);
  assert.deepEqual(paths, Array.from({ length: GROUPS }, (_, i) => groupPath(i)));
});
