/**
 * The project's own `docs/` is its specification: sources, docs and tests
 * cite `docs/…` sections, never the original input documents, which are not
 * in the repository or the packages.
 */
import assert from "node:assert/strict";
import * as path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
/** Spelt in two pieces, so that this file does not cite them itself. */
const FORBIDDEN = ["SPEC", "CONTRACT"].map((name) => `${name}.md`);
const SCANNED = [
  "src",
  "docs",
  "tests",
  "bench",
  "examples",
  "tools",
  "playground",
  "README.md",
  "mod.ts",
  "cli.ts",
  "build_npm.ts",
  "deno.json",
];
const TEXT = /\.(ts|mts|mjs|js|md|json|jsonc|py|txt)$/;

async function* files(at: string): AsyncGenerator<string> {
  const info = await Deno.lstat(at);
  if (info.isSymlink) return;
  if (info.isFile) {
    if (TEXT.test(at)) yield at;
    return;
  }
  for await (const entry of Deno.readDir(at)) {
    if (entry.name === "node_modules") continue;
    yield* files(path.join(at, entry.name));
  }
}

Deno.test("no source, doc or test cites the input documents that are not in the repository", async () => {
  const citing: string[] = [];
  let scanned = 0;
  for (const top of SCANNED) {
    const at = path.join(ROOT, top);
    if (!(await Deno.stat(at).catch(() => null))) continue;
    for await (const file of files(at)) {
      scanned++;
      const lines = (await Deno.readTextFile(file)).split("\n");
      lines.forEach((line, i) => {
        if (FORBIDDEN.some((name) => line.includes(name))) {
          citing.push(`${path.relative(ROOT, file)}:${i + 1}: ${line.trim()}`);
        }
      });
    }
  }
  assert.ok(scanned > 100, `scanned ${scanned} files`);
  assert.deepEqual(citing, [], "cite the docs/ section that records the decision instead");
});
