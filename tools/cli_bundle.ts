/**
 * The bundle that `deno task policy` runs (`tools/policy.ts`): `cli.ts` in a few files instead of
 * about ninety modules, split where a command is imported (docs/performance.md, "Start-up"):
 * the entry, `cli.js`, holds the dispatcher, and each command (with what only it needs) is a
 * file of its own, with the code commands share in further files. Every dynamic import of one
 * of these files is rewritten to a URL computed when it runs: Deno reads, analyses and
 * compiles every module a literal `import("./x.js")` names as soon as the importing module
 * loads, and so a command would pay for all the others. `policy simulate` loads the entry, the
 * files it imports, and simulate's. The bundle is build output (`dist/policy-cli/`, never
 * committed); it is made here, in this process, whenever it is missing or any source may have
 * changed, so a fresh clone needs no build step.
 *
 * "May have changed": the stamp of the sources (the path, size and
 * modification time of every file under `src/`, of `cli.ts`, `deno.json`,
 * `deno.lock` and this file) differs from the one recorded with the bundle.
 * Taking the stamp costs a few milliseconds (paths given as strings: built
 * as URLs, they cost three times as much). The stamp is taken before the
 * sources are bundled, so a change made while bundling is seen by the next
 * run. Each file of the bundle and its record are written atomically
 * (temporary file, then rename), the files the entry imports before the
 * entry, the record last; files of a build before the previous one are then
 * removed (a process still running the previous build finds its files).
 *
 * Bundling uses `Deno.bundle` (esbuild inside Deno; `--unstable-bundle` in
 * the task's flags), which needs no permission beyond the task's read and
 * write, where the esbuild npm package would need to run its binary. When the
 * bundle cannot be made (another Deno without `Deno.bundle`, a read-only
 * checkout) the sources run as they are: slower to start, same behaviour.
 *
 * The playground page (`dist/playground/page.js`, built by `deno task
 * playground:build`, docs/playground.md) stays out of the bundle: `cli.ts`
 * imports it lazily, relative to itself, and the bundle sits elsewhere. The
 * import is kept external and pointed at the page from the bundle's folder,
 * through a specifier Deno does not analyse, so the 160 KB page is neither
 * bundled nor read when the bundle starts, only when `policy playground`
 * runs; and a checkout without the built page bundles all the same.
 *
 * @module
 */

/** The part of the `Deno` namespace `Deno.bundle` adds (unstable, so typed here). */
type Bundle = (options: {
  entrypoints: string[];
  outputDir: string;
  codeSplitting: true;
  write: false;
  external: string[];
  format: "esm";
  platform: "deno";
}) => Promise<{ success: boolean; outputFiles?: { path: string; text(): string }[] }>;

const ROOT = new URL("../", import.meta.url);
/** The command's source, `cli.ts`. */
export const CLI_SOURCE: URL = new URL("cli.ts", ROOT);
const OUT = new URL("dist/policy-cli/", ROOT);
/** The bundle of `cli.ts` (build output): its entry; the other files are beside it. */
export const CLI_BUNDLE: URL = new URL("cli.js", OUT);
/** The stamp of the sources the bundle was made from. */
export const CLI_BUNDLE_STAMP: URL = new URL("stamp.txt", OUT);
/** The names of the bundle's files, one a line: the files of the build before are kept. */
const CLI_BUNDLE_FILES: URL = new URL("files.txt", OUT);

/** `cli.ts`'s import of the playground page, relative to `cli.ts` (docs/playground.md). */
export const PLAYGROUND_PAGE = "./dist/playground/page.js";

/** What the bundle is made of, besides `src/`. */
const INPUTS = ["cli.ts", "deno.json", "deno.lock", "tools/cli_bundle.ts", "tools/policy.ts"];

/**
 * One line per input file, sorted: path, size, modification time. Any edit,
 * rename, added or removed source changes it.
 */
export function sourceStamp(): string {
  const root = fromFileUrl(ROOT);
  const lines: string[] = [];
  const add = (relative: string) => {
    const info = Deno.statSync(root + relative);
    lines.push(`${relative} ${info.size} ${info.mtime?.getTime()}`);
  };
  const walk = (relative: string) => {
    for (const entry of Deno.readDirSync(root + relative)) {
      if (entry.isDirectory) walk(`${relative}${entry.name}/`);
      else add(`${relative}${entry.name}`);
    }
  };
  walk("src/");
  INPUTS.forEach(add);
  return lines.sort().join("\n");
}

/** The path of a `file:` URL (a folder's ends with a separator). */
function fromFileUrl(url: URL): string {
  const path = decodeURIComponent(url.pathname);
  // Windows: `/C:/x/` is `C:/x/`.
  return /^\/[A-Za-z]:\//.test(path) ? path.slice(1) : path;
}

function readText(url: URL): string | null {
  try {
    return Deno.readTextFileSync(url);
  } catch {
    return null;
  }
}

function isFile(url: URL): boolean {
  try {
    return Deno.statSync(url).isFile;
  } catch {
    return false;
  }
}

/** Writes `text` to `url` atomically: a temporary file beside it, then a rename. */
function writeAtomically(url: URL, text: string): void {
  const temporary = new URL(`${url.pathname}.${crypto.randomUUID()}.tmp`, url);
  try {
    Deno.writeTextFileSync(temporary, text);
    Deno.renameSync(temporary, url);
  } catch (error) {
    try {
      Deno.removeSync(temporary);
    } catch {
      // never written
    }
    throw error;
  }
}

/**
 * The bundle's text with `cli.ts`'s import of the playground page resolved
 * from the bundle's own folder (`../../dist/playground/page.js`) instead of from
 * `cli.ts`'s, as a URL computed when the import runs: Deno reads the
 * modules that a dynamic import names literally when the importing module
 * loads, and the page is not needed for any other command. `null` when the
 * bundle does not hold that import exactly once (then the sources run).
 */
export function withPageFromBundle(text: string): string | null {
  const literal = `import(${JSON.stringify(PLAYGROUND_PAGE)})`;
  const parts = text.split(literal);
  if (parts.length !== 2) return null;
  // Up from the bundle's folder to the root (`../../`), then down to the page as cli.ts names it.
  const up = "../".repeat(OUT.href.slice(ROOT.href.length).split("/").length - 1);
  const fromBundle = `${up}${PLAYGROUND_PAGE.slice("./".length)}`;
  return parts.join(`import(new URL(${JSON.stringify(fromBundle)}, import.meta.url).href)`);
}

/**
 * The text of a file of the bundle with every dynamic import of another of
 * its files (`import("./x.js")`, `names`) made a URL computed when it runs,
 * so that Deno loads that file only then; `null` when the text imports a
 * relative module that is not one of them (then the sources run).
 */
export function withLazyImports(text: string, names: ReadonlySet<string>): string | null {
  let unknown = false;
  const out = text.replace(/\bimport\("(\.\/[^"]+)"\)/g, (literal, specifier: string) => {
    if (specifier === PLAYGROUND_PAGE) return literal; // the entry's, see withPageFromBundle
    if (!names.has(specifier.slice("./".length))) unknown = true;
    return `import(new URL(${JSON.stringify(specifier)}, import.meta.url).href)`;
  });
  return unknown ? null : out;
}

/** Bundles `cli.ts` into {@link CLI_BUNDLE} and the files beside it; false when this Deno cannot. */
async function rebuild(current: string): Promise<boolean> {
  const bundle = (Deno as unknown as { bundle?: Bundle }).bundle;
  if (typeof bundle !== "function") return false;
  const out = fromFileUrl(OUT);
  const result = await bundle({
    entrypoints: [CLI_SOURCE.href],
    outputDir: out,
    codeSplitting: true,
    write: false,
    // Loaded by `policy analyze` only, from Deno's npm cache through deno.json; the playground
    // page by `policy playground` only, from where `deno task playground:build` writes it.
    external: ["typescript", PLAYGROUND_PAGE],
    format: "esm",
    platform: "deno",
  });
  const outputs = result.outputFiles ?? [];
  if (!result.success || outputs.length === 0) return false;
  const nameOf = (path: string) => path.slice(path.replace(/\\/g, "/").lastIndexOf("/") + 1);
  const names = new Set(outputs.map((file) => nameOf(file.path)));
  if (!names.has("cli.js")) return false;
  const files: [name: string, text: string][] = [];
  for (const file of outputs) {
    const name = nameOf(file.path);
    let text: string | null = withLazyImports(file.text(), names);
    if (text !== null && name === "cli.js") text = withPageFromBundle(text);
    if (text === null) return false;
    files.push([name, text]);
  }
  Deno.mkdirSync(OUT, { recursive: true });
  const previous = new Set((readText(CLI_BUNDLE_FILES) ?? "").split("\n").filter(Boolean));
  // The entry last of the files: a run that finds it finds what it imports.
  files.sort(([a], [b]) => (a === "cli.js" ? 1 : 0) - (b === "cli.js" ? 1 : 0));
  for (const [name, text] of files) writeAtomically(new URL(name, OUT), text);
  writeAtomically(CLI_BUNDLE_FILES, [...names].sort().join("\n") + "\n");
  writeAtomically(CLI_BUNDLE_STAMP, current);
  // Files of older builds; the previous build's stay, for a process that is running it.
  for (const entry of Deno.readDirSync(OUT)) {
    const { name } = entry;
    if (!entry.isFile || !name.endsWith(".js") || names.has(name) || previous.has(name)) continue;
    try {
      Deno.removeSync(new URL(name, OUT));
    } catch {
      // gone already, or not ours to remove: left
    }
  }
  return true;
}

/**
 * The bundle to run: {@link CLI_BUNDLE}, made again first when it is
 * missing or its stamp is not the sources' stamp; `null` when it cannot be
 * made (then run {@link CLI_SOURCE}).
 */
export async function freshCliBundle(): Promise<URL | null> {
  try {
    const current = sourceStamp();
    if (readText(CLI_BUNDLE_STAMP) === current && isFile(CLI_BUNDLE)) return CLI_BUNDLE;
    return await rebuild(current) ? CLI_BUNDLE : null;
  } catch {
    // Unreadable sources, no bundle, an unwritable dist/: run the sources as they are.
    return null;
  }
}
