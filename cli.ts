#!/usr/bin/env -S deno run --no-prompt --allow-read --allow-write --allow-env=POLICY_*,HOME,USERPROFILE --allow-net=127.0.0.1 --allow-run=xdg-open,open --ignore-env=TSC_*,NODE_ENV,NODE_INSPECTOR_IPC,VSCODE_INSPECTOR_OPTIONS
/**
 * The `policy` command. The only file that touches the process: it wires
 * arguments, output streams, environment, current folder and clock to
 * {@link runCli} and sets the exit code. Uses the `process` global, so the
 * same file runs under Deno and (from the npm build) Node; the global, not
 * `node:process`, because Node's ES module wrapper of a built-in reads
 * every property of it, which opens stdin too (about 4 ms of start-up,
 * docs/performance.md). It is the `./cli`
 * export of the JSR package (`deno run <permissions>
 * jsr:@policy/runtime/cli …`, docs/install.md) and the `policy` bin of the
 * npm package.
 *
 * @module
 */
import { runCli } from "./src/commands/run_cli.ts";
import { SYSTEM_CLOCK } from "./src/_internal/clock.ts";

/**
 * A writer to `stream` that goes quiet once the reader is gone (`policy …
 * | head -1`): the broken pipe (`EPIPE`, thrown by Deno at the write and
 * emitted later by Node) ends the output, not the command, which finishes
 * its work and exits with its own code, without a stack trace.
 */
function quietOnClose(stream: NodeJS.WriteStream): (text: string) => void {
  let closed = false;
  const gone = (error: unknown) => {
    const code = (error as { code?: unknown } | null)?.code;
    if (code === "EPIPE" || code === "ERR_STREAM_DESTROYED" || closed) {
      closed = true;
      return true;
    }
    return false;
  };
  stream.on("error", (error) => {
    if (!gone(error)) throw error;
  });
  return (text) => {
    if (closed) return;
    try {
      stream.write(text);
    } catch (error) {
      if (!gone(error)) throw error;
    }
  };
}

const code = await runCli(process.argv.slice(2), {
  stdout: quietOnClose(process.stdout),
  stderr: quietOnClose(process.stderr),
  env: (name) => process.env[name],
  cwd: process.cwd(),
  clock: SYSTEM_CLOCK,
  stdoutIsTerminal: process.stdout.isTTY === true,
  // The playground page of this distribution, beside this file in the repository and in the JSR
  // and npm packages (docs/playground.md, "Where the page comes from").
  playgroundPage: () => import("./dist/playground/page.js"),
});
process.exitCode = code;
