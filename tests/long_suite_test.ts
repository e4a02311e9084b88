/**
 * The long suite runs what the quick one leaves out (`tests/_long.ts`): every
 * test file that reads `LONG` is among the paths of the `test:long:deno` task
 * (or under one of its folders), every path there exists, the task grants
 * reading `POLICY_TEST_LONG` and has the quick task's permissions, type-checks
 * what the quick task runs unchecked, runs the doc examples of `mod.ts` and
 * `src/` (the quick task leaves them out), and `.ci/run` runs the long suite
 * after the README's test command.
 */
import assert from "node:assert/strict";
import { relative } from "node:path";
import { fileURLToPath } from "node:url";
import { testModules } from "../tools/test_groups.ts";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const denoJson = JSON.parse(await Deno.readTextFile(`${ROOT}deno.json`));
const tasks = denoJson.tasks as Record<string, string>;

/** The words of a task's last `deno test` command (the one that runs tests), up to its pipe. */
function testCommand(task: string): string[] {
  const words = task.split(" | ")[0]!.split(/\s+/).filter((w) => w !== "2>&1");
  return words.slice(words.lastIndexOf("test") + 1);
}

/** Whether a test file imports `LONG` (from tests/_long.ts, or re-exported by a helper). */
const readsLong = (text: string) => /import\s*\{[^}]*\bLONG\b[^}]*\}\s*from/.test(text);

Deno.test("test:long:deno runs every test file that reads LONG, with the quick task's permissions", async () => {
  const long = testCommand(tasks["test:long:deno"]!);
  const quick = testCommand(tasks["test:deno"]!);
  assert.match(tasks["test:long:deno"]!, /(^|&& )POLICY_TEST_LONG=1 deno test /);
  const paths = long.filter((word) => !word.startsWith("-"));
  for (const path of paths) {
    const stat = await Deno.stat(`${ROOT}${path}`).catch(() => null);
    assert.ok(stat !== null, `test:long:deno names ${path}, which does not exist`);
  }
  const reading = [];
  for (const file of await testModules(ROOT)) {
    if (readsLong(await Deno.readTextFile(`${ROOT}${file}`))) reading.push(file);
  }
  assert.ok(reading.length >= 10, `files that read LONG: ${reading.join(", ")}`);
  for (const file of reading) {
    assert.ok(
      paths.some((path) => path.endsWith("/") ? file.startsWith(path) : file === path),
      `${file} reads LONG but the test:long:deno task does not run it`,
    );
  }
  // The same flags but the environment variable the long suite reads, the quick one's
  // --no-check (the long task type-checks everything the quick one runs before its own run,
  // which checks its own files) and the long one's --doc: the doc examples run in the long
  // suite, each a module of its own (about 12 s of CPU, which the quick suite leaves out).
  const flags = (words: string[]) =>
    words.filter((w) =>
      w.startsWith("-") && !w.startsWith("--allow-env=") && w !== "--doc" && w !== "--no-check"
    );
  assert.deepEqual(flags(long), flags(quick));
  assert.ok(!quick.includes("--doc"), "the quick suite leaves the doc examples to the long one");
  assert.ok(long.includes("--doc"), "the long suite runs the doc examples");
  for (const path of ["mod.ts", "src/"]) {
    assert.ok(paths.includes(path), `the long suite runs the doc examples of ${path}`);
  }
  if (quick.includes("--no-check")) {
    // What the quick suite runs unchecked, the long suite and `deno task check` type-check.
    assert.match(tasks["test:long:deno"]!, /(^|&& )deno test --doc --no-run &&/);
    assert.match(tasks["check"]!, /(^|&& )deno test --doc --no-run && deno task test( |$)/);
  }
  assert.ok(long.includes("--allow-env=POLICY_TEST_LONG,POLICY_TEST_SEED"));
  assert.ok(!quick.some((w) => w.includes("POLICY_TEST_LONG")), "the quick suite is never long");
});

Deno.test("test:long runs the Deno and the Node long suites, and .ci/run runs it after the test task", async () => {
  assert.equal(tasks["test:long"], "deno task test:long:deno && deno task test:long:node");
  assert.match(tasks["test:long:node"]!, /node tests\/node\/run\.mjs --long$/);
  const ci = (await Deno.readTextFile(`${ROOT}.ci/run`)).split("\n").filter((line) =>
    /^npx -y deno@[0-9.]+ task /.test(line)
  );
  assert.deepEqual(ci.map((line) => line.replace(/^npx -y deno@[0-9.]+ /, "")), [
    "task test",
    "task test:long",
  ]);
  // Every Node test file that skips checks in the quick run imports the module run.mjs looks for.
  for await (const entry of Deno.readDir(`${ROOT}tests/node`)) {
    if (!entry.name.endsWith(".test.mjs")) continue;
    const text = await Deno.readTextFile(`${ROOT}tests/node/${entry.name}`);
    if (/\blongOnly\b|\bLONG\b/.test(text)) {
      assert.ok(
        text.includes('from "./_long.mjs"'),
        `${relative(ROOT, `${ROOT}tests/node/${entry.name}`)}: import _long.mjs`,
      );
    }
  }
});
