/**
 * The quick and the long suite draw their random inputs from fixed seeds
 * (`tests/_random.ts`, `tests/_fast_check.ts`), so that a run fails only for
 * what changed: no test module imports `fast-check` but through
 * `tests/_fast_check.ts`, which seeds it, and none calls `Math.random`.
 */
import assert from "node:assert/strict";
import { relative } from "node:path";
import { fileURLToPath } from "node:url";
import { findFiles } from "../src/io/find_files.ts";

const TESTS = fileURLToPath(new URL("./", import.meta.url));

Deno.test("tests draw randomness from fixed seeds: fast-check only through _fast_check.ts, no Math.random", async () => {
  // Every .ts and .mjs file of tests/ (test data aside), relative to tests/.
  const files = (await findFiles(TESTS, (name) => /\.(ts|mjs)$/.test(name), {
    enter: (name) => name !== "testdata",
  })).map((file) => relative(TESTS, file));
  assert.ok(files.length > 100, `${files.length} test sources`);
  const unseeded: string[] = [];
  for (const file of files) {
    if (file === "_fast_check.ts" || file === "deterministic_test.ts") continue;
    const text = await Deno.readTextFile(`${TESTS}${file}`);
    if (/from\s+["'](npm:)?fast-check(@[^"']*)?["']/.test(text)) {
      unseeded.push(`${file} imports fast-check`);
    }
    if (/\bMath\.random\s*\(/.test(text)) unseeded.push(`${file} calls Math.random`);
  }
  assert.deepEqual(unseeded, []);
});
