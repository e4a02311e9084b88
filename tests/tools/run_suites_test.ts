/**
 * tools/run_suites.ts, the runner of `deno task test`, on tasks of a scratch
 * deno.json: the tasks run at once, the first one's output comes as it is
 * printed and the second's after it, whole, under a heading; every task runs
 * to its end; the last line says how each ended; the exit code is 1 when any
 * failed.
 */
import { makeTempDir } from "../temp_dir.ts";
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { DENO, explainIgnored } from "../faults/_policy_process.ts";

import { formatDuration } from "../../tools/run_suites.ts";

explainIgnored("tests/tools/run_suites_test.ts");

const RUNNER = fileURLToPath(new URL("../../tools/run_suites.ts", import.meta.url));

/** `deno run tools/run_suites.ts <tasks>` in a folder whose deno.json has `tasks`. */
async function runSuites(
  tasks: Record<string, string>,
  names: string[],
): Promise<{ code: number; stdout: string }> {
  const { dir, remove } = await makeTempDir("run-suites-");
  try {
    await Deno.writeTextFile(`${dir}/deno.json`, JSON.stringify({ tasks }));
    const output = await new Deno.Command(DENO!, {
      args: ["run", "--no-prompt", "--allow-run=deno", RUNNER, ...names],
      cwd: dir,
      env: { NO_COLOR: "1" },
      stdout: "piped",
      stderr: "piped",
    }).output();
    return { code: output.code, stdout: new TextDecoder().decode(output.stdout) };
  } finally {
    await remove();
  }
}

/**
 * A task that prints `first`, waits until the file `marker` exists (another task makes it: the
 * wait is on file-system events, no polling), then prints `then`: its output is still coming
 * while the other task ends. A runner that ran the tasks one after the other would never make the
 * file: after 20 s the task fails with exit 9 instead of hanging the test.
 */
const waitFor = (marker: string, first: string, then: string) => {
  const script = [
    "const deadline = setTimeout(() => Deno.exit(9), 20_000);",
    "const watcher = Deno.watchFs('.');",
    `const made = () => { try { Deno.statSync('${marker}'); return true; } catch { return false; } };`,
    "if (!made()) for await (const _ of watcher) if (made()) break;",
    "watcher.close();",
    "clearTimeout(deadline);",
  ].join(" ");
  return `echo ${first} && deno eval "${script}" && echo ${then}`;
};

Deno.test({
  name:
    "run_suites: both tasks run at once, the second's output comes after the first's, whole; a failure is exit 1",
  ignore: DENO === null,
  fn: async () => {
    const { code, stdout } = await runSuites({
      // "first" ends only after "second" has printed and failed: the two ran at once.
      first: waitFor("second.done", "first-1", "first-2"),
      second: "echo second-1 && echo > second.done && echo second-2 && exit 3",
    }, ["first", "second"]);
    assert.equal(code, 1, stdout);
    const lines = stdout.split("\n").filter((line) => line !== "");
    const heading = lines.indexOf("── deno task second (run alongside) ──");
    assert.ok(heading > 0, stdout);
    // The first task's lines come first, and the second's after the heading, in their order.
    assert.deepEqual(lines.slice(0, heading), ["first-1", "first-2"]);
    const held = lines.slice(heading + 1, -1).filter((line) => !line.startsWith("Task second"));
    assert.deepEqual(held, ["second-1", "second-2"]);
    assert.match(
      lines.at(-1)!,
      /^FAILED: first passed in \d+s, second failed \(exit 3\) in \d+s$/,
    );
  },
});

Deno.test({
  name: "run_suites: every task passing is exit 0; a failing first task does not stop the second",
  ignore: DENO === null,
  fn: async () => {
    const passing = await runSuites({ a: "echo a", b: "echo b" }, ["a", "b"]);
    assert.equal(passing.code, 0, passing.stdout);
    assert.match(passing.stdout, /\nok: a passed in \d+s, b passed in \d+s\n$/);

    const failing = await runSuites({
      a: "exit 2",
      b: "echo b-1 && echo b-2",
    }, ["a", "b"]);
    assert.equal(failing.code, 1, failing.stdout);
    assert.match(failing.stdout, /b-1\nb-2\n/);
    assert.match(failing.stdout, /\nFAILED: a failed \(exit 2\) in \d+s, b passed in \d+s\n$/);
  },
});

Deno.test({
  name: "run_suites: no task, or a name that is not a task name, is a usage error (exit 2)",
  ignore: DENO === null,
  fn: async () => {
    assert.equal((await runSuites({}, [])).code, 2);
    assert.equal((await runSuites({}, ["a; rm -rf /"])).code, 2);
  },
});

Deno.test("run_suites: durations read as deno's test summary prints them", () => {
  assert.equal(formatDuration(0), "0s");
  assert.equal(formatDuration(42_400), "42s");
  assert.equal(formatDuration(65_000), "1m05s");
  assert.equal(formatDuration(119_600), "2m00s");
});
