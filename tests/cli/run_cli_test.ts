import assert from "node:assert/strict";
import {
  CLI_ERROR_CODES,
  COMMANDS,
  ERROR_CODES,
  EXIT_CODES,
  exitCodeFor,
  exitCodeWhenNotRun,
} from "./_exports.ts";
import { assertError, assertShape, scratch } from "./_helpers.ts";
import { PACKAGE_VERSION } from "../../src/_internal/version.ts";

Deno.test("runCli() suggests the closest command for an unknown one and exits 2", async () => {
  await using s = await scratch();
  const result = await s.run(["valdiate"]);
  assertError(result, 2, "USAGE_ERROR");
  assert.match(result.stderr, /unknown command "valdiate"; did you mean validate\?/);
  assert.match(result.stderr, /hint: run 'policy --help'/);
});

Deno.test("runCli() refuses an unknown flag with a suggestion and exits 2", async () => {
  await using s = await scratch();
  const result = await s.run(["policies", "add-rule", "--polcy-key", "x"]);
  assertError(result, 2, "USAGE_ERROR");
  assert.match(result.stderr, /unknown flag "--polcy-key" .* did you mean --policy-key\?/);
});

Deno.test("runCli() refuses an unknown subcommand with a suggestion", async () => {
  await using s = await scratch();
  const result = await s.run(["policies", "add-rules"]);
  assertError(result, 2, "USAGE_ERROR");
  assert.match(result.stderr, /did you mean add-rule\?/);
});

Deno.test("runCli() prints an error as {error: {code, message}} on stdout with --format json", async () => {
  await using s = await scratch();
  const result = await s.run(["bulid", "--format", "json"]);
  assert.equal(result.code, 2);
  const doc = JSON.parse(result.stdout);
  assertShape(doc, { error: "object" });
  assertShape(doc.error, { code: "string", message: "string" }, "error");
  assert.equal(doc.error.code, "USAGE_ERROR");
  assert.match(result.stderr, /^error: /);
});

Deno.test("runCli() rejects a --format other than text or json", async () => {
  await using s = await scratch();
  assertError(await s.run(["validate", "--format", "jsno"]), 2, "USAGE_ERROR");
});

Deno.test("runCli() refuses flags given twice, values on booleans and missing values", async () => {
  await using s = await scratch();
  assertError(await s.run(["build", "--env", "dev", "--env", "test"]), 2, "USAGE_ERROR");
  assertError(await s.run(["build", "--signed=yes"]), 2, "USAGE_ERROR");
  assertError(await s.run(["policies", "add-rule", "--policy-key"]), 2, "USAGE_ERROR");
  assertError(await s.run(["validate", "a.json", "b.json"]), 2, "USAGE_ERROR");
});

Deno.test("every command and subcommand prints help with --help and exits 0", async () => {
  await using s = await scratch();
  const invocations = [
    ...Object.keys(COMMANDS).map((c) => [c]),
    ["policies", "update-policy"],
    ["policies", "add-rule"],
    ["keys", "generate"],
    [],
  ];
  for (const args of invocations) {
    const result = await s.run([...args, "--help"]);
    assert.equal(result.code, 0, `policy ${args.join(" ")} --help`);
    assert.match(result.stdout, /Usage: policy/);
  }
  const help = await s.run(["--help"]);
  for (const name of Object.keys(COMMANDS)) assert.match(help.stdout, new RegExp(`  ${name} `));
});

Deno.test("runCli() with no command prints the command list and exits 2", async () => {
  await using s = await scratch();
  const result = await s.run([]);
  assert.equal(result.code, 2);
  assert.match(result.stdout, /Commands:/);
});

Deno.test("an error that stops simulate never exits 1, which means a scenario failed", () => {
  for (const code of [...ERROR_CODES, ...CLI_ERROR_CODES]) {
    const exit = exitCodeWhenNotRun(code);
    assert.notEqual(exit, 1, code);
    assert.equal(exit, exitCodeFor(code) === 1 ? 2 : exitCodeFor(code), code);
  }
});

Deno.test("the exit-code table covers every library and CLI error code with 1, 2, 3 or 4", () => {
  for (const code of [...ERROR_CODES, ...CLI_ERROR_CODES]) {
    assert.ok(Object.hasOwn(EXIT_CODES, code), `${code} has an exit code`);
    assert.ok([1, 2, 3, 4].includes(exitCodeFor(code)));
  }
  assert.equal(exitCodeFor("COVERAGE_BELOW_THRESHOLD"), 4);
  assert.equal(exitCodeFor("USAGE_ERROR"), 2);
  assert.equal(exitCodeFor("CONFIG_NOT_FOUND"), 2);
  assert.equal(exitCodeFor("BUNDLE_READ_ERROR"), 2);
  assert.equal(exitCodeFor("SIMULATION_FAILED"), 1);
  assert.equal(exitCodeFor("BUNDLE_SIGNATURE_INVALID"), 1);
  assert.equal(exitCodeFor("LICENSE_REQUIRED"), 3);
  assert.equal(exitCodeFor("DRAFT_EXISTS"), 2);
  assert.equal(exitCodeFor("ANALYZE_FAILED"), 1);
  for (const code of ["LICENSE_INVALID", "LICENSE_EXPIRED", "ACTIVATION_REFUSED"]) {
    assert.equal(exitCodeFor(code), 3, code);
  }
  assert.equal(exitCodeFor("ACTIVATION_UNAVAILABLE"), 2);
});

Deno.test("global flags work before the command name too", async () => {
  await using s = await scratch();
  const result = await s.run(["-w", s.wf, "--format", "json", "working-folder"]);
  assert.equal(result.code, 0);
  assert.equal(JSON.parse(result.stdout).source, "flag");
});

Deno.test("--version prints the package version, alone or with a command", async () => {
  await using s = await scratch();
  for (const args of [["--version"], ["build", "--version"], ["policies", "--version"]]) {
    const r = await s.run(args);
    assert.equal(r.code, 0, args.join(" "));
    assert.equal(r.stdout, `policy ${PACKAGE_VERSION} (@policy/runtime)\n`);
  }
});

Deno.test("--quiet and --verbose together are a usage error", async () => {
  await using s = await scratch();
  const r = await s.run(["working-folder", "--quiet", "--verbose"]);
  assertError(r, 2, "USAGE_ERROR");
  assert.match(r.stderr, /--quiet and --verbose cannot be combined/);
});
