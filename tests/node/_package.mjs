// Shared helpers of the Node tests: where the installed package is, how to
// import it as a user would, and the shared test data.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import process from "node:process";
import { fileURLToPath, pathToFileURL } from "node:url";

/** The repository root. */
export const root = fileURLToPath(new URL("../../", import.meta.url));

const scratchDir = process.env.POLICY_NPM_SCRATCH;
if (!scratchDir) {
  throw new Error(
    "POLICY_NPM_SCRATCH is not set: run the Node tests with `deno task test:node` " +
      "(tests/node/run.mjs installs the packed build into a scratch project first)",
  );
}

/** The scratch project the packed tarball is installed into. */
export const scratch = scratchDir;

/**
 * A project with the package installed alone, as a new user has it (`npm init -y`, a CommonJS
 * project, then `npm install` of the tarball): tests run programs there and add files of their
 * own names to it, never install anything.
 */
export const alone = process.env.POLICY_NPM_ALONE ?? "";
if (!alone) {
  throw new Error(
    "POLICY_NPM_ALONE is not set: run the Node tests with `deno task test:node` " +
      "(tests/node/run.mjs installs the package alone into a fresh project first)",
  );
}

/** The package's name, from deno.json. */
export const denoJson = readJson(join(root, "deno.json"));

/** Folder of the installed package. */
export const packageDir = join(scratch, "node_modules", ...denoJson.name.split("/"));

/** The installed package's package.json. */
export const manifest = readJson(join(packageDir, "package.json"));

const { load } = await import(pathToFileURL(join(scratch, "load.mjs")).href);

/**
 * Imports a module of the installed package from the scratch project:
 * `importPackage("./engine")` imports `@policy/runtime/engine` through
 * Node's resolution and the package's `exports`.
 */
export function importPackage(subpath = ".") {
  return load(subpath === "." ? denoJson.name : `${denoJson.name}/${subpath.slice(2)}`);
}

/** Imports `name` (a dependency the scratch project installed, such as `express`) as a user would. */
export function importDependency(name) {
  return load(name);
}

/** `require` from the scratch project (for typescript and esbuild). */
export const scratchRequire = createRequire(join(scratch, "package.json"));

/** Reads a JSON file. */
export function readJson(path) {
  return JSON.parse(readFileSync(path, "utf8"));
}

/** Reads a file of tests/testdata. */
export function testdata(path) {
  return readJson(join(root, "tests", "testdata", path));
}

// A Node project as tsc --init and @tsconfig/node20 write it: Node's globals
// from @types/node and no "DOM" in "lib". The declarations name no DOM-only
// type (CryptoKey, BufferSource): docs/install.md "TypeScript".
export const NODE_PROJECT = {
  module: "NodeNext",
  moduleResolution: "NodeNext",
  lib: ["ES2023"],
  types: ["node"],
};

/**
 * Type-checks `source` (or every file of `{fileName: source}`) with tsc from the
 * scratch project, in its folder `consumer-<name>`, under `compilerOptions`
 * (strict, with exactOptionalPropertyTypes and the declarations of libraries
 * checked, unless they say otherwise).
 */
export function typeCheck(name, source, compilerOptions) {
  const dir = join(scratch, `consumer-${name}`);
  mkdirSync(dir, { recursive: true });
  const files = typeof source === "string" ? { "consumer.ts": source } : source;
  for (const [file, text] of Object.entries(files)) writeFileSync(join(dir, file), text);
  writeFileSync(
    join(dir, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        exactOptionalPropertyTypes: true,
        noEmit: true,
        skipLibCheck: false,
        target: "ES2022",
        ...compilerOptions,
      },
      files: Object.keys(files),
    }),
  );
  const tsc = join(scratch, "node_modules", "typescript", "bin", "tsc");
  const result = spawnSync(process.execPath, [tsc, "-p", dir], { encoding: "utf8" });
  assert.equal(result.status, 0, `tsc (${name}):\n${result.stdout}${result.stderr}`);
}
