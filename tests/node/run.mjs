// Runs the Node test suite against the npm build, as a user would get it:
// packs `npm/` with `npm pack`, installs the tarball alone into a fresh project (`npm init -y`,
// as a new user would: POLICY_NPM_ALONE), and into a scratch project in a temporary folder with
// the tools the tests use (typescript, @types/node and esbuild, the libraries of the enforcement
// adapters: hono, express with @types/express, redis and ioredis, @opentelemetry/api and its
// metrics and tracing SDKs, the OpenFeature SDKs, playwright-core and axe-core, at pinned
// versions), and runs every
// `tests/node/*.test.mjs` (or those whose names start with the arguments:
// `node tests/node/run.mjs playground`) with `node --test` and the reporter of `_reporter.mjs`
// (a line per file, failures in full), as many files at a time as the machine has cores (at
// least 2: the files wait on child processes, servers and a browser much of the time; Node's
// default, one fewer than the cores, runs them one by one on 2). Files share nothing but the
// installed projects, which they only read (and add files of their own names to): each makes its
// own temporary folders and listens on port 0. Both projects are removed when the run ends unless
// POLICY_KEEP_SCRATCH=1.
//
// With `--long` (the `test:long` task) it runs, with POLICY_TEST_LONG=1, only the files that
// import `_long.mjs`: their checks that the quick suite skips, and their quick ones again.
//
// Run it with `deno task test:node`, which builds `npm/` first. Needs Node 20+,
// npm and the npm registry (or npm's cache) for the dependencies.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";

const here = fileURLToPath(new URL(".", import.meta.url));
const root = join(here, "..", "..");
const npmDir = join(root, "npm");

function fail(message) {
  console.error(`tests/node/run.mjs: ${message}`);
  process.exit(1);
}

/** Runs a command, fails the run with its output when it fails, returns its stdout. */
function run(command, args, cwd) {
  const result = spawnSync(command, args, {
    cwd,
    encoding: "utf8",
    shell: process.platform === "win32",
  });
  if (result.status !== 0) {
    fail(
      `${command} ${args.join(" ")} failed (${result.status ?? result.error}):\n` +
        `${result.stdout ?? ""}${result.stderr ?? ""}`,
    );
  }
  return result.stdout;
}

/** The version of an npm package pinned in deno.json "imports". */
function pinned(denoJson, name) {
  const match = /^npm:(?:@[^/@]+\/)?[^/@]+@([^/]+)$/.exec(denoJson.imports?.[name] ?? "");
  if (!match) fail(`deno.json "imports" has no npm:${name}@<version>`);
  return match[1];
}

const long = process.argv.includes("--long");
const [major] = process.versions.node.split(".").map(Number);
if (major < 20) fail(`Node ${process.versions.node} is older than the supported 20`);
if (!existsSync(join(npmDir, "package.json"))) {
  fail("npm/ is not built: run `deno task test:node` (it builds first) or `deno task build:npm`");
}
const denoJson = JSON.parse(readFileSync(join(root, "deno.json"), "utf8"));
// The files to run, chosen before anything is installed: a name that matches none fails at once.
const only = process.argv.slice(2).filter((arg) => arg !== "--long");
const files = readdirSync(here).filter((f) => f.endsWith(".test.mjs"))
  .filter((f) => only.length === 0 || only.some((prefix) => f.startsWith(prefix)))
  .filter((f) => !long || readFileSync(join(here, f), "utf8").includes('from "./_long.mjs"'))
  .sort();
if (files.length === 0) fail(`no test file starts with ${only.join(" or ")}`);

const scratch = mkdtempSync(join(tmpdir(), "policy-npm-"));
// The package installed alone, as a new user has it: `npm init -y` (a CommonJS project) and
// `npm install` of the tarball, nothing else (commonjs.test.mjs, openfeature.test.mjs,
// package.test.mjs). A folder of its own: Node resolves packages up the folders, so inside the
// scratch project it would find the scratch project's.
const alone = mkdtempSync(join(tmpdir(), "policy-npm-alone-"));
// Removed however the run ends, a failed step's process.exit included.
process.on("exit", () => {
  for (const dir of [scratch, alone]) {
    if (process.env.POLICY_KEEP_SCRATCH === "1") console.error(`scratch project kept: ${dir}`);
    else rmSync(dir, { recursive: true, force: true });
  }
});
const tarball = run("npm", ["pack", "--silent", "--pack-destination", scratch], npmDir)
  .trim().split("\n").pop();
writeFileSync(
  join(scratch, "package.json"),
  JSON.stringify({ name: "policy-npm-scratch", private: true, type: "module" }, null, 2),
);
const quiet = ["--no-audit", "--no-fund", "--loglevel=error", "--prefer-offline"];
run("npm", ["init", "-y"], alone);
run("npm", ["install", ...quiet, join(scratch, tarball)], alone);
// `policy analyze` before typescript (an optional peer) is installed: it must say how to
// install it (TYPESCRIPT_UNAVAILABLE), not crash. cli.test.mjs checks the record.
const bin = join(alone, "node_modules", ".bin", "policy");
if (existsSync(bin)) {
  const source = mkdtempSync(join(tmpdir(), "policy-analyze-no-ts-"));
  writeFileSync(
    join(source, "app.ts"),
    'client.evaluate({ target: { service: "s", resource: "r", action: "a" } });\n',
  );
  const result = spawnSync(bin, ["-w", source, "analyze", "--format", "json"], {
    encoding: "utf8",
    env: { ...process.env, HOME: source, POLICY_HOME: source },
  });
  writeFileSync(
    join(scratch, "analyze-without-typescript.json"),
    JSON.stringify({ status: result.status, stdout: result.stdout, stderr: result.stderr }),
  );
  rmSync(source, { recursive: true, force: true });
}
// The scratch project: the package and everything the tests use beside it, in one install.
run("npm", [
  "install",
  ...quiet,
  "--save-dev",
  join(scratch, tarball),
  `typescript@${pinned(denoJson, "typescript")}`,
  `@types/node@${pinned(denoJson, "@types/node")}`,
  // The bundler of the npm build, for the browser bundle of the portable core
  // (portable.test.mjs, browser.test.mjs).
  `esbuild@${pinned(denoJson, "esbuild")}`,
  // Express's types, for the TypeScript consumers of ./enforce/express (package.test.mjs,
  // docs_examples.test.mjs), as deno.json pins them for the Deno sources.
  `@types/express@${pinned(denoJson, "@types/express")}`,
  // The libraries the enforcement adapters take (optional peers), and the OpenTelemetry API, the
  // peer of ./otel (otel.test.mjs, docs_examples.test.mjs), as deno.json pins them.
  ...["hono", "express", "redis", "ioredis", "@opentelemetry/api"].map((name) =>
    `${name}@${pinned(denoJson, name)}`
  ),
  // The OpenTelemetry SDKs that ./otel reports through (otel.test.mjs), and the Prometheus
  // exporter of docs/observability.md (docs_examples.test.mjs), as deno.json pins them.
  ...[
    "@opentelemetry/sdk-metrics",
    "@opentelemetry/sdk-trace",
    "@opentelemetry/exporter-prometheus",
  ]
    .map((name) => `${name}@${pinned(denoJson, name)}`),
  // The OpenFeature SDKs the providers plug into (peers of ./openfeature and
  // ./openfeature/web), and the browser driver of the web provider's page.
  ...["@openfeature/core", "@openfeature/server-sdk", "@openfeature/web-sdk", "playwright-core"]
    .map((name) => `${name}@${pinned(denoJson, name)}`),
  // The accessibility checker of the playground's tests (playground*.test.mjs), run in the
  // same browser.
  `axe-core@${pinned(denoJson, "axe-core")}`,
], scratch);
// Imports made from a module in the scratch project resolve as a user's would:
// through node_modules and the package's "exports".
writeFileSync(join(scratch, "load.mjs"), "export const load = (name) => import(name);\n");

const result = spawnSync(process.execPath, [
  "--test",
  `--test-concurrency=${Math.max(2, availableParallelism())}`,
  // One line per file, skip reasons once, failures in full (see _reporter.mjs).
  `--test-reporter=${join(here, "_reporter.mjs")}`,
  "--test-reporter-destination=stdout",
  ...files.map((f) => join(here, f)),
], {
  stdio: "inherit",
  env: {
    ...process.env,
    POLICY_NPM_SCRATCH: scratch,
    POLICY_NPM_ALONE: alone,
    POLICY_TEST_LONG: long ? "1" : "",
  },
});
process.exit(result.status ?? 1);
