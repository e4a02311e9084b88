/**
 * The boundaries of the source tree (docs/architecture is ARCHITECTURE.md's
 * job; this test is what holds them):
 *
 * - one boundary rule, read in src/, the root entries, playground/, tools/,
 *   bench/ and tests/: a `_` file or folder is private to the folder that
 *   holds it (and the folders below). The kernel `src/_internal/` is open to
 *   every folder, and tests may reach their own helpers and what they test;
 * - no public symbol (exported by an entry of `deno.json` "exports") is
 *   declared in a `_` file;
 * - the layers, lowest first: the kernel (`public`, then `_internal`, which may
 *   import `public`), then `io` beside it → `engine` → `verify`,
 *   `lint`, `diff`, `telemetry` → `clients`, `analyze` → `enforce`, `decision_log`,
 *   `license`, `openfeature`, `otel` → `cli` → `cli.ts`; a module imports only from its own
 *   folder, from its own layer's folders it is allowed to, and from layers
 *   below, never from above;
 * - no import circle among the modules of `src/`;
 * - `public` (what users import: errors, codes, Clock, Issue, the vocabulary)
 *   depends on no other folder, `_internal` on `public` alone, `io` on the
 *   kernel alone;
 * - the portable exports (`./engine`, `./verify`, `./enforce`, `./openfeature/web`) reach no I/O:
 *   no `node:` module and no use of the `Deno` namespace in any module their
 *   code loads (statically or lazily); no library export uses the `Deno`
 *   namespace (one source serves Deno, Node and browsers): only `./cli`
 *   reaches the CLI's Deno file layer.
 *
 * The imports are read from the source text (static, dynamic, type-only and
 * re-exports), so the test needs only read permission; the public symbols
 * come from `deno doc --json` (needs `--allow-run=deno`; that check is
 * skipped with a printed reason without it).
 */
import assert from "node:assert/strict";
import { denoCommand } from "./_deno_command.ts";

const ROOT = new URL("../", import.meta.url);
const rootPath = decodeURIComponent(ROOT.pathname);

/** One import of a module. */
export interface ImportEdge {
  /** The importing file, relative to the root (`src/engine/evaluate.ts`). */
  from: string;
  /** The imported module: a relative path from the root, or the bare or `node:` specifier. */
  to: string;
  /** Only types are imported: nothing is loaded at run time. */
  typeOnly: boolean;
}

/**
 * Every module under `folder` (relative to the root), sorted: `.ts` and
 * `.mts` files, and with `scripts` `.mjs` files and `node/` folders too
 * (the Node tests); `testdata/` folders never.
 */
function sourceFiles(folder: string, scripts = false): string[] {
  const out: string[] = [];
  const walk = (relative: string) => {
    for (const entry of Deno.readDirSync(new URL(relative, ROOT))) {
      const path = `${relative}/${entry.name}`;
      if (entry.isDirectory) {
        if (entry.name !== "testdata" && (scripts || entry.name !== "node")) walk(path);
      } else if ((scripts ? /\.(ts|mts|mjs)$/ : /\.(ts|mts)$/).test(entry.name)) out.push(path);
    }
  };
  walk(folder);
  return out.sort();
}

/** `text` with comments, strings and template literals blanked (lengths kept). */
export function codeOnly(text: string): string {
  return text.replace(
    /\/\*[\s\S]*?\*\/|\/\/[^\n]*|"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|`(?:[^`\\]|\\[\s\S])*`/g,
    (match) => match[0] === '"' || match[0] === "'" ? `${match[0]}${match[0]}` : " ",
  );
}

const IMPORT = new RegExp(
  [
    // import … from "x"; export … from "x"; import "x"
    String.raw`(?:^|\n)\s*(import|export)(\s+type)?\s*([^;"']*?)\s*(?:from\s*)?["']([^"']+)["']`,
    // import("x")
    String.raw`\bimport\(\s*["']([^"']+)["']\s*\)`,
  ].join("|"),
  "g",
);

/** The imports of `file` (relative to the root), read from its text. */
export function importsOf(file: string, text: string): ImportEdge[] {
  // Comments are dropped first (examples in doc comments are not imports).
  const source = text.replace(/\/\*[\s\S]*?\*\/|(?<![:"'`])\/\/[^\n]*/g, "");
  const edges: ImportEdge[] = [];
  for (const match of source.matchAll(IMPORT)) {
    const specifier = match[4] ?? match[5]!;
    const clause = match[3] ?? "";
    // `import { type A, type B }` loads nothing either.
    const names = /^\{([^}]*)\}$/.exec(clause.trim())?.[1]?.split(",").map((n) => n.trim())
      .filter((n) => n !== "");
    const typeOnly = match[2] !== undefined ||
      (names !== undefined && names.length > 0 && names.every((n) => n.startsWith("type ")));
    if (match[1] === "export" && match[4] !== undefined && !/^\*|^\{/.test(clause.trim())) {
      continue; // `export const x = "…"` is not a re-export
    }
    const to = specifier.startsWith(".")
      ? new URL(specifier, new URL(file, ROOT)).pathname.slice(rootPath.length)
      : specifier;
    edges.push({ from: file, to: decodeURIComponent(to), typeOnly });
  }
  return edges;
}

const SRC = sourceFiles("src");
const TEXT = new Map(
  [...SRC, "mod.ts", "cli.ts"].map((f) => [f, Deno.readTextFileSync(new URL(f, ROOT))]),
);
const EDGES = [...TEXT].flatMap(([file, text]) => importsOf(file, text));

/** The modules outside src/ that the boundary rule reads too. */
const OUTSIDE = [
  ...["playground", "tools", "bench", "tests"].flatMap((folder) => sourceFiles(folder, true)),
  "build_npm.ts",
];
/** Every import of the repository: src/, the root entries, and OUTSIDE. */
const ALL_EDGES = [
  ...EDGES,
  ...OUTSIDE.flatMap((file) => importsOf(file, Deno.readTextFileSync(new URL(file, ROOT)))),
];

/** The folder of a file (`src/engine`), or `.` for the root. */
function folderOf(file: string): string {
  const slash = file.lastIndexOf("/");
  return slash < 0 ? "." : file.slice(0, slash);
}

/** A `_` file: private to its folder. */
function isPrivate(file: string): boolean {
  return /(^|\/)_[^/]*$/.test(file);
}

/** The layers, lowest first, by top folder of `src/` (`.` is the root: mod.ts, cli.ts). */
const LAYERS: readonly (readonly string[])[] = [
  ["public", "_internal"],
  ["io"],
  ["engine"],
  ["verify", "lint", "diff", "telemetry"],
  ["clients", "analyze", "authoring"],
  ["enforce", "decision_log", "license", "openfeature", "otel"],
  ["cli"],
  ["."],
];

/** Imports between folders of one layer that the design allows (none other). */
const LATERAL: ReadonlySet<string> = new Set(["_internal->public"]);

/** The top folder of `src/` a file belongs to (`enforce` for `src/enforce/redis/x.ts`). */
function unitOf(file: string): string {
  const match = /^src\/([^/]+)\//.exec(file);
  return match === null ? "." : match[1]!;
}

function layerOf(unit: string): number {
  const n = LAYERS.findIndex((layer) => layer.includes(unit));
  assert.ok(n >= 0, `src/${unit} is in no layer of this test: add it to LAYERS`);
  return n;
}

/**
 * The folder that may import `file`, with its subfolders: the folder that
 * holds its `_` name (`src/engine` for `src/engine/_x.ts`, `bench` for
 * `bench/_stats.ts`), or null when any module may (no `_` name, or the
 * kernel `src/_internal/`, which is for every folder).
 */
export function privateScope(file: string): string | null {
  if (file.startsWith("src/_internal/")) return null;
  const parts = file.split("/");
  const last = parts.findLastIndex((part) => part.startsWith("_"));
  return last < 0 ? null : parts.slice(0, last).join("/") || ".";
}

/**
 * The imports in `edges` of a `_` file or folder from outside the folder
 * that holds it. Tests may reach their own helpers and whatever they test;
 * the root entries (`mod.ts`, `cli.ts`) are the top of the source tree.
 */
export function privateImports(edges: readonly ImportEdge[]): string[] {
  return edges.filter((e) => {
    const scope = privateScope(e.to);
    if (scope === null || scope === "." || e.from.startsWith("tests/")) return false;
    const from = /^(mod|cli)\.ts$/.test(e.from) ? `src/${e.from}` : e.from;
    return !from.startsWith(`${scope}/`);
  }).map((e) => `${e.from} -> ${e.to}`);
}

/** The imports in `edges` that go up the layers, or sideways without leave. */
export function upwardImports(edges: readonly ImportEdge[]): string[] {
  const out: string[] = [];
  for (const e of edges) {
    if (!e.to.startsWith("src/") && !/^(mod|cli)\.ts$/.test(e.to)) continue;
    const from = unitOf(e.from);
    const to = unitOf(e.to);
    if (from === to) continue;
    const a = layerOf(from);
    const b = layerOf(to);
    if (b > a || (b === a && !LATERAL.has(`${from}->${to}`))) out.push(`${e.from} -> ${e.to}`);
  }
  return out;
}

Deno.test("no _ file or folder is imported from outside the folder that holds it, anywhere", () => {
  // src/, playground/, tools/, bench/ and tests/ alike; tests may reach their own helpers.
  assert.ok(OUTSIDE.length > 100, `the modules outside src/ are read (${OUTSIDE.length})`);
  assert.deepEqual(privateImports(ALL_EDGES), []);
});

Deno.test("the layers hold: no module imports from a layer above its own", () => {
  assert.deepEqual(upwardImports(EDGES), []);
});

Deno.test("the kernel: src/public imports no other folder, src/_internal only src/public", () => {
  const reach = (unit: string, allowed: readonly string[]) =>
    EDGES.filter((e) => unitOf(e.from) === unit && e.to.startsWith("src/"))
      .filter((e) => !allowed.includes(unitOf(e.to)))
      .map((e) => `${e.from} -> ${e.to}`);
  assert.deepEqual(reach("public", ["public"]), []);
  assert.deepEqual(reach("_internal", ["_internal", "public"]), []);
  assert.deepEqual(reach("io", ["io", "_internal", "public"]), []);
  // And the kernel itself has no `_` files: everything in it is for every folder.
  assert.deepEqual(
    SRC.filter((f) => /^src\/(_internal|public)\//.test(f) && isPrivate(f)),
    [],
  );
});

/** The import circles among `files` (each a sorted list of its modules), any kind of import. */
export function circles(edges: readonly ImportEdge[], files: ReadonlySet<string>): string[][] {
  const next = new Map<string, string[]>();
  for (const e of edges) {
    if (files.has(e.from) && files.has(e.to)) next.set(e.from, [...next.get(e.from) ?? [], e.to]);
  }
  // Tarjan's strongly connected components; a component of two or more modules is a circle.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    for (const w of next.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (stack.includes(w)) {
        low.set(v, Math.min(low.get(v)!, index.get(w)!));
      }
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || next.get(v)?.includes(v)) found.push(component.sort());
    }
  };
  for (const file of [...files].sort()) if (!index.has(file)) visit(file);
  return found;
}

/** The imports of the CLI package that break its layers: kit < commands < the dispatcher. */
export function cliLayerBreaks(edges: readonly ImportEdge[]): string[] {
  // A command's own part: its file (`commands/build.ts`) or its folder (`commands/policies/`).
  const command = (file: string) => /^src\/cli\/commands\/([^/]+?)(?:\.ts$|\/)/.exec(file)?.[1];
  return edges.filter((e) => {
    if (!e.from.startsWith("src/cli/") || !e.to.startsWith("src/cli/")) return false;
    if (e.from.startsWith("src/cli/kit/")) {
      return !e.to.startsWith("src/cli/kit/") && e.to !== "src/cli/cli_io.ts";
    }
    if (e.from.startsWith("src/cli/commands/")) {
      return e.to === "src/cli/run_cli.ts" ||
        (e.to.startsWith("src/cli/commands/") && command(e.to) !== command(e.from));
    }
    return false;
  }).map((e) => `${e.from} -> ${e.to}`);
}

Deno.test("the CLI package is layered: kit < commands < dispatcher, no import circle", () => {
  // The kit (arguments, config, session, output, errors, lock, documents) uses no command;
  // a command uses the kit and its own parts, never another command or the dispatcher
  // (help and completions are handed the dispatcher by run_cli.ts).
  assert.deepEqual(cliLayerBreaks(EDGES), []);
  assert.deepEqual(circles(EDGES, new Set(SRC.filter((f) => f.startsWith("src/cli/")))), []);
});

Deno.test("no import circle in any folder of src/", () => {
  // A circle means two modules that cannot be read, tested or loaded one without the other; the
  // fix is a type or constant in the module both need.
  const files = new Set(SRC);
  assert.ok(files.size > 200, `the modules of src/ are read (${files.size})`);
  assert.deepEqual(circles(EDGES, files), []);
});

/** The modules of src/cli/ that write to the process's output streams themselves. */
export function directWrites(files: Iterable<string>, text: (file: string) => string): string[] {
  return [...files].filter((file) => /\.\s*std(?:out|err)\s*\(/.test(codeOnly(text(file))));
}

Deno.test("every byte the CLI prints goes through its output module (src/cli/kit/output.ts)", () => {
  // There text output escapes terminal controls in data (docs/cli.md); cli.ts only wires streams.
  const cli = SRC.filter((f) => f.startsWith("src/cli/") && f !== "src/cli/kit/output.ts");
  assert.deepEqual(directWrites(cli, (f) => TEXT.get(f)!), []);
  assert.deepEqual(directWrites(["src/cli/kit/output.ts"], (f) => TEXT.get(f)!), [
    "src/cli/kit/output.ts",
  ]);
});

/** The modules of `files` that call `JSON.parse` themselves. */
export function bareJsonParse(files: Iterable<string>, text: (file: string) => string): string[] {
  return [...files].filter((file) => /\bJSON\s*\.\s*parse\s*\(/.test(codeOnly(text(file))));
}

Deno.test("JSON of untrusted text goes through parseJson: no bare JSON.parse in src/ or playground/", () => {
  // Deno 2.9's V8 misreads escaped keys (docs/security.md "JSON exactly as written"); parseJson
  // (src/engine/parse_json.ts) is the one caller, and reads the text again when it must.
  const files = [...SRC, ...OUTSIDE.filter((f) => f.startsWith("playground/"))];
  const read = (f: string) => TEXT.get(f) ?? Deno.readTextFileSync(new URL(f, ROOT));
  assert.deepEqual(bareJsonParse(files, read), ["src/engine/parse_json.ts"]);
});

/** Most source files a folder of src/ holds directly: more is a folder to split. */
const MAX_FILES_PER_FOLDER = 30;

Deno.test(`no folder of src/ holds more than ${MAX_FILES_PER_FOLDER} source files directly`, () => {
  const counts = new Map<string, number>();
  for (const file of SRC) counts.set(folderOf(file), (counts.get(folderOf(file)) ?? 0) + 1);
  assert.deepEqual([...counts].filter(([, n]) => n > MAX_FILES_PER_FOLDER), []);
});

/** Every module of src/ loaded at run time (statically or lazily) when `entry` loads. */
function runtimeClosure(entry: string): Set<string> {
  const seen = new Set<string>();
  const stack = [entry];
  while (stack.length > 0) {
    const file = stack.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    for (const e of EDGES) {
      if (e.from === file && !e.typeOnly && TEXT.has(e.to)) stack.push(e.to);
    }
  }
  return seen;
}

/** What in `files` reaches for I/O: a `node:` import or the `Deno` namespace. */
export function ioUses(files: Iterable<string>, text: (file: string) => string): string[] {
  const out: string[] = [];
  for (const file of files) {
    for (const e of importsOf(file, text(file))) {
      if (e.to.startsWith("node:")) out.push(`${file} imports ${e.to}`);
    }
    if (/\bDeno\s*(?:\?\.|\.|\[)|\.\s*Deno\b/.test(codeOnly(text(file)))) {
      out.push(`${file} uses the Deno namespace`);
    }
  }
  return out;
}

const EXPORTS = (JSON.parse(Deno.readTextFileSync(new URL("deno.json", ROOT))) as {
  exports: Record<string, string>;
}).exports;

for (const name of ["./engine", "./verify", "./enforce", "./openfeature/web"]) {
  Deno.test(`${name} reaches no I/O: no node: module, no Deno namespace`, () => {
    const entry = EXPORTS[name]!.replace(/^\.\//, "");
    const files = runtimeClosure(entry);
    assert.ok(files.size > 3, `${name} loads its modules`);
    assert.deepEqual(ioUses(files, (f) => TEXT.get(f)!), []);
  });
}

Deno.test("no library export uses the Deno namespace: the Deno file layer is the CLI's alone", () => {
  for (const [name, source] of Object.entries(EXPORTS)) {
    if (name === "./cli") continue;
    const files = runtimeClosure(source.replace(/^\.\//, ""));
    const denoUses = ioUses(files, (f) => TEXT.get(f)!).filter((u) => u.endsWith("Deno namespace"));
    assert.deepEqual(denoUses, [], `${name} reaches no use of the Deno namespace`);
  }
  // cli.ts does reach it, so the check above can find it.
  assert.ok(runtimeClosure("cli.ts").has("src/io/deno_file_layer.ts"));
});

Deno.test("the checks of this test catch what they are for", () => {
  // A cross-folder import of a private file, an upward import, a lateral one,
  // and I/O: each is found (so the checks above cannot pass vacuously).
  const edges = [
    ...importsOf("src/verify/x.ts", 'import { a } from "../engine/_private.ts";'),
    ...importsOf("src/engine/y.ts", 'export { b } from "../clients/mod.ts";'),
    ...importsOf("src/lint/z.ts", 'const m = await import("../diff/mod.ts");'),
    ...importsOf("tests/engine/t.ts", 'import { c } from "../../src/engine/_private.ts";'),
    ...importsOf("src/verify/w.ts", '/** import { d } from "../engine/_private.ts"; */'),
  ];
  assert.deepEqual(privateImports(edges), ["src/verify/x.ts -> src/engine/_private.ts"]);
  assert.deepEqual(
    privateImports([
      ...importsOf("bench/enforce/run.ts", 'import { a } from "../../tests/enforce/_fixtures.ts";'),
      ...importsOf("bench/x/run.ts", 'import { a } from "../_stats.ts";'),
      ...importsOf("tools/y.ts", 'import { a } from "../src/_authoring/draft.ts";'),
      ...importsOf("playground/z.ts", 'import { a } from "../src/_internal/guards.ts";'),
      ...importsOf("tests/cli/t.ts", 'import { a } from "../clients/_helpers.ts";'),
      ...importsOf("cli.ts", 'import { a } from "./src/_io/layer.ts";'),
    ]),
    [
      "bench/enforce/run.ts -> tests/enforce/_fixtures.ts",
      "tools/y.ts -> src/_authoring/draft.ts",
    ],
  );
  assert.deepEqual(upwardImports(edges), [
    "src/engine/y.ts -> src/clients/mod.ts",
    "src/lint/z.ts -> src/diff/mod.ts",
  ]);
  const sample = new Map([
    ["a.ts", 'import type { Stats } from "node:fs";\nconst x = "Deno.env";'],
    ["b.ts", "const deno = (globalThis as { Deno?: unknown }).Deno;"],
    ["c.ts", '// Deno.readFile\nconst s = "on Deno, run with --allow-net";'],
  ]);
  assert.deepEqual(ioUses(sample.keys(), (f) => sample.get(f)!), [
    "a.ts imports node:fs",
    "b.ts uses the Deno namespace",
  ]);
  const cli = [
    ...importsOf("src/cli/kit/a.ts", 'import type { B } from "../commands/build.ts";'),
    ...importsOf("src/cli/commands/build.ts", 'import { c } from "./sign.ts";'),
    ...importsOf("src/cli/commands/policies/x.ts", 'import { c } from "./y.ts";'),
    ...importsOf("src/cli/commands/policies/y.ts", 'const x = await import("./x.ts");'),
    ...importsOf("src/cli/commands/help.ts", 'import { c } from "../run_cli.ts";'),
  ];
  assert.deepEqual(cliLayerBreaks(cli), [
    "src/cli/kit/a.ts -> src/cli/commands/build.ts",
    "src/cli/commands/build.ts -> src/cli/commands/sign.ts",
    "src/cli/commands/help.ts -> src/cli/run_cli.ts",
  ]);
  assert.deepEqual(circles(cli, new Set(cli.flatMap((e) => [e.from, e.to]))), [
    ["src/cli/commands/policies/x.ts", "src/cli/commands/policies/y.ts"],
  ]);
  assert.deepEqual(
    importsOf("src/a.ts", 'import { type A, type B } from "./b.ts";\nimport { c } from "./c.ts";')
      .map((e) => [e.to, e.typeOnly]),
    [["src/b.ts", true], ["src/c.ts", false]],
  );
});

const DENO = denoCommand();
if (DENO === null) {
  console.log(
    "architecture_test: public-symbol check skipped, run permission for deno not granted (--allow-run=deno)",
  );
}

Deno.test({
  name: "no public symbol is declared in a _ file",
  ignore: DENO === null,
  fn: async () => {
    const found: string[] = [];
    for (const [name, source] of Object.entries(EXPORTS)) {
      const output = await new Deno.Command(DENO!, {
        args: ["doc", "--json", source],
        cwd: rootPath,
        stdout: "piped",
        stderr: "piped",
      }).output();
      assert.equal(output.code, 0, new TextDecoder().decode(output.stderr));
      const doc = JSON.parse(new TextDecoder().decode(output.stdout)) as {
        nodes: Record<string, {
          symbols?: { name: string; declarations: { location: { filename: string } }[] }[];
        }>;
      };
      for (const node of Object.values(doc.nodes)) {
        for (const symbol of node.symbols ?? []) {
          for (const { location } of symbol.declarations) {
            if (isPrivate(location.filename)) {
              found.push(`${name} ${symbol.name} (${location.filename.slice(ROOT.href.length)})`);
            }
          }
        }
      }
    }
    assert.deepEqual(found, []);
  },
});
