/**
 * The README's CLI tour ("The `policy` CLI: from an empty folder to a
 * signed, simulated bundle") runs as written: its `sh` block is run by bash
 * from the repository's root, with the README's own `alias deno=…` line
 * (so the CLI runs through `npx` as the README sets it up), and every
 * command must succeed. Then `policy fmt --check` must find the files the
 * tour wrote by the names it gave them, formatted by the tour's `policy
 * fmt` (the rule file) or not (the suite, written after it).
 *
 * Needs `--allow-run=bash`; a minute and more through `npx`: `deno task
 * test:long` runs it.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { LONG, noteLong } from "../_long.ts";
import { makeTempDir } from "../temp_dir.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const HEADING = "## The `policy` CLI: from an empty folder to a signed, simulated bundle";

const runnable = Deno.permissions.querySync({ name: "run", command: "bash" }).state === "granted";
noteLong("tests/docs/readme_cli_test.ts", "the README's CLI tour, run as written,");

/** The README's `alias deno=…` line and the first `sh` block under {@link HEADING}. */
async function tour(): Promise<{ alias: string; block: string }> {
  const readme = await Deno.readTextFile(`${ROOT}README.md`);
  const alias = readme.split("\n").find((l) => l.startsWith("alias deno="));
  assert.ok(alias, "README.md sets up `alias deno=…`");
  const section = readme.slice(readme.indexOf(HEADING));
  assert.ok(readme.includes(HEADING), HEADING);
  const block = /^```sh\n([\s\S]*?)^```$/m.exec(section)?.[1];
  assert.ok(block, "the section has an sh block");
  return { alias, block };
}

Deno.test({
  name: "the README's CLI tour runs as written, and fmt finds the files it writes",
  ignore: !runnable || !LONG,
  fn: async () => {
    const { alias, block } = await tour();
    const { dir, remove } = await makeTempDir("readme-");
    try {
      // The tour makes its folder with mktemp: here, one of the test's scratch folders.
      const script = [
        "set -e",
        "shopt -s expand_aliases",
        alias,
        `mktemp() { mkdir -p '${dir}/shop' && printf '%s\\n' '${dir}/shop'; }`,
        block,
        'policy fmt --check --format json > "$SHOP/fmt.json" || true',
      ].join("\n");
      const output = await new Deno.Command("bash", {
        args: ["-c", script],
        cwd: ROOT,
        env: {
          POLICY_HOME: `${dir}/home`,
          npm_config_prefer_offline: "true",
          npm_config_update_notifier: "false",
          NO_COLOR: "1",
        },
        stdout: "piped",
        stderr: "piped",
      }).output();
      const text = new TextDecoder().decode(output.stdout) +
        new TextDecoder().decode(output.stderr);
      assert.equal(output.code, 0, text);
      const fmt = JSON.parse(await Deno.readTextFile(`${dir}/shop/fmt.json`)) as {
        files: { path: string; status: string }[];
      };
      const status = Object.fromEntries(
        fmt.files.map((f) => [f.path.slice(`${dir}/shop/`.length), f.status]),
      );
      assert.equal(status["paid-plans.rule.json"], "unchanged", JSON.stringify(status));
      assert.equal(status["policy-drafts.json"], "unchanged", JSON.stringify(status));
      assert.equal(status["suite.json"], "unformatted", JSON.stringify(status));
    } finally {
      await remove();
    }
  },
});
