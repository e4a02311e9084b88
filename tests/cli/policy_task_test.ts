/**
 * The README's `deno task policy` runs `cli.ts` bundled (tools/policy.ts,
 * tools/cli_bundle.ts): a run makes the bundle when it is missing or stale
 * and records the sources' stamp with it; a run on unchanged sources uses
 * it as it is; the command behaves as `cli.ts` does; the files the entry
 * loads before a command runs import no `node:` module, and a command's own
 * files are imported through computed URLs, so that Deno loads them only
 * when the command runs; the playground page stays out of the bundle
 * (tests/cli/commands/playground/playground_test.ts serves it through the
 * task). Needs `--allow-run=deno`.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { makeTempDir } from "../temp_dir.ts";
import { type ChildResult, cliEnv, DENO, runDeno } from "../faults/_policy_process.ts";
import {
  CLI_BUNDLE,
  CLI_BUNDLE_STAMP,
  sourceStamp,
  withPageFromBundle,
} from "../../tools/cli_bundle.ts";

if (DENO === null) console.log("policy_task_test: skipped, needs --allow-run=deno");

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** `deno task --quiet policy <args>` in `cwd`, none of the caller's POLICY_* variables. */
function task(args: string[], cwd = ROOT): Promise<ChildResult> {
  return runDeno(["task", "--quiet", "policy", ...args], {
    cwd,
    env: cliEnv(`${cwd}/.policy-home`),
    seconds: 120,
  });
}

/** A bundle file and the files it imports statically, and theirs. */
function staticallyLoaded(file: URL, into = new Map<string, URL>()): URL[] {
  if (into.has(file.href)) return [...into.values()];
  into.set(file.href, file);
  const text = Deno.readTextFileSync(file);
  for (const [, specifier] of text.matchAll(/^(?:import|export)\b[^;]*?from\s*"(\.\/[^"]+)"/gm)) {
    staticallyLoaded(new URL(specifier!, file), into);
  }
  for (const [, specifier] of text.matchAll(/^import\s*"(\.\/[^"]+)"/gm)) {
    staticallyLoaded(new URL(specifier!, file), into);
  }
  return [...into.values()];
}

/** Copies a file, or a folder and everything below it. */
async function copyTree(from: string, to: string): Promise<void> {
  if (!(await Deno.stat(from)).isDirectory) return await Deno.copyFile(from, to);
  await Deno.mkdir(to);
  for await (const entry of Deno.readDir(from)) {
    await copyTree(`${from}/${entry.name}`, `${to}/${entry.name}`);
  }
}

const SIMULATE = [
  "simulate",
  "-w",
  `${ROOT}examples`,
  "--bundle",
  "bundle.json",
  "--service",
  "billing",
  "--resource",
  "invoice",
  "--action",
  "create",
  "--context",
  '{"plan":"pro"}',
  "--format",
  "json",
];

Deno.test({
  name: "deno task policy runs the CLI from its bundle, made when stale and reused when fresh",
  ignore: DENO === null,
  fn: async () => {
    const first = await task(SIMULATE);
    assert.equal(first.code, 0, first.stderr);
    const { decision } = JSON.parse(first.stdout);
    assert.equal(decision.decision, "allow");
    assert.equal(decision.ruleId, "paid-plans");
    // The bundle is there, made from these very sources.
    assert.equal(Deno.readTextFileSync(CLI_BUNDLE_STAMP), sourceStamp());
    const made = Deno.statSync(CLI_BUNDLE).mtime!.getTime();
    // What loads before any command runs (the entry and what it imports statically) imports no
    // `node:` module: under Deno it would load Node's compatibility layer at every start
    // (docs/performance.md, "Start-up").
    const eager = staticallyLoaded(CLI_BUNDLE);
    // The walk follows the entry's static imports (the shared chunks); no command's own file is
    // among them: each loads when its command runs.
    assert.ok(eager.length > 1, "the entry's static imports are followed");
    const names = eager.map((file) => file.pathname.slice(file.pathname.lastIndexOf("/") + 1));
    assert.deepEqual(names.filter((n) => n !== "cli.js" && !n.startsWith("chunk-")), []);
    for (const file of eager) {
      const nodeImports = Deno.readTextFileSync(file).match(/^import\b[^;]*?["']node:[^"']+["']/gm);
      assert.deepEqual(nodeImports, null, `${file.pathname} imports no node: module statically`);
    }
    // No file of the bundle names another in a literal dynamic import: Deno would load it, and
    // what it imports, with the file that names it, whatever the command.
    for (const entry of Deno.readDirSync(new URL(".", CLI_BUNDLE))) {
      if (!entry.name.endsWith(".js")) continue;
      const text = Deno.readTextFileSync(new URL(entry.name, CLI_BUNDLE));
      assert.deepEqual(text.match(/\bimport\("\.\.?\/[^"]*"\)/g), null, entry.name);
    }

    const second = await task(["--version"]);
    assert.equal(second.code, 0, second.stderr);
    assert.match(second.stdout, /^policy \d+\.\d+\.\d+ \(@policy\/runtime\)\n$/);
    assert.equal(Deno.statSync(CLI_BUNDLE).mtime!.getTime(), made, "a fresh bundle is reused");

    // A usage error comes out of the bundle as out of cli.ts: exit 2, a code, no stack.
    const wrong = await task(["simulate", "--no-such-flag", "--format", "json"]);
    assert.equal(wrong.code, 2, wrong.stderr);
    assert.equal(JSON.parse(wrong.stdout).error.code, "USAGE_ERROR");
  },
});

Deno.test({
  name: "deno task policy makes the bundle again when a source changes, and runs the change",
  ignore: DENO === null,
  fn: async () => {
    // A copy of what the bundle is made of, so that a source can change.
    const { dir: copy } = await makeTempDir("policy-task-");
    try {
      for (const name of ["src", "tools", "cli.ts", "deno.json", "deno.lock"]) {
        await copyTree(`${ROOT}${name}`, `${copy}/${name}`);
      }
      const first = await task(["--version"], copy);
      assert.equal(first.code, 0, first.stderr);
      assert.match(first.stdout, /^policy \d+\.\d+\.\d+ /);
      const bundle = `${copy}/dist/policy-cli/cli.js`;
      const made = Deno.statSync(bundle).mtime!.getTime();

      const version = `${copy}/src/_internal/version.ts`;
      const text = Deno.readTextFileSync(version);
      Deno.writeTextFileSync(
        version,
        text.replace(/PACKAGE_VERSION = "[^"]*"/, 'PACKAGE_VERSION = "9.9.9"'),
      );
      const second = await task(["--version"], copy);
      assert.equal(second.code, 0, second.stderr);
      assert.match(second.stdout, /^policy 9\.9\.9 /, "the changed source runs");
      assert.notEqual(Deno.statSync(bundle).mtime!.getTime(), made, "the bundle was made again");

      // A removed bundle is made again too.
      Deno.removeSync(bundle);
      const third = await task(["--version"], copy);
      assert.match(third.stdout, /^policy 9\.9\.9 /);
      assert.ok(Deno.statSync(bundle).isFile);

      // A checkout whose playground page is not built (a fresh clone) bundles all the same: the
      // page stays out of the bundle, which imports it from where the build writes it, and
      // `policy playground` says what to run.
      const bundled = Deno.readTextFileSync(bundle);
      assert.ok(!bundled.includes('import("./dist/playground/page.js")'), "no import beside it");
      assert.equal(
        bundled.split(withPageFromBundle('import("./dist/playground/page.js")')!).length,
        2,
      );
      const unbuilt = await task(["playground", "--port", "0", "--format", "json"], copy);
      assert.equal(unbuilt.code, 2, unbuilt.stderr);
      assert.equal(JSON.parse(unbuilt.stdout).error.code, "PLAYGROUND_UNAVAILABLE");
      assert.match(unbuilt.stderr, /run 'deno task playground:build' first/);
    } finally {
      await Deno.remove(copy, { recursive: true });
    }
  },
});
