// The migration example of docs/openfeature.md ("Migrating from flagd-style
// flags"), run as written: examples/openfeature/with_flagd_style_flags.ts
// and with_policy_bundle.ts serve the same customers the same checkout, and
// the two programs differ only in their imports and the setProvider
// statement, which the page shows verbatim. Needs --allow-run=deno.
import assert from "node:assert/strict";
import { requireDenoCommand } from "../_deno_command.ts";

const ROOT = new URL("../../", import.meta.url);
const EXAMPLE = new URL("examples/openfeature/", ROOT);

async function run(file: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const output = await new Deno.Command(requireDenoCommand(), {
    args: ["run", "--no-prompt", "--allow-read=examples", `examples/openfeature/${file}`],
    cwd: decodeURIComponent(ROOT.pathname),
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decoder = new TextDecoder();
  return {
    code: output.code,
    stdout: decoder.decode(output.stdout),
    stderr: decoder.decode(output.stderr),
  };
}

Deno.test("the service answers the same with its flagd-style flags and with the policy bundle", async () => {
  const before = await run("with_flagd_style_flags.ts");
  const after = await run("with_policy_bundle.ts");
  for (const result of [before, after]) {
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stderr, "");
  }
  assert.equal(after.stdout, before.stdout);
  assert.deepEqual(after.stdout.trim().split("\n"), [
    "cus-1: classic checkout, express shipping, payments on",
    "cus-2: new checkout, standard shipping, payments on",
    "cus-3: new checkout, express shipping, payments on",
    "cus-4: new checkout, standard shipping, payments on",
  ]);
});

/** A program's code: no module doc comment, no imports; its setProvider statement apart. */
async function program(file: string): Promise<{ rest: string[]; setProvider: string }> {
  const text = await Deno.readTextFile(new URL(file, EXAMPLE));
  const lines = text.replace(/^\/\*\*[\s\S]*?\*\/\n/, "").split("\n")
    .filter((line) => !line.startsWith("import "));
  const start = lines.findIndex((line) => line.startsWith("await OpenFeature.setProviderAndWait("));
  assert.ok(start >= 0, `${file} sets a provider`);
  const end = lines.findIndex((line, i) => i >= start && line.endsWith(");"));
  return {
    rest: [...lines.slice(0, start), "<setProvider>", ...lines.slice(end + 1)],
    setProvider: lines.slice(start, end + 1).join("\n"),
  };
}

Deno.test("the migration changes the imports and the setProvider statement, nothing else, as docs/openfeature.md shows", async () => {
  const before = await program("with_flagd_style_flags.ts");
  const after = await program("with_policy_bundle.ts");
  assert.deepEqual(after.rest, before.rest);
  assert.notEqual(after.setProvider, before.setProvider);
  const page = await Deno.readTextFile(new URL("docs/openfeature.md", ROOT));
  for (const statement of [before.setProvider, after.setProvider]) {
    assert.ok(page.includes(statement), `docs/openfeature.md shows:\n${statement}`);
  }
});
