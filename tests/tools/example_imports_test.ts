import assert from "node:assert/strict";
import { exportSpecifierFinder, rewriteExampleImports } from "../../tools/example_imports.ts";

const EXPORTS = { ".": "./mod.ts", "./engine": "./src/engine/mod.ts" };

Deno.test("an example's import maps to the export of its module, or of the nearest mod.ts up", () => {
  const find = exportSpecifierFinder("@policy/runtime", EXPORTS);
  assert.equal(find("mod.ts"), "@policy/runtime");
  assert.equal(find("src/engine/evaluate.ts"), "@policy/runtime/engine");
  assert.equal(find("src/engine/json/parse_json.ts"), "@policy/runtime/engine");
  assert.equal(find("src/cli/kit/output.ts"), undefined);
  const text =
    ' * import { parseJson } from "./parse_json.ts";\n * import x from "./nowhere/x.ts";';
  const { text: rewritten, unmapped } = rewriteExampleImports(
    text.replace("./nowhere/x.ts", "../../cli/x.ts"),
    "src/engine/json/parse_json.ts",
    find,
  );
  assert.match(rewritten, /from "@policy\/runtime\/engine";/);
  assert.deepEqual(unmapped, [
    'src/engine/json/parse_json.ts: an example imports "../../cli/x.ts", which no export of the package reaches',
  ]);
});
