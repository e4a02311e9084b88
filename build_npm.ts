/**
 * Builds the npm package into `npm/` with the TypeScript compiler API:
 * ES2022 JavaScript modules and `.d.ts` files for every entry of
 * `deno.json`'s `exports` (its `./cli` export becomes the `policy` bin), a
 * CommonJS entry beside each, a generated `package.json`, a `README.md`
 * rendered from `tools/npm_readme.md`, and `LICENSE`. See
 * `docs/install.md` ("Building the npm package").
 *
 * It fails with a message and exit code 1 on any TypeScript diagnostic, on a
 * relative `.ts` specifier left in the output, on a bare import that
 * `deno.json` does not map, and when the package's `exports` and
 * `deno.json`'s `exports` drift apart.
 *
 * Run it as `deno task build:npm`. It reads the project and Deno's npm cache
 * (where `typescript`, `@types/node` and the other packages of `deno.lock`
 * live; its folder depends on the OS and `DENO_DIR`) and writes only `npm/`.
 *
 * @module
 */
import ts from "typescript";
import { dirname, join, posix, relative, resolve, sep as SEPARATOR } from "node:path";
import { fileURLToPath as fromFileUrl, pathToFileURL } from "node:url";
import { mapModuleSpecifiers } from "./tools/map_module_specifiers.ts";
import { exportSpecifierFinder, rewriteExampleImports } from "./tools/example_imports.ts";
import { renderNpmReadme } from "./tools/npm_readme.ts";
import { bundleModules } from "./tools/bundle_modules.ts";
import {
  buildPlayground,
  OUTPUT_DIR as PLAYGROUND_DIR,
  PAGE_DECLARATIONS,
  pageModule,
  writePlayground,
} from "./tools/build_playground.ts";

/** Where the package is written. */
const OUT_DIR = "npm";

/**
 * Optional peer dependencies, with the range users may bring: always listed
 * in `package.json`, never installed with the package, and only imported
 * lazily or for types. `typescript` is only loaded, lazily, by `policy
 * analyze`; making every library user install it (about 23 MB) would serve
 * nobody else. Users of `policy analyze` install it themselves
 * (docs/install.md). The enforcement adapters take the user's own Hono,
 * Express, `redis` or `ioredis` objects (docs/enforcement.md), typed by
 * shape, but for Express, whose types (`@types/express`) the declarations
 * of `./enforce/express` import: none of them is imported by the code.
 */
const OPTIONAL_PEERS: Readonly<Record<string, string>> = {
  typescript: ">=5.0.0 <7",
  hono: ">=4.0.0 <5",
  express: ">=5.0.0 <6",
  "@types/express": ">=5.0.0 <6",
  redis: ">=4.0.0 <7",
  ioredis: ">=5.0.0 <7",
};

/**
 * Peer dependencies that one export needs and imports statically (the
 * OpenFeature SDKs of `./openfeature` and `./openfeature/web`,
 * docs/openfeature.md; OpenTelemetry's API of `./otel`, docs/observability.md): listed in `package.json` as optional peers with the
 * versions the tests pin (deno.json "imports") as the lowest supported, and
 * imported only by modules the exports named here reach, never by another
 * export's modules, so that importing the root or `./engine` never loads
 * them. Their exports are bundled as leaves (`tools/bundle_modules.ts`).
 */
const EXPORT_PEERS: Readonly<Record<string, { range: string; exports: readonly string[] }>> = {
  "@openfeature/server-sdk": { range: "^1.23.0", exports: ["./openfeature"] },
  "@openfeature/web-sdk": { range: "^1.10.0", exports: ["./openfeature/web"] },
  "@openfeature/core": { range: "^1.12.0", exports: ["./openfeature", "./openfeature/web"] },
  // 1.9 has no logs API: `./otel` then emits events only to a loggerProvider it is given
  // (docs/observability.md); the tests pin 1.10.
  "@opentelemetry/api": { range: "^1.9.0", exports: ["./otel"] },
};

/**
 * Declaration files the npm package adds to a module's declarations, by the
 * module's source: global type augmentations, which JSR refuses in a package
 * (so they are in no module graph of the Deno sources). The build
 * type-checks each with the program, ships it beside the module's `.d.ts`
 * and imports it from there.
 */
const NPM_DECLARATIONS: Readonly<Record<string, string>> = {
  // Types res.locals.policyDecision (docs/enforcement.md "Guards").
  "src/enforce/express_guard.ts": "src/enforce/_express_locals.d.ts",
};

/** The package's description on npm. */
const DESCRIPTION =
  "Signed JSON policy bundles: verify them, evaluate decisions in-process and enforce them (engine, verify, clients, enforce).";

/**
 * The repository's web address: `repository`, `homepage` and `bugs` of
 * `package.json`, and the links of the npm README, derive from it. No
 * address is decided anywhere else in the project yet; this is the one
 * place to change (docs/install.md, "Building the npm package").
 */
const REPOSITORY_URL = "https://github.com/policy-runtime/runtime";

/** The branch the npm README's links to the documentation point into. */
const DOCS_REF = "main";

/** The template of the npm package's README (links relative to the project root). */
const README_TEMPLATE = "tools/npm_readme.md";

/** Files copied into the package as they are. */
const SHIPPED_FILES = ["LICENSE"];

/** The `deno.json` export that is the command line: the `policy` bin on npm, not an export. */
const CLI_EXPORT = "./cli";

/**
 * Data files copied into the package as they are, and exported as
 * `./schemas/<name>.json` (JSON Schemas for editors and validators,
 * docs/schemas.md). The same files are in the JSR package (deno.json
 * `publish.include`).
 */
const SCHEMAS_DIR = "schemas";
const SCHEMAS_EXPORT = "./schemas/*.json";

/**
 * The playground page's module (docs/playground.md), which `cli.ts` imports
 * from beside itself: built first (into the project's `dist/playground/` as
 * well, where the compiler finds its declarations), then shipped at the
 * same path in the package.
 */
const PLAYGROUND_PAGE = `./${PLAYGROUND_DIR}/page.js`;

/** The one line the `policy` bin starts with under Node. */
const NODE_SHEBANG = "#!/usr/bin/env node";

class BuildError extends Error {
  override name = "BuildError";
}

interface DenoJson {
  name: string;
  version: string;
  license?: string;
  exports: Record<string, string>;
  imports?: Record<string, string>;
  compilerOptions?: Record<string, unknown>;
}

interface DenoLock {
  npm?: Record<string, { dependencies?: string[] }>;
}

/** An entry point of the package: an export subpath or the bin. */
interface EntryPoint {
  /** `"."`, `"./engine"` … or `"bin"` for the CLI. */
  name: string;
  /** Source path relative to the project root, without `./`. */
  source: string;
}

const root = fromFileUrl(new URL(".", import.meta.url));
const outDir = join(root, OUT_DIR);

function readJson<T>(path: string): T {
  return JSON.parse(Deno.readTextFileSync(join(root, path))) as T;
}

function exists(path: string): boolean {
  try {
    Deno.statSync(path);
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}

/** The schema files of the project (`schemas/*.json`), sorted. */
function schemaFiles(): string[] {
  return [...Deno.readDirSync(join(root, SCHEMAS_DIR))]
    .filter((entry) => entry.isFile && entry.name.endsWith(".json"))
    .map((entry) => entry.name)
    .sort();
}

/** `./src/engine/mod.ts` → `src/engine/mod` (the path the JS and `.d.ts` share). */
function stem(source: string): string {
  return source.replace(/^\.\//, "").replace(/\.ts$/, "");
}

/** `npm:jsonc-parser@3.3.1` → `["jsonc-parser", "3.3.1"]`; scoped names included. */
function parseNpmSpecifier(specifier: string): [name: string, version: string] | undefined {
  const match = /^npm:\/?((?:@[^/@]+\/)?[^/@]+)@([^/]+)$/.exec(specifier);
  return match ? [match[1]!, match[2]!] : undefined;
}

/**
 * Deno keeps npm packages in `<cache>/<registry>/<name>/<version>/`, not in
 * a `node_modules` tree. The compiler host below presents the packages of
 * `deno.lock` as `<root>/node_modules/<name>`, so TypeScript resolves bare
 * imports, `@types/node` and their own dependencies the Node way.
 */
function npmPackageDirs(denoJson: DenoJson, lock: DenoLock): Map<string, string> {
  const registry = registryDir(denoJson);
  const dirs = new Map<string, string>();
  for (const key of Object.keys(lock.npm ?? {})) {
    // "name@version" or "name@version_peer@x": the name may start with "@".
    const at = key.indexOf("@", 1);
    const name = key.slice(0, at);
    const version = key.slice(at + 1).split("_")[0]!;
    if (!dirs.has(name)) dirs.set(name, join(registry, ...name.split("/"), version));
  }
  return dirs;
}

/** The registry folder of Deno's npm cache, found from where `typescript` resolves. */
function registryDir(denoJson: DenoJson): string {
  const mapped = parseNpmSpecifier(denoJson.imports?.typescript ?? "");
  if (!mapped) throw new BuildError(`deno.json must map "typescript" to an npm: specifier`);
  const file = fromFileUrl(import.meta.resolve("typescript"));
  const marker = `${SEPARATOR}typescript${SEPARATOR}${mapped[1]}${SEPARATOR}`;
  const index = file.lastIndexOf(marker);
  if (index < 0) throw new BuildError(`cannot find Deno's npm cache from ${file}`);
  return file.slice(0, index);
}

function createHost(options: ts.CompilerOptions, packages: Map<string, string>): ts.CompilerHost {
  const host = ts.createCompilerHost(options, true);
  const nodeModules = join(root, "node_modules") + SEPARATOR;
  // `<root>/node_modules/<name>/rest` → `<cache>/<name>/<version>/rest`.
  const mapPath = (path: string): string => {
    const native = resolve(path);
    if (!native.startsWith(nodeModules)) return native;
    const rest = native.slice(nodeModules.length).split(SEPARATOR);
    const nameLength = rest[0]?.startsWith("@") ? 2 : 1;
    const dir = packages.get(rest.slice(0, nameLength).join("/"));
    return dir === undefined ? native : join(dir, ...rest.slice(nameLength));
  };
  // Sources are ES modules: the overlay stands in for the package.json the
  // project does not have, so NodeNext treats `.ts` files as ESM.
  const rootPackageJson = join(root, "package.json");
  const overlay = new Map([[rootPackageJson, JSON.stringify({ type: "module" })]]);
  const fileExists = host.fileExists.bind(host);
  const readFile = host.readFile.bind(host);
  const directoryExists = host.directoryExists?.bind(host) ?? ts.sys.directoryExists;
  const getDirectories = host.getDirectories?.bind(host) ?? ts.sys.getDirectories;
  const getSourceFile = host.getSourceFile.bind(host);
  host.fileExists = (path) => overlay.has(resolve(path)) || fileExists(mapPath(path));
  host.readFile = (path) => overlay.get(resolve(path)) ?? readFile(mapPath(path));
  host.directoryExists = (path) => {
    const native = resolve(path);
    if (native === resolve(nodeModules)) return true;
    if (native === join(nodeModules, "@types")) return packages.has("@types/node");
    return directoryExists(mapPath(path));
  };
  host.getDirectories = (path) => {
    const native = resolve(path);
    if (native === join(nodeModules, "@types")) {
      return [...packages.keys()].filter((n) => n.startsWith("@types/")).map((n) => n.slice(7));
    }
    return getDirectories(mapPath(path));
  };
  host.realpath = (path) => path;
  host.getSourceFile = (fileName, languageVersion, onError, shouldCreate) =>
    getSourceFile(mapPath(fileName), languageVersion, onError, shouldCreate);
  return host;
}

/** Rewrites `./x.ts` to `./x.js` in module specifiers of declaration files. */
const rewriteDeclarationSpecifiers = mapModuleSpecifiers<ts.SourceFile | ts.Bundle>((specifier) =>
  isRelativeTs(specifier) ? toJs(specifier) : specifier
);

const isRelativeTs = (specifier: string): boolean =>
  /^\.\.?\//.test(specifier) && /\.(m|c)?tsx?$/.test(specifier) &&
  !/\.d\.(m|c)?ts$/.test(specifier);

const toJs = (specifier: string): string =>
  specifier.replace(/\.(m|c)?tsx?$/, (_, kind: string | undefined) => `.${kind ?? ""}js`);

function formatDiagnostics(diagnostics: readonly ts.Diagnostic[]): string {
  return ts.formatDiagnostics(diagnostics, {
    getCanonicalFileName: (f) => f,
    getCurrentDirectory: () => root,
    getNewLine: () => "\n",
  });
}

/** Every module specifier in emitted code, with whether it loads at start-up. */
function collectSpecifiers(
  file: string,
  text: string,
): readonly { specifier: string; static: boolean }[] {
  // The build asks again for the same files (each export's reach, each check): parse each text once.
  const seen = specifiersSeen.get(file);
  if (seen?.text === text) return seen.found;
  const found = parseSpecifiers(file, text);
  specifiersSeen.set(file, { text, found });
  return found;
}

const specifiersSeen = new Map<
  string,
  { text: string; found: readonly { specifier: string; static: boolean }[] }
>();

function parseSpecifiers(file: string, text: string): { specifier: string; static: boolean }[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true);
  const found: { specifier: string; static: boolean }[] = [];
  const visit = (node: ts.Node): void => {
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)
    ) {
      found.push({ specifier: node.moduleSpecifier.text, static: true });
    } else if (
      ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword
    ) {
      const [argument] = node.arguments;
      if (argument && ts.isStringLiteralLike(argument)) {
        found.push({ specifier: argument.text, static: false });
      } else {
        found.push({ specifier: "<computed>", static: false });
      }
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
      const literal = node.argument.literal;
      if (ts.isStringLiteral(literal)) found.push({ specifier: literal.text, static: false });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The package name of a bare specifier: `@scope/name/sub` → `@scope/name`. */
function packageName(specifier: string): string {
  const parts = specifier.split("/");
  return parts.slice(0, specifier.startsWith("@") ? 2 : 1).join("/");
}

/** What the emitted code imports from outside the package. */
interface ExternalImports {
  dependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
}

/**
 * Checks every emitted file and derives the package's dependencies: no
 * relative `.ts` specifier may remain; `node:` built-ins stay as they are;
 * every bare import must be mapped to `npm:<name>@<version>` in
 * `deno.json`'s `imports` and becomes a dependency with that version, or is
 * an optional peer (`OPTIONAL_PEERS`, all listed), which must only be
 * imported lazily, or the peer of an export (`EXPORT_PEERS`, all listed;
 * see {@link checkExportPeers}).
 */
function checkImports(files: Map<string, string>, denoJson: DenoJson): ExternalImports {
  const mapped = new Map<string, string>();
  for (const [key, value] of Object.entries(denoJson.imports ?? {})) {
    const parsed = parseNpmSpecifier(value);
    if (parsed && parsed[0] === key) mapped.set(key, parsed[1]);
  }
  const problems: string[] = [];
  const dependencies: Record<string, string> = {};
  const peerDependencies: Record<string, string> = {
    ...OPTIONAL_PEERS,
    ...Object.fromEntries(Object.entries(EXPORT_PEERS).map(([name, peer]) => [name, peer.range])),
  };
  for (const [file, text] of files) {
    for (const { specifier, static: isStatic } of collectSpecifiers(file, text)) {
      if (specifier.startsWith("node:")) continue;
      if (specifier === "<computed>") {
        problems.push(`${file}: import() of a computed specifier cannot be checked`);
      } else if (/^\.\.?\//.test(specifier)) {
        if (isRelativeTs(specifier)) problems.push(`${file}: "${specifier}" was not rewritten`);
        else if (!/\.(m|c)?js$/.test(specifier)) {
          problems.push(`${file}: "${specifier}" has no .js extension (Node needs one)`);
        }
      } else if (/^[a-z][a-z0-9+.-]*:/i.test(specifier)) {
        problems.push(`${file}: "${specifier}" is a URL or scheme import; map it in deno.json`);
      } else {
        const name = packageName(specifier);
        const version = mapped.get(name);
        if (version === undefined) {
          problems.push(
            `${file}: "${specifier}" is not mapped to npm:${name}@<version> in deno.json`,
          );
        } else if (name in EXPORT_PEERS) {
          // Statically imported where allowed: checkExportPeers checks where.
        } else if (name in OPTIONAL_PEERS) {
          if (isStatic && file.endsWith(".js")) {
            problems.push(
              `${file}: imports optional peer "${name}" statically; use a lazy import()`,
            );
          }
        } else if (!name.startsWith("@types/")) {
          dependencies[name] = version;
        }
      }
    }
  }
  if (problems.length > 0) throw new BuildError(`bad imports in npm/:\n  ${problems.join("\n  ")}`);
  return { dependencies: sortKeys(dependencies), peerDependencies: sortKeys(peerDependencies) };
}

function sortKeys<T>(record: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0));
}

/**
 * The conditions of one export: its declarations, the ES module for
 * `import`, the CommonJS entry (see {@link commonJsEntry}) for `require`,
 * and the ES module for every other resolver.
 */
function exportConditions(path: string): Record<string, string> {
  return {
    types: `${path}.d.ts`,
    import: `${path}.js`,
    require: `${path}.cjs`,
    default: `${path}.js`,
  };
}

/**
 * The CommonJS entry of an export: `require()` of the ES module beside it,
 * which Node 20.19+ and 22.12+ do (the consumer gets the module namespace,
 * the same instances as `import` gets). Older Node refuses with
 * `ERR_REQUIRE_ESM` and a message about the consumer's file; this says
 * instead what the package is and what to do, with the same code.
 */
function commonJsEntry(specifier: string, file: string): string {
  const base = file.slice(file.lastIndexOf("/") + 1);
  return `"use strict";
// The CommonJS entry of ${specifier} (generated by build_npm.ts): the package is ES modules,
// which require() loads on Node 20.19+ and 22.12+.
try {
  module.exports = require("./${base}");
} catch (error) {
  if (error === null || typeof error !== "object" || error.code !== "ERR_REQUIRE_ESM") throw error;
  const refusal = new Error(
    "${specifier} is ES modules, and this Node (" + process.versions.node + ") does not load ES " +
      'modules with require(): load it with await import("${specifier}"), or run Node 20.19+ or ' +
      "22.12+ (without --no-experimental-require-module)",
    { cause: error },
  );
  refusal.code = "ERR_REQUIRE_ESM";
  throw refusal;
}
`;
}

/** The `package.json` of the npm package. */
function packageJson(
  denoJson: DenoJson,
  entries: readonly EntryPoint[],
  imports: ExternalImports,
): Record<string, unknown> {
  const exports: Record<string, Record<string, string> | string> = {};
  let bin: Record<string, string> | undefined;
  for (const entry of entries) {
    const path = `./${stem(entry.source)}`;
    if (entry.name === "bin") bin = { policy: `${path}.js` };
    else exports[entry.name] = exportConditions(path);
  }
  exports[SCHEMAS_EXPORT] = SCHEMAS_EXPORT;
  const peers = Object.keys(imports.peerDependencies);
  return {
    name: denoJson.name,
    version: denoJson.version,
    description: DESCRIPTION,
    license: denoJson.license ?? "MIT",
    repository: { type: "git", url: `git+${REPOSITORY_URL}.git` },
    homepage: `${REPOSITORY_URL}#readme`,
    bugs: { url: `${REPOSITORY_URL}/issues` },
    type: "module",
    exports,
    ...(bin ? { bin } : {}),
    engines: { node: ">=20" },
    ...(Object.keys(imports.dependencies).length > 0 ? { dependencies: imports.dependencies } : {}),
    ...(peers.length > 0
      ? {
        peerDependencies: imports.peerDependencies,
        peerDependenciesMeta: Object.fromEntries(peers.map((p) => [p, { optional: true }])),
      }
      : {}),
  };
}

/**
 * Fails when the package no longer matches `deno.json`: an export whose
 * JavaScript or declarations were not emitted, a `package.json` export
 * missing, added or pointing at a missing file, a bin without its file, or
 * a compiled module whose exported names differ from its source's, or an
 * exported function or class whose `name` does.
 */
async function checkDrift(
  denoJson: DenoJson,
  entries: readonly EntryPoint[],
  written: Record<string, unknown>,
): Promise<void> {
  const problems: string[] = [];
  const { [SCHEMAS_EXPORT]: schemas, ...packageExports } = (written.exports ?? {}) as Record<
    string,
    Record<string, string>
  >;
  const denoKeys = Object.keys(denoJson.exports).filter((key) => key !== CLI_EXPORT);
  const npmKeys = Object.keys(packageExports);
  if (schemas === undefined || schemaFiles().length === 0) {
    problems.push(`package.json has no "${SCHEMAS_EXPORT}" export, or ${SCHEMAS_DIR}/ is empty`);
  }
  for (const file of schemaFiles()) {
    if (!exists(join(outDir, SCHEMAS_DIR, file))) {
      problems.push(`${SCHEMAS_DIR}/${file} was not copied`);
    }
  }
  if (denoKeys.join("\n") !== npmKeys.join("\n")) {
    problems.push(`exports differ: deno.json [${denoKeys}] vs package.json [${npmKeys}]`);
  }
  for (const [key, conditions] of Object.entries(packageExports)) {
    for (const [condition, target] of Object.entries(conditions)) {
      if (!exists(join(outDir, target))) {
        problems.push(`package.json exports["${key}"].${condition}: ${target} was not emitted`);
      }
    }
  }
  for (const entry of entries.filter((e) => e.name !== "bin")) {
    const source = await import(pathToFileURL(join(root, entry.source)).href);
    const built = await import(pathToFileURL(join(outDir, `${stem(entry.source)}.js`)).href);
    const want = Object.keys(source).sort().join(", ");
    const got = Object.keys(built).sort().join(", ");
    if (want !== got) {
      problems.push(`export "${entry.name}": source has [${want}], npm has [${got}]`);
    }
    // The bundler renames a top-level function or class whose name another module uses.
    for (const [name, value] of Object.entries(source)) {
      const renamed = typeof value === "function" && built[name]?.name !== value.name;
      if (renamed) problems.push(`export "${entry.name}": ${name} is named ${built[name]?.name}`);
    }
  }
  const bin = written.bin as Record<string, string> | undefined;
  const hasCli = entries.some((e) => e.name === "bin");
  if (hasCli !== (bin !== undefined)) problems.push(`cli.ts and package.json "bin" disagree`);
  for (const target of Object.values(bin ?? {})) {
    const path = join(outDir, target);
    if (!exists(path)) problems.push(`bin ${target} was not emitted`);
    else if (!Deno.readTextFileSync(path).startsWith(`${NODE_SHEBANG}\n`)) {
      problems.push(`bin ${target} does not start with "${NODE_SHEBANG}"`);
    }
  }
  if (problems.length > 0) {
    throw new BuildError(`npm/ drifted from deno.json:\n  ${problems.join("\n  ")}`);
  }
}

/**
 * The emitted files reached from `roots` through relative imports (each
 * target path passed through `as`, e.g. from `.js` to its `.d.ts`), roots
 * included; paths that were not emitted are left out.
 */
function reachable(
  files: ReadonlyMap<string, string>,
  roots: readonly string[],
  as: (target: string) => string = (target) => target,
): Set<string> {
  const reached = new Set<string>();
  const pending = [...roots];
  while (pending.length > 0) {
    const file = pending.pop()!;
    if (reached.has(file) || !files.has(file)) continue;
    reached.add(file);
    for (const { specifier } of collectSpecifiers(file, files.get(file)!)) {
      if (!/^\.\.?\//.test(specifier)) continue;
      pending.push(as(posix.normalize(posix.join(posix.dirname(file), specifier))));
    }
  }
  return reached;
}

/**
 * Ships each of {@link NPM_DECLARATIONS} beside its module's `.d.ts` (its
 * relative `.ts` specifiers made `.js`), and imports it from there.
 */
function addNpmDeclarations(files: Map<string, string>): void {
  for (const [source, declaration] of Object.entries(NPM_DECLARATIONS)) {
    const moduleFile = source.replace(/\.ts$/, ".d.ts");
    const moduleText = files.get(moduleFile);
    if (moduleText === undefined) {
      throw new BuildError(`${declaration}: ${moduleFile} was not emitted`);
    }
    let text = Deno.readTextFileSync(join(root, declaration));
    for (const { specifier } of collectSpecifiers(declaration, text)) {
      if (isRelativeTs(specifier)) text = text.replaceAll(`"${specifier}"`, `"${toJs(specifier)}"`);
    }
    files.set(declaration, text);
    const relativePath = posix.relative(posix.dirname(moduleFile), declaration);
    const specifier = `./${relativePath.replace(/\.d\.ts$/, ".js")}`;
    files.set(moduleFile, `${moduleText}import "${specifier}";\n`);
  }
}

/**
 * Keeps the declaration files the exports reach (the bin's modules need
 * none: nothing can import them) and makes their doc comment examples
 * import the package by name. Fails on an example import no export
 * reaches.
 */
function shipDeclarations(
  files: Map<string, string>,
  entries: readonly EntryPoint[],
  denoJson: DenoJson,
): void {
  const reached = reachable(
    files,
    entries.filter((e) => e.name !== "bin").map((e) => `${stem(e.source)}.d.ts`),
    (target) => target.replace(/\.js$/, ".d.ts"),
  );
  const exported = Object.fromEntries(
    Object.entries(denoJson.exports).filter(([key]) => key !== CLI_EXPORT),
  );
  const specifierOf = exportSpecifierFinder(denoJson.name, exported);
  const unmapped: string[] = [];
  for (const file of [...files.keys()].filter((f) => f.endsWith(".d.ts"))) {
    if (!reached.has(file)) {
      files.delete(file);
      continue;
    }
    const source = file.replace(/\.d\.ts$/, ".ts");
    const result = rewriteExampleImports(files.get(file)!, source, specifierOf);
    files.set(file, result.text);
    unmapped.push(...result.unmapped);
  }
  if (unmapped.length > 0) throw new BuildError(`doc examples:\n  ${unmapped.join("\n  ")}`);
}

/** The npm README: the template with absolute links into the repository. */
function readme(): string {
  const readFile = (path: string): string | undefined => {
    try {
      return Deno.readTextFileSync(join(root, path));
    } catch {
      return undefined;
    }
  };
  try {
    return renderNpmReadme(readFile(README_TEMPLATE)!, {
      repositoryUrl: REPOSITORY_URL,
      ref: DOCS_REF,
      readFile,
    });
  } catch (error) {
    throw new BuildError(error instanceof Error ? error.message : String(error));
  }
}

/**
 * Fails when a module that an export reaches imports the peer of another
 * export (`EXPORT_PEERS`): the root export or `./engine` would then load
 * an SDK its users never installed.
 */
function checkExportPeers(files: ReadonlyMap<string, string>, entries: readonly EntryPoint[]) {
  const problems: string[] = [];
  for (const entry of entries.filter((e) => e.name !== "bin")) {
    for (const file of reachable(files, [`${stem(entry.source)}.js`])) {
      for (const { specifier } of collectSpecifiers(file, files.get(file)!)) {
        const peer = EXPORT_PEERS[packageName(specifier)];
        if (peer !== undefined && !peer.exports.includes(entry.name)) {
          problems.push(`export "${entry.name}" reaches ${file}, which imports "${specifier}"`);
        }
      }
    }
  }
  if (problems.length > 0) {
    throw new BuildError(`an export loads another export's peer:\n  ${problems.join("\n  ")}`);
  }
}

/** The exports that import a peer of their own (`EXPORT_PEERS`): the bundler's leaves. */
function leafEntries(entries: readonly EntryPoint[]): string[] {
  const names = new Set(Object.values(EXPORT_PEERS).flatMap((peer) => peer.exports));
  return entries.filter((e) => names.has(e.name)).map((e) => `${stem(e.source)}.js`);
}

/**
 * The modules that a leaf on the portable layer shares with the exports
 * above that layer and no portable export reaches (the package's version,
 * the bounded body reader): the bundler hoists them into the portable
 * chunk, so that they are not a chunk of their own that the root export
 * loads. They are portable: the leaf that reaches them uses no `node:`.
 */
function sharedWithLeaves(
  files: ReadonlyMap<string, string>,
  layers: readonly (readonly string[])[],
  leaves: Readonly<Record<string, number>>,
): string[] {
  const reach = (entries: readonly string[]) => reachable(files, entries);
  const portable = reach(layers[0] ?? []);
  const above = reach(layers.slice(1).flat());
  const fromLeaves = reach(Object.keys(leaves).filter((leaf) => leaves[leaf] === 0));
  return [...fromLeaves].filter((file) => above.has(file) && !portable.has(file)).sort();
}

/** The code of `entry` (and all it reaches) imports a `node:` module, statically or lazily. */
function usesNode(files: ReadonlyMap<string, string>, entry: string): boolean {
  return [...reachable(files, [entry])].some((file) =>
    collectSpecifiers(file, files.get(file)!).some(({ specifier }) => specifier.startsWith("node:"))
  );
}

/**
 * The library's exports in two layers for the bundler: those whose code
 * runs anywhere (no `node:` import, static or lazy, in anything they reach:
 * the engine, verify, enforce, lint and diff), then those that use Node's
 * built-ins (the root export, the clients, the decision log). The portable
 * exports then share one chunk that never names `node:`, which browser
 * bundles of `./engine` rely on (docs/install.md). The exports with a peer
 * of their own are not in a layer: they are leaves ({@link leafEntries}).
 */
function libraryLayers(
  files: ReadonlyMap<string, string>,
  entries: readonly EntryPoint[],
): string[][] {
  const leaves = leafEntries(entries);
  const library = entries.filter((e) => e.name !== "bin").map((e) => `${stem(e.source)}.js`)
    .filter((file) => !leaves.includes(file));
  const portable = library.filter((file) => !usesNode(files, file));
  return [portable, library.filter((file) => !portable.includes(file))];
}

/**
 * Replaces the emitted JavaScript by its bundles (`tools/bundle_modules.ts`):
 * one file per export, the chunks they share, and the bin in one file,
 * which then gets its Node shebang.
 */
async function bundle(
  files: Map<string, string>,
  entries: readonly EntryPoint[],
  imports: ExternalImports,
): Promise<void> {
  const emitted = new Map([...files].filter(([file]) => file.endsWith(".js")));
  const bin = entries.find((e) => e.name === "bin");
  let bundled: Map<string, string>;
  const library = libraryLayers(emitted, entries);
  // A leaf sits on the portable layer unless its code uses Node's built-ins.
  const leaves = Object.fromEntries(
    leafEntries(entries).map((leaf) => [leaf, usesNode(emitted, leaf) ? 1 : 0]),
  );
  try {
    bundled = await bundleModules({
      files: emitted,
      library,
      leaves,
      hoist: sharedWithLeaves(emitted, library, leaves),
      ...(bin === undefined ? {} : { bin: `${stem(bin.source)}.js` }),
      external: [...Object.keys(imports.dependencies), ...Object.keys(imports.peerDependencies)],
      keep: [PLAYGROUND_PAGE],
    });
  } catch (error) {
    throw new BuildError(`bundling failed: ${error instanceof Error ? error.message : error}`);
  }
  for (const file of emitted.keys()) files.delete(file);
  for (const [file, text] of bundled) files.set(file, text);
  if (bin !== undefined) {
    const file = `${stem(bin.source)}.js`;
    files.set(file, prepareBin(files.get(file)!, file));
  }
}

/**
 * The bin runs under Node: replace the source's Deno shebang and refuse an
 * `import.meta.main` guard (undefined under Node 20, so the CLI would never
 * run).
 */
function prepareBin(text: string, file: string): string {
  if (text.includes("import.meta.main")) {
    throw new BuildError(`${file} uses import.meta.main, which Node 20 does not set`);
  }
  return `${NODE_SHEBANG}\n${text.replace(/^#![^\n]*\n/, "")}`;
}

async function build(): Promise<void> {
  const denoJson = readJson<DenoJson>("deno.json");
  const lock = readJson<DenoLock>("deno.lock");
  const entries: EntryPoint[] = Object.entries(denoJson.exports).map(([name, source]) => ({
    name: name === CLI_EXPORT ? "bin" : name,
    source: source.replace(/^\.\//, ""),
  }));
  for (const entry of entries) {
    if (!entry.source.endsWith(".ts")) {
      throw new BuildError(`deno.json export "${entry.name}" is not a .ts file: ${entry.source}`);
    }
    if (!exists(join(root, entry.source))) {
      throw new BuildError(`deno.json export "${entry.name}": ${entry.source} does not exist`);
    }
  }
  for (const file of [...SHIPPED_FILES, README_TEMPLATE]) {
    if (!exists(join(root, file))) throw new BuildError(`${file} is missing; the package ships it`);
  }

  // The page first: cli.ts imports it, and the compiler checks that import against its declarations.
  let page;
  try {
    page = await buildPlayground();
  } catch (error) {
    throw new BuildError(`the playground page: ${error instanceof Error ? error.message : error}`);
  }
  await writePlayground(page, join(root, PLAYGROUND_DIR));

  const packages = npmPackageDirs(denoJson, lock);
  if (!packages.has("@types/node")) {
    throw new BuildError(
      `deno.lock has no @types/node: the build type-checks against Node's types (deno.json "imports")`,
    );
  }

  const options: ts.CompilerOptions = {
    // The project's strictness (deno.json) applies to the npm build too.
    ...ts.convertCompilerOptionsFromJson(denoJson.compilerOptions ?? {}, root).options,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    // Web APIs (fetch, WebCrypto, TextEncoder) as the DOM declares them and
    // Node's built-ins from @types/node 20, the oldest Node supported. No
    // Deno namespace: library code that uses it fails here.
    lib: ["lib.es2022.d.ts", "lib.dom.d.ts", "lib.esnext.disposable.d.ts"],
    types: ["node"],
    declaration: true,
    // Rewrites relative ".ts" specifiers in JavaScript only (TypeScript
    // 5.7+); `rewriteDeclarationSpecifiers` does the same for `.d.ts`.
    rewriteRelativeImportExtensions: true,
    isolatedModules: true,
    rootDir: root,
    outDir,
    newLine: ts.NewLineKind.LineFeed,
    noEmitOnError: true,
    // Declaration files are checked (Node's types, NPM_DECLARATIONS), but
    // not TypeScript's own lib files.
    skipLibCheck: false,
    skipDefaultLibCheck: true,
  };
  const host = createHost(options, packages);
  const program = ts.createProgram({
    rootNames: [
      ...entries.map((e) => join(root, e.source)),
      ...Object.values(NPM_DECLARATIONS).map((file) => join(root, file)),
    ],
    options,
    host,
  });
  const diagnostics = ts.getPreEmitDiagnostics(program);
  if (diagnostics.length > 0) {
    throw new BuildError(`TypeScript diagnostics:\n${formatDiagnostics(diagnostics)}`);
  }

  const files = new Map<string, string>();
  const result = program.emit(
    undefined,
    (fileName, text) => files.set(relative(outDir, fileName).split(SEPARATOR).join("/"), text),
    undefined,
    false,
    { afterDeclarations: [rewriteDeclarationSpecifiers] },
  );
  if (result.emitSkipped || result.diagnostics.length > 0) {
    throw new BuildError(`emit failed:\n${formatDiagnostics(result.diagnostics)}`);
  }
  for (const entry of entries) {
    for (const extension of entry.name === "bin" ? [".js"] : [".js", ".d.ts"]) {
      const file = `${stem(entry.source)}${extension}`;
      if (!files.has(file)) {
        throw new BuildError(`export "${entry.name}": ${file} was not emitted`);
      }
    }
  }
  addNpmDeclarations(files);
  const imports = checkImports(files, denoJson);
  await bundle(files, entries, imports);
  checkImports(files, denoJson);
  checkExportPeers(files, entries);
  shipDeclarations(files, entries, denoJson);
  for (const entry of entries.filter((e) => e.name !== "bin")) {
    const specifier = entry.name === "."
      ? denoJson.name
      : `${denoJson.name}/${entry.name.slice(2)}`;
    const file = `${stem(entry.source)}.js`;
    files.set(`${stem(entry.source)}.cjs`, commonJsEntry(specifier, file));
  }
  files.set(`${PLAYGROUND_DIR}/page.js`, pageModule(page));
  files.set(`${PLAYGROUND_DIR}/page.d.ts`, PAGE_DECLARATIONS);
  files.set("README.md", readme());
  const manifest = packageJson(denoJson, entries, imports);

  if (exists(outDir)) Deno.removeSync(outDir, { recursive: true });
  for (const [file, text] of files) {
    const path = join(outDir, file);
    Deno.mkdirSync(dirname(path), { recursive: true });
    Deno.writeTextFileSync(path, text);
  }
  for (const entry of entries.filter((e) => e.name === "bin")) {
    if (Deno.build.os !== "windows") {
      Deno.chmodSync(join(outDir, `${stem(entry.source)}.js`), 0o755);
    }
  }
  Deno.writeTextFileSync(join(outDir, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
  for (const file of SHIPPED_FILES) Deno.copyFileSync(join(root, file), join(outDir, file));
  Deno.mkdirSync(join(outDir, SCHEMAS_DIR));
  for (const file of schemaFiles()) {
    Deno.copyFileSync(join(root, SCHEMAS_DIR, file), join(outDir, SCHEMAS_DIR, file));
  }

  await checkDrift(denoJson, entries, readJson(`${OUT_DIR}/package.json`));
  const count = [...files.keys()].filter((f) => f.endsWith(".js")).length;
  console.log(
    `npm/: ${manifest.name}@${manifest.version}, ${count} modules, exports ${
      Object.keys(denoJson.exports).filter((key) => key !== CLI_EXPORT).join(" ")
    }${manifest.bin ? ", bin policy" : ""}`,
  );
}

try {
  await build();
} catch (error) {
  if (!(error instanceof BuildError)) throw error;
  console.error(`build_npm: ${error.message}`);
  Deno.exit(1);
}
