// A new Node user's first lines: `npm init -y` (which writes "type": "commonjs"),
// `npm install` of the packed tarball in a fresh folder (the project run.mjs makes so,
// POLICY_NPM_ALONE), then a CommonJS program that require()s the package and an ES module
// program that imports it. Where require() cannot load ES modules (here:
// --no-experimental-require-module), the package says what to do instead of Node's message
// about the caller's file.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { alone, denoJson, root } from "./_package.mjs";

const name = denoJson.name;
const bundlePath = join(root, "tests", "testdata", "verify", "bundle.json");
const request = {
  target: { service: "checkout", resource: "refund", action: "create" },
  context: { plan: "pro", amount: 120 },
};
/** Runs `file` (written with `source`) with node `flags` in the fresh folder. */
function run(file, source, flags = []) {
  writeFileSync(join(alone, file), source);
  return spawnSync(process.execPath, [...flags, file, bundlePath, JSON.stringify(request)], {
    cwd: alone,
    encoding: "utf8",
  });
}

test("npm init -y writes a CommonJS package, as a new user has", () => {
  const manifest = JSON.parse(readFileSync(join(alone, "package.json"), "utf8"));
  assert.notEqual(manifest.type, "module");
});

test("a CommonJS program require()s the package and every export, with no warning", () => {
  const result = run(
    "app.js",
    `
    const runtime = require("${name}");
    const { compileBundle, evaluate } = require("${name}/engine");
    const { loadBundle } = require("${name}/verify");
    const { createLocalClient } = require("${name}/clients");
    const { readFileSync } = require("node:fs");
    const bundle = JSON.parse(readFileSync(process.argv[2], "utf8"));
    const request = JSON.parse(process.argv[3]);
    console.log(JSON.stringify({
      decision: evaluate(compileBundle(bundle), request),
      sameInstances: [evaluate, loadBundle, createLocalClient].every((f) => typeof f === "function") &&
        runtime.evaluate === evaluate && runtime.loadBundle === loadBundle &&
        runtime.createLocalClient === createLocalClient,
      errorClass: typeof runtime.PolicyError,
    }));
    `,
  );
  assert.equal(result.status, 0, result.stderr);
  assert.equal(result.stderr, "", "no ExperimentalWarning or other output on stderr");
  const output = JSON.parse(result.stdout);
  assert.equal(output.decision.decision, "throttle");
  assert.deepEqual(output.decision.throttle, { limit: 10, windowSeconds: 60, key: "tenant" });
  assert.equal(output.sameInstances, true);
  assert.equal(output.errorClass, "function");
});

test("an ES module program in the same CommonJS folder imports it (.mjs)", () => {
  const result = run(
    "app.mjs",
    `
    import { compileBundle, evaluate, loadBundle } from "${name}";
    import { readFile } from "node:fs/promises";
    const bytes = await readFile(process.argv[2]);
    const request = JSON.parse(process.argv[3]);
    const loaded = await loadBundle(bytes, { allowUnsigned: true });
    const bundle = JSON.parse(new TextDecoder().decode(bytes));
    console.log(JSON.stringify({
      signature: loaded.status.signature.status,
      decision: evaluate(compileBundle(bundle), request),
    }));
    `,
  );
  assert.equal(result.status, 0, result.stderr);
  const output = JSON.parse(result.stdout);
  assert.equal(output.signature, "unsigned");
  assert.equal(output.decision.ruleId, "refund-rate");
});

test("a CommonJS program imports it with import() too", () => {
  const result = run(
    "dynamic.cjs",
    `
    import("${name}/engine").then(({ compileBundle, evaluate }) => {
      const bundle = JSON.parse(require("node:fs").readFileSync(process.argv[2], "utf8"));
      console.log(evaluate(compileBundle(bundle), JSON.parse(process.argv[3])).decision);
    });
    `,
  );
  assert.equal(result.status, 0, result.stderr);
  assert.equal(result.stdout.trim(), "throttle");
});

test("where require() cannot load ES modules, the package says to use import() or a newer Node", () => {
  const result = run("old.js", `require("${name}/verify");`, [
    "--no-experimental-require-module",
  ]);
  assert.equal(result.status, 1);
  assert.match(
    result.stderr,
    new RegExp(
      `${name}/verify is ES modules, and this Node \\(${process.versions.node}\\) does not load ES modules with require\\(\\)`,
    ),
  );
  assert.match(result.stderr, new RegExp(`await import\\("${name}/verify"\\)`));
  assert.match(result.stderr, /Node 20\.19\+ or 22\.12\+/);
  assert.match(result.stderr, /code: 'ERR_REQUIRE_ESM'/);
});
