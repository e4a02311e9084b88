/**
 * Prepares the peer benchmark for Node in `.tmp/bench-node/` (git-ignored):
 *
 * 1. installs the npm build (`npm/`, packed with `npm pack`: what users get,
 *    `bench/_npm_build.ts`) and the peers, at the versions `_libraries.ts`
 *    pins in its `npm:` specifiers, with npm;
 * 2. compiles the runner, the child and everything they import to JavaScript
 *    with the TypeScript compiler API, rewriting the imports of the engines
 *    under test to package names: `npm:<name>@<version>` becomes `<name>`, and
 *    an import of an export of `deno.json` (`../../mod.ts`) becomes the
 *    package's name (`@policy/runtime`). Any other import that leaves
 *    `bench/` fails the build, so no engine source is compiled in.
 *
 * Run by `deno task bench:peers:node` after `deno task build:npm`; then
 * `node .tmp/bench-node/bench/peers/run.js --repo .` runs the benchmark.
 *
 * @module
 */
import ts from "typescript";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep as SEPARATOR } from "node:path";
import { fileURLToPath } from "node:url";
import { mapModuleSpecifiers } from "../../tools/map_module_specifiers.ts";
import { installNpmBuild } from "../_npm_build.ts";

/** Where the compiled benchmark and its node_modules go. */
const OUT = ".tmp/bench-node";
/** The entry points; every module they import is compiled too. */
const ENTRIES = ["bench/peers/run.ts", "bench/peers/child.ts"];
/**
 * Packages whose default entry Node 20 cannot load, and the entry to use
 * instead. cedar-wasm's `import` entry imports its `.wasm` file as an ES
 * module (Deno can, Node 20 cannot without a flag); its `nodejs` build is the
 * same Cedar, reading the `.wasm` file itself.
 */
const NODE_ENTRIES: Readonly<Record<string, string>> = {
  "@cedar-policy/cedar-wasm": "@cedar-policy/cedar-wasm/nodejs",
};

const root = fileURLToPath(new URL("../..", import.meta.url));
const out = join(root, OUT);

function fail(message: string): never {
  console.error(`bench/peers/build_node.ts: ${message}`);
  Deno.exit(1);
}

const denoJson = JSON.parse(readFileSync(join(root, "deno.json"), "utf8")) as {
  name: string;
  exports: Record<string, string>;
};
/** Absolute path of each export's source → the package specifier users import. */
const packageExports = new Map<string, string>();
for (const [key, source] of Object.entries(denoJson.exports)) {
  packageExports.set(resolve(root, source), denoJson.name + key.slice(1)); // "./engine" → "/engine"
}

/** Pinned npm packages met in `npm:` specifiers, name → version. */
const pinned = new Map<string, string>();
/** Compiled modules, path relative to the root (`bench/…/x.js`) → text. */
const compiled = new Map<string, string>();

/** Rewrites one module specifier of `file`; queues relative modules for compiling. */
function rewrite(file: string, specifier: string, queue: string[]): string {
  if (specifier.startsWith("node:")) return specifier;
  const npm = /^npm:\/?((?:@[^/@]+\/)?[^/@]+)@([^/]+)$/.exec(specifier);
  if (npm) {
    const [, name, version] = npm as unknown as [string, string, string];
    if ((pinned.get(name) ?? version) !== version) fail(`${name} is pinned at two versions`);
    pinned.set(name, version);
    return NODE_ENTRIES[name] ?? name;
  }
  if (!/^\.\.?\//.test(specifier)) fail(`${file}: cannot compile the import of "${specifier}"`);
  const target = resolve(dirname(join(root, file)), specifier);
  const exported = packageExports.get(target);
  if (exported !== undefined) return exported;
  const path = relative(root, target).split(SEPARATOR).join("/");
  if (!path.startsWith("bench/") || !path.endsWith(".ts")) {
    fail(`${file}: "${specifier}" is outside bench/ and not an export of ${denoJson.name}`);
  }
  queue.push(path);
  return specifier.replace(/\.ts$/, ".js");
}

/** Compiles `file` to JavaScript; its rewritten imports are those left after type erasure. */
function compile(file: string, queue: string[]): void {
  const imports = mapModuleSpecifiers((specifier) => rewrite(file, specifier, queue));
  const result = ts.transpileModule(readFileSync(join(root, file), "utf8"), {
    fileName: file,
    reportDiagnostics: true,
    compilerOptions: {
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.ES2022,
      isolatedModules: true,
      newLine: ts.NewLineKind.LineFeed,
    },
    // After TypeScript's own transforms, so type-only imports are already gone.
    transformers: { after: [imports] },
  });
  if (result.diagnostics?.length) {
    fail(`${file}: ${ts.flattenDiagnosticMessageText(result.diagnostics[0]!.messageText, "\n")}`);
  }
  compiled.set(file.replace(/\.ts$/, ".js"), result.outputText);
}

// 1. Compile (this also collects the pinned versions).
const queue = [...ENTRIES];
while (queue.length > 0) {
  const file = queue.pop()!;
  if (!compiled.has(file.replace(/\.ts$/, ".js"))) compile(file, queue);
}

// 2. Install the npm build and the peers, and check the peers' versions.
rmSync(join(out, "bench"), { recursive: true, force: true });
try {
  installNpmBuild(out, Object.fromEntries([...pinned].sort(([a], [b]) => a < b ? -1 : 1)));
} catch (error) {
  fail(error instanceof Error ? error.message : String(error));
}
for (const [name, version] of pinned) {
  const installed = JSON.parse(
    readFileSync(join(out, "node_modules", ...name.split("/"), "package.json"), "utf8"),
  ) as { version: string };
  if (installed.version !== version) fail(`${name} ${installed.version} installed, not ${version}`);
}

// 3. Write the compiled benchmark.
for (const [file, text] of compiled) {
  mkdirSync(dirname(join(out, file)), { recursive: true });
  writeFileSync(join(out, file), text);
}
console.error(
  `${OUT}: ${compiled.size} modules; ${denoJson.name} from npm/; ` +
    [...pinned].map(([name, version]) => `${name}@${version}`).join(", "),
);
