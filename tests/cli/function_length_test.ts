/**
 * No function of the CLI package (src/cli/) runs to 80 lines or more: a
 * command is its spec, its parameters, a plan and its rendering, each short
 * enough to read at once (issue 40 found closures of 150 to 210 lines).
 * Every function, method and arrow function is measured from its first
 * line to its last, what it nests included, with the TypeScript parser.
 */
import assert from "node:assert/strict";
import ts from "typescript";
import { findFiles } from "../../src/io/find_files.ts";

/** Fewer lines than this for every function of src/cli/. */
const MAX_LINES = 80;

const ROOT = new URL("../../", import.meta.url);

/** Each function of `text` longer than `max` lines, as `file:line name (n lines)`. */
export function longFunctions(file: string, text: string, max: number): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && (node as ts.FunctionLikeDeclaration).body !== undefined) {
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      const lines = last - first + 1;
      if (lines >= max) {
        const name = (node as ts.FunctionLikeDeclaration).name?.getText(source) ?? "(anonymous)";
        found.push(`${file}:${first + 1} ${name} (${lines} lines)`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

Deno.test(`no function of src/cli/ has ${MAX_LINES} lines or more`, async () => {
  const root = decodeURIComponent(new URL("src/cli/", ROOT).pathname);
  const files = await findFiles(root, (name) => name.endsWith(".ts"), { enter: () => true });
  assert.ok(files.length > 40, `src/cli/ has its modules (${files.length})`);
  const long = files.flatMap((file) =>
    longFunctions(file.slice(root.length), Deno.readTextFileSync(file), MAX_LINES)
  );
  assert.deepEqual(long, []);
});

Deno.test("the measure finds a long function, nested or not", () => {
  const body = Array.from({ length: 5 }, (_, i) => `  const a${i} = ${i};`).join("\n");
  const text = `export function outer() {\n  const inner = () => {\n${body}\n  };\n}\n`;
  assert.deepEqual(longFunctions("x.ts", text, 8), ["x.ts:1 outer (9 lines)"]);
  assert.deepEqual(longFunctions("x.ts", text, 7), [
    "x.ts:1 outer (9 lines)",
    "x.ts:2 (anonymous) (7 lines)",
  ]);
});
