/**
 * The code examples of the doc comments import modules as the project's
 * tests run them (`import { evaluate } from "./mod.ts"`); in the npm
 * package's declaration files, where editors show them, they must import
 * the package by name (`"@policy/runtime/engine"`). Used by `build_npm.ts`.
 *
 * @module
 */
import { posix } from "node:path";

/** An import in a doc comment line: `from "./x.ts"` or `import("../y.ts")`. */
const EXAMPLE_IMPORT = /^(\s*\*.*?(?:\bfrom\s+|\bimport\s*\(\s*))(["'])(\.\.?\/[^"']+)\2/gm;

/**
 * Rewrites the relative imports of the doc comment examples of one
 * declaration file. `source` is the path, from the project root, of the
 * TypeScript file it was emitted from; `packageSpecifierOf` maps a source
 * path to the package specifier that exports it, or undefined. Returns the
 * new text and the imports that no export reaches.
 */
export function rewriteExampleImports(
  text: string,
  source: string,
  packageSpecifierOf: (sourcePath: string) => string | undefined,
): { text: string; unmapped: string[] } {
  const unmapped: string[] = [];
  const rewritten = text.replace(EXAMPLE_IMPORT, (whole, head: string, quote: string, path) => {
    const target = posix.normalize(posix.join(posix.dirname(source), path));
    const specifier = packageSpecifierOf(target);
    if (specifier === undefined) {
      unmapped.push(
        `${source}: an example imports "${path}", which no export of the package reaches`,
      );
      return whole;
    }
    return `${head}${quote}${specifier}${quote}`;
  });
  return { text: rewritten, unmapped };
}

/**
 * The package specifier of a source file for examples: the export whose
 * source it is, else the export of the nearest `mod.ts` up its folders
 * (which re-exports the folder's modules: `src/engine/json/parse_json.ts`
 * is `./engine`'s), else undefined.
 */
export function exportSpecifierFinder(
  packageName: string,
  exports: Readonly<Record<string, string>>,
): (sourcePath: string) => string | undefined {
  const bySource = new Map(
    Object.entries(exports).map(([key, path]) => [posix.normalize(path), key]),
  );
  const nearestMod = (sourcePath: string): string | undefined => {
    for (let dir = posix.dirname(sourcePath); dir !== "." && dir !== "/";) {
      const key = bySource.get(posix.join(dir, "mod.ts"));
      if (key !== undefined) return key;
      dir = posix.dirname(dir);
    }
    return undefined;
  };
  return (sourcePath) => {
    const key = bySource.get(sourcePath) ?? nearestMod(sourcePath);
    if (key === undefined) return undefined;
    return key === "." ? packageName : `${packageName}/${key.slice(2)}`;
  };
}
