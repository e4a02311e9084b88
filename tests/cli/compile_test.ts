/**
 * The `compile` task: a self-contained `policy` binary. `deno compile`
 * downloads a runtime binary (denort) from a host our machines cannot reach,
 * so where that download fails this test prints why and checks nothing else.
 * Where it works, the binary must run `--help`. The task builds the playground
 * page first (the binary carries it): the test runs the compile step alone,
 * after the test task built the page. A compile takes a while: `deno task
 * test:long` runs it.
 */
import { makeTempDir } from "../temp_dir.ts";
import assert from "node:assert/strict";

import { denoCommand } from "../_deno_command.ts";
import { LONG, noteLong } from "../_long.ts";

const DENO = denoCommand();
const denoJson = JSON.parse(await Deno.readTextFile(new URL("../../deno.json", import.meta.url)));
const TASK: string = String(denoJson.tasks.compile).split("&&").at(-1)!.trim();

noteLong("tests/cli/compile_test.ts", "the compile task");

Deno.test({
  name: "the compile task builds a policy binary that runs, or says why it cannot here",
  ignore: DENO === null || !LONG,
  async fn() {
    const { dir: out, remove } = await makeTempDir("compile-");
    try {
      // The task's own flags, with the output moved into the scratch folder.
      const args = TASK.replace(/^deno /, "").split(" ").map((a) =>
        a === "dist/policy" ? `${out}/policy` : a
      );
      const build = await new Deno.Command(DENO!, { args, stdout: "piped", stderr: "piped" })
        .output();
      const stderr = new TextDecoder().decode(build.stderr);
      if (!build.success) {
        assert.match(stderr, /denort|dl\.deno\.land|Download/, stderr);
        console.log(
          "compile_test: skipped, deno compile cannot download its runtime (denort) here",
        );
        return;
      }
      const help = await new Deno.Command(`${out}/policy`, { args: ["--help"], stdout: "piped" })
        .output();
      assert.equal(help.code, 0);
      assert.match(new TextDecoder().decode(help.stdout), /policy/);
    } finally {
      await remove();
    }
  },
});
