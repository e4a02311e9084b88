/**
 * The code examples of README.md and docs/ type-check as written, under the
 * project's strict options (deno.json): each block is written verbatim to a
 * file of its own under .tmp/ and `deno check` compiles them all, resolving
 * `@policy/runtime/…` to the repository's own modules (deno.json "name" and
 * "exports") and the libraries through deno.json "imports".
 * tests/node/docs_examples.test.mjs compiles the same blocks with tsc
 * against the installed npm package. Examples that are not compiled are
 * few, and each says why. deno.json "test" excludes README.md and docs/, so
 * that `deno test --doc` does not run them: they read key files and reach
 * servers a test does not have.
 */
import assert from "node:assert/strict";
import { codeExamples, exampleFileName, exampleFiles } from "./_doc_examples.mjs";
import { requireDenoCommand } from "../_deno_command.ts";

const ROOT = new URL("../../", import.meta.url);
const OUT = new URL(".tmp/doc-examples/", ROOT);

/** The most examples that may be left out (```ts ignore -- <why>). */
const MAX_IGNORED = 2;

Deno.test("every code example of README.md and docs/ type-checks under Deno, as written", async () => {
  const files = exampleFiles([...Deno.readDirSync(new URL("docs/", ROOT))].map((e) => e.name));
  const examples = files.flatMap((file) =>
    codeExamples(Deno.readTextFileSync(new URL(file, ROOT))).map((example) => ({
      file,
      ...example,
    }))
  );
  const ignored = examples.filter((example) => example.ignored !== null);
  for (const example of ignored) {
    assert.ok(
      example.ignored!.length >= 20,
      `${example.file}:${example.line}: an example left out says why: \`\`\`${example.language} ignore -- <why>`,
    );
  }
  assert.ok(
    ignored.length <= MAX_IGNORED,
    `${ignored.length} examples are left out (at most ${MAX_IGNORED}); compile them instead:\n${
      ignored.map((e) => `  ${e.file}:${e.line}`).join("\n")
    }`,
  );
  const compiled = examples.filter((example) => example.ignored === null);
  assert.ok(compiled.length >= 20, `${compiled.length} examples`);

  await Deno.remove(OUT, { recursive: true }).catch(() => {});
  await Deno.mkdir(OUT, { recursive: true });
  const names = compiled.map((example) => exampleFileName(example.file, example));
  assert.equal(new Set(names).size, names.length);
  for (const [i, example] of compiled.entries()) {
    await Deno.writeTextFile(new URL(names[i]!, OUT), example.code);
  }
  const output = await new Deno.Command(requireDenoCommand(), {
    args: ["check", "--quiet", ...names.map((name) => `.tmp/doc-examples/${name}`)],
    cwd: ROOT,
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(output.stdout) + new TextDecoder().decode(output.stderr);
  // Errors name the example's file: docs_enforcement_md_321.ts is docs/enforcement.md line 321.
  assert.equal(output.code, 0, `deno check of the examples (<file>_md_<line>.ts):\n${text}`);
});
