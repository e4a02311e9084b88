#!/usr/bin/env -S deno run --no-prompt --allow-read --allow-write --allow-env=POLICY_*,HOME,USERPROFILE --ignore-env=TSC_*,NODE_ENV,NODE_INSPECTOR_IPC,VSCODE_INSPECTOR_OPTIONS
/**
 * The `policy` command. The only file that touches the process: it wires
 * arguments, output streams, environment, current folder and clock to
 * {@link runCli} and sets the exit code. Uses `node:process`, so the same
 * file runs under Deno and (from the npm build) Node. It is the `./cli`
 * export of the JSR package (`deno run <permissions>
 * jsr:@policy/runtime/cli …`, docs/install.md) and the `policy` bin of the
 * npm package.
 *
 * @module
 */
import process from "node:process";
import { runCli } from "./src/commands/mod.ts";

const code = await runCli(process.argv.slice(2), {
  stdout: (text) => void process.stdout.write(text),
  stderr: (text) => void process.stderr.write(text),
  env: (name) => process.env[name],
  cwd: process.cwd(),
  now: () => new Date(),
});
process.exitCode = code;
