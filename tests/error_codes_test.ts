// The documentation promises what the code has: every error code the library
// exports (ERROR_CODES) is in a "Code" table of docs/errors.md and every code
// there exists; every code the CLI adds (CLI_ERROR_CODES) is in docs/cli.md's
// table with the exit code EXIT_CODES gives it; every issue code the validator
// reports is in an "Error" or "Warning" table of docs/errors.md, and every
// issue code documented there is reported by some source file.
import assert from "node:assert/strict";
import { readdir, readFile } from "node:fs/promises";
import { ERROR_CODES } from "../src/public/policy_error.ts";
import { CLI_ERROR_CODES, EXIT_CODES, exitCodeFor } from "../src/cli/kit/errors.ts";

const root = new URL("../", import.meta.url);
const read = (path: string) => readFile(new URL(path, root), "utf8");

/** A markdown table: its header cells and its rows' cells. */
interface Table {
  header: string[];
  rows: string[][];
}

/** Every table of a markdown document, by the `## ` section it is in. */
function tables(markdown: string): { section: string; table: Table }[] {
  const found: { section: string; table: Table }[] = [];
  let section = "";
  let current: Table | null = null;
  for (const line of markdown.split("\n")) {
    if (line.startsWith("## ")) section = line.slice(3).trim();
    if (!line.startsWith("|")) {
      current = null;
      continue;
    }
    const cells = line.slice(1, line.lastIndexOf("|")).split("|").map((c) => c.trim());
    if (current === null) {
      current = { header: cells, rows: [] };
      found.push({ section, table: current });
    } else if (!cells.every((c) => /^-+$/.test(c))) {
      current.rows.push(cells);
    }
  }
  return found;
}

/** The code named by a first cell such as "`BUNDLE_INVALID`", or undefined. */
function codeOf(cell: string | undefined): string | undefined {
  return /^`([A-Z][A-Z0-9_]+)`$/.exec(cell ?? "")?.[1];
}

/** Codes of the first column of the tables whose first header cell is one of `headers`. */
function documented(markdown: string, headers: string[]): string[] {
  return tables(markdown)
    .filter(({ table }) => headers.includes(table.header[0]!))
    .flatMap(({ table }) => table.rows.map((row) => codeOf(row[0])))
    .filter((code): code is string => code !== undefined);
}

function duplicates(list: readonly string[]): string[] {
  return list.filter((item, i) => list.indexOf(item) !== i);
}

/** Every string literal that looks like a code (`"A_B"`) in `text`. */
function codeLiterals(text: string): string[] {
  return [...text.matchAll(/"([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)"/g)].map((m) => m[1]!);
}

/** The text of every TypeScript file under `src/`. */
async function sources(): Promise<string[]> {
  const files = (await readdir(new URL("src/", root), { recursive: true }))
    .filter((f) => f.endsWith(".ts"));
  return await Promise.all(files.map((f) => read(`src/${f}`)));
}

Deno.test("docs/errors.md documents every code of ERROR_CODES once, and no other", async () => {
  const codes = documented(await read("docs/errors.md"), ["Code"]);
  assert.deepEqual(duplicates(codes), [], "documented twice");
  const exported: readonly string[] = ERROR_CODES;
  assert.deepEqual(exported.filter((c) => !codes.includes(c)), [], "exported, not documented");
  assert.deepEqual(codes.filter((c) => !exported.includes(c)), [], "documented, not exported");
});

Deno.test("docs/cli.md documents every code the CLI adds, with its exit code", async () => {
  const markdown = await read("docs/cli.md");
  const table = tables(markdown).find(({ section }) => section === "Error codes the CLI adds")
    ?.table;
  assert.ok(table, 'docs/cli.md has a section "Error codes the CLI adds" with a table');
  assert.deepEqual(table.header.slice(0, 2), ["Code", "Exit"]);
  const rows = table.rows.map((row) => ({ code: codeOf(row[0]), exit: row[1] }));
  const codes = rows.map((r) => r.code).filter((c): c is string => c !== undefined);
  assert.deepEqual(duplicates(codes), [], "documented twice");
  const exported: readonly string[] = CLI_ERROR_CODES;
  assert.deepEqual(exported.filter((c) => !codes.includes(c)), [], "exported, not documented");
  assert.deepEqual(codes.filter((c) => !exported.includes(c)), [], "documented, not exported");
  for (const { code, exit } of rows) {
    assert.equal(exit, String(exitCodeFor(code!)), `exit code of ${code}`);
  }
});

Deno.test("docs/cli.md's exit code table lists each code under the exit code EXIT_CODES gives", async () => {
  const table = tables(await read("docs/cli.md")).find(({ table }) =>
    table.header[0] === "Exit" && table.header[1] === "Codes"
  )?.table;
  assert.ok(table, "docs/cli.md has an Exit | Codes table");
  const listed = new Map<string, string>();
  for (const [exit, cell] of table.rows) {
    for (const [, name] of cell!.matchAll(/`([A-Z][A-Z0-9_]*\*?)`/g)) {
      const matches = name!.endsWith("*")
        ? Object.keys(EXIT_CODES).filter((c) => c.startsWith(name!.slice(0, -1)))
        : [name!];
      assert.ok(matches.length > 0, `${name} names no code`);
      for (const code of matches) listed.set(code, exit!);
    }
  }
  assert.deepEqual(
    Object.fromEntries([...listed].sort()),
    Object.fromEntries(Object.entries(EXIT_CODES).map(([c, e]) => [c, String(e)]).sort()),
  );
});

Deno.test("docs/errors.md documents every issue code validateBundle reports, and each exists", async () => {
  const issues = documented(await read("docs/errors.md"), ["Error", "Warning"]);
  assert.deepEqual(duplicates(issues), [], "documented twice");
  const errorCodes: readonly string[] = ERROR_CODES;
  // The validator: validate_bundle.ts and its parts in src/engine/validation/.
  const validator = ["src/engine/validate_bundle.ts"];
  for await (const entry of Deno.readDir(new URL("../src/engine/validation/", import.meta.url))) {
    if (entry.name.endsWith(".ts")) validator.push(`src/engine/validation/${entry.name}`);
  }
  const texts = await Promise.all(validator.map(read));
  const reported = [...new Set(texts.flatMap(codeLiterals))]
    .filter((c) => !errorCodes.includes(c));
  assert.ok(reported.length > 20, "the validator's codes were found");
  assert.deepEqual(reported.filter((c) => !issues.includes(c)), [], "reported, not documented");
  const everywhere = new Set((await sources()).flatMap(codeLiterals));
  assert.deepEqual(issues.filter((c) => !everywhere.has(c)), [], "documented, never reported");
});
