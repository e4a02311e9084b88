/**
 * Every export of the package (`deno.json` "exports") but the CLI, which is
 * a program, opens with a module doc that has a running example: a ```ts
 * block that `deno test --doc` runs (`test:long`), not one marked `ignore`.
 */
import assert from "node:assert/strict";

const ROOT = new URL("../../", import.meta.url);

/** The code blocks of the module doc (the comment holding `@module`) of `text`: their info strings. */
export function moduleDocFences(text: string): string[] | null {
  for (const comment of text.matchAll(/\/\*\*([\s\S]*?)\*\//g)) {
    if (comment[1]!.includes("@module")) {
      return [...comment[1]!.matchAll(/^\s*\*\s*```([^\n]*)$/gm)].map((m) => m[1]!.trim())
        .filter((_info, i) => i % 2 === 0);
    }
  }
  return null;
}

Deno.test("every export but ./cli has a module doc with a running example", () => {
  const { exports } = JSON.parse(Deno.readTextFileSync(new URL("deno.json", ROOT))) as {
    exports: Record<string, string>;
  };
  const lacking: string[] = [];
  for (const [name, source] of Object.entries(exports)) {
    if (name === "./cli") continue;
    const fences = moduleDocFences(Deno.readTextFileSync(new URL(source, ROOT)));
    if (fences === null || !fences.some((info) => /^(ts|typescript)$/.test(info))) {
      lacking.push(`${name} (${source}): ${fences === null ? "no module doc" : fences.join(", ")}`);
    }
  }
  assert.deepEqual(lacking, []);
});

Deno.test("moduleDocFences reads the opening fences of the module doc only", () => {
  const text =
    "/**\n * A.\n * ```ts ignore\n * x\n * ```\n * ```ts\n * y\n * ```\n * @module\n */\n" +
    "/** ```ts\n * z\n * ``` */";
  assert.deepEqual(moduleDocFences(text), ["ts ignore", "ts"]);
  assert.equal(moduleDocFences("/** no module */"), null);
});
