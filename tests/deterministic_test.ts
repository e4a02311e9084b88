/**
 * The quick and the long suite draw their random inputs from fixed seeds
 * (`tests/_random.ts`, `tests/_fast_check.ts`), so that a run fails only for
 * what changed: no test module imports `fast-check` but through
 * `tests/_fast_check.ts`, which seeds it, and none calls `Math.random`.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";

const TESTS = fileURLToPath(new URL("./", import.meta.url));

/** Every `.ts` and `.mjs` file under `folder` of tests/, test data aside. */
async function sources(folder = ""): Promise<string[]> {
  const found: string[] = [];
  for await (const entry of Deno.readDir(`${TESTS}${folder}`)) {
    const path = `${folder}${entry.name}`;
    if (entry.isDirectory && entry.name !== "testdata") found.push(...await sources(`${path}/`));
    else if (entry.isFile && /\.(ts|mjs)$/.test(entry.name)) found.push(path);
  }
  return found.sort();
}

Deno.test("tests draw randomness from fixed seeds: fast-check only through _fast_check.ts, no Math.random", async () => {
  const files = await sources();
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
