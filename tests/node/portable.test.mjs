// The portable core: src/engine and src/verify (and what is built on the
// engine alone: src/enforce, src/lint, src/diff) need nothing but ECMAScript
// and web standards. They type-check with the DOM library alone (no Deno,
// no Node types) and bundle for the browser with esbuild into code that
// names neither `Deno` nor a `node:` module, and the bundle works.
import assert from "node:assert/strict";
import { join, relative } from "node:path";
import { test } from "node:test";
import { denoJson, root, scratch, scratchRequire, testdata } from "./_package.mjs";
import { longOnly } from "./_long.mjs";

const ts = scratchRequire("typescript");
const esbuild = scratchRequire("esbuild");

const CORE = ["src/engine/mod.ts", "src/verify/mod.ts"];
/** The web-standard enforcement modules (the Hono and Express adapters name their libraries). */
const ENFORCE = ["src/enforce/mod.ts", "src/enforce/redis/mod.ts"];
/** The change-safety analyses (docs/change-safety.md). */
const ANALYSES = ["src/lint/mod.ts", "src/diff/mod.ts"];

/** Type-checks `files` against ES2022 + DOM only and returns the sources that took part. */
function typeCheckForBrowsers(files) {
  const options = {
    ...ts.convertCompilerOptionsFromJson(denoJson.compilerOptions, root).options,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    allowImportingTsExtensions: true,
    lib: ["lib.es2022.d.ts", "lib.dom.d.ts"],
    types: [],
    typeRoots: [],
    skipLibCheck: false,
  };
  const program = ts.createProgram(files.map((f) => join(root, f)), options);
  const diagnostics = ts.getPreEmitDiagnostics(program);
  assert.equal(
    diagnostics.length,
    0,
    ts.formatDiagnostics(diagnostics, {
      getCanonicalFileName: (f) => f,
      getCurrentDirectory: () => root,
      getNewLine: () => "\n",
    }),
  );
  return program.getSourceFiles()
    .map((f) => relative(root, f.fileName).split("\\").join("/"))
    .filter((f) => !f.includes("node_modules/typescript/lib/"));
}

test("src/engine and src/verify type-check against ES2022 + DOM only", { skip: longOnly }, () => {
  // Nothing outside the two folders (and TypeScript's own libraries) took part.
  for (const file of typeCheckForBrowsers(CORE)) {
    assert.match(file, /^src\/(_internal|public|engine|engine\/[a-z_]+|verify)\/[a-z0-9_]+\.ts$/);
  }
});

test(
  "src/enforce and its Redis store type-check against ES2022 + DOM only",
  { skip: longOnly },
  () => {
    // The kernel, the engine and its enforcement, and the telemetry interface it reports to.
    for (const file of typeCheckForBrowsers(ENFORCE)) {
      assert.match(
        file,
        /^src\/(_internal|public|engine|engine\/[a-z_]+|telemetry|enforce|enforce\/redis)\/[a-z0-9_]+\.ts$/,
      );
    }
  },
);

test("src/lint and src/diff type-check against ES2022 + DOM only", { skip: longOnly }, () => {
  for (const file of typeCheckForBrowsers(ANALYSES)) {
    assert.match(
      file,
      /^src\/(_internal|public|engine|engine\/[a-z_]+|lint|diff)\/[a-z0-9_]+\.ts$/,
    );
  }
});

/** Bundles entry points for the browser; returns the output text by entry. */
async function bundleForBrowser(entryPoints, absWorkingDir = root) {
  const result = await esbuild.build({
    absWorkingDir,
    entryPoints,
    bundle: true,
    platform: "browser",
    format: "esm",
    target: "es2022",
    write: false,
    outdir: "out",
    logLevel: "silent",
  });
  assert.deepEqual(result.errors, []);
  return result.outputFiles.map((f) => f.text);
}

function assertPortable(text) {
  assert.doesNotMatch(text, /\bDeno\b/, "names Deno");
  assert.doesNotMatch(text, /\b(from|import)\s*\(?\s*["']node:/, "imports a node: module");
  assert.doesNotMatch(text, /\brequire\s*\(/, "calls require");
}

test("esbuild bundles src/engine, src/verify, src/lint and src/diff for the browser naming neither Deno nor node:", async () => {
  const outputs = await bundleForBrowser([...CORE, ...ANALYSES].map((f) => join(root, f)));
  assert.equal(outputs.length, 4);
  for (const text of outputs) assertPortable(text);

  // The engine bundle, loaded as a browser would (one ES module), decides
  // the shared fixtures as the library does.
  const engine = await import(
    `data:text/javascript;base64,${Buffer.from(outputs[0]).toString("base64")}`
  );
  const fixture = testdata("engine/precedence.json");
  const compiled = engine.compileBundle(fixture.bundle);
  for (const c of fixture.cases) {
    assert.deepEqual(engine.evaluate(compiled, c.request, c.options), c.want, c.name);
  }
});

test("the installed package's ./engine, ./verify, ./enforce, ./enforce/redis, ./lint and ./diff bundle for the browser too", async () => {
  // Bare entry points: esbuild resolves them through node_modules and "exports".
  const names = ["engine", "verify", "enforce", "enforce/redis", "lint", "diff"];
  const outputs = await bundleForBrowser(names.map((name) => `${denoJson.name}/${name}`), scratch);
  assert.equal(outputs.length, names.length);
  for (const text of outputs) assertPortable(text);
});
