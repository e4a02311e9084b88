#!/usr/bin/env -S deno run --no-prompt --allow-read --allow-write --allow-env=POLICY_*,HOME,USERPROFILE --allow-net=127.0.0.1 --allow-run=xdg-open,open --ignore-env=TSC_*,NODE_ENV,NODE_INSPECTOR_IPC,VSCODE_INSPECTOR_OPTIONS
/**
 * The `policy` command. The only file that touches the process: it wires
 * arguments, output streams, environment, current folder, clock and file
 * layer to {@link runCli} and sets the exit code. Under Deno it uses the
 * `Deno` namespace and the Deno file layer (`src/io/deno_file_layer.ts`):
 * touching the `process` global or a `node:` module would load Deno's Node
 * compatibility layer, 20–40 ms of start-up (docs/performance.md,
 * "Start-up"). Under Node (the npm build) it uses the `process` global, not
 * `node:process`, because Node's ES module wrapper of a built-in reads
 * every property of it, which opens stdin too (about 4 ms), and the
 * `node:fs` file layer. It is the `./cli` export of the JSR package (`deno
 * run <permissions> jsr:@policy/runtime/cli …`, docs/install.md), what
 * `deno task policy` runs (bundled, `tools/policy.ts`), and the `policy`
 * bin of the npm package.
 *
 * @module
 */
import { runCli } from "./src/cli/run_cli.ts";
import type { CliIo } from "./src/cli/cli_io.ts";
import { SYSTEM_CLOCK } from "./src/public/clock.ts";
import { denoFileLayer } from "./src/io/deno_file_layer.ts";

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

/** An output stream of the `Deno` namespace, the part used here. */
interface DenoStream {
  writeSync(bytes: Uint8Array): number;
  isTerminal(): boolean;
}

/** The part of the `Deno` namespace used here (typed here: the npm build has no Deno types). */
interface DenoProcess {
  args: string[];
  env: { get(name: string): string | undefined };
  cwd(): string;
  stdout: DenoStream;
  stderr: DenoStream;
  exitCode: number;
}

/** {@link quietOnClose} for a Deno stream: every byte written, a closed reader ends the output. */
function denoWriter(stream: DenoStream): (text: string) => void {
  const encoder = new TextEncoder();
  let closed = false;
  return (text) => {
    if (closed) return;
    const bytes = encoder.encode(text);
    try {
      for (let written = 0; written < bytes.byteLength;) {
        written += stream.writeSync(bytes.subarray(written));
      }
    } catch (error) {
      const { name, code } = error as { name?: unknown; code?: unknown };
      if (name !== "BrokenPipe" && code !== "EPIPE") throw error;
      closed = true;
    }
  };
}

const deno = (globalThis as { Deno?: DenoProcess }).Deno;
const files = denoFileLayer();
// The playground page of this distribution, at this path from this file in the repository and in
// the JSR and npm packages (docs/playground.md, "Where the page comes from"); `deno task policy`'s
// bundle of this file imports it from the same place (tools/cli_bundle.ts).
const playgroundPage = () => import("./dist/playground/page.js");
const io: CliIo = deno === undefined
  ? {
    stdout: quietOnClose(process.stdout),
    stderr: quietOnClose(process.stderr),
    env: (name) => process.env[name],
    cwd: process.cwd(),
    clock: SYSTEM_CLOCK,
    playgroundPage,
    stdoutIsTerminal: process.stdout.isTTY === true,
  }
  : {
    stdout: denoWriter(deno.stdout),
    stderr: denoWriter(deno.stderr),
    env: (name) => deno.env.get(name),
    cwd: deno.cwd(),
    clock: SYSTEM_CLOCK,
    playgroundPage,
    stdoutIsTerminal: deno.stdout.isTerminal(),
    // Windows keeps the node:fs layer (the Deno layer's path rules are POSIX).
    ...(files === undefined ? {} : { files }),
  };
const code = await runCli(deno?.args ?? process.argv.slice(2), io);
if (deno === undefined) process.exitCode = code;
else deno.exitCode = code;
