/**
 * Opens a web address in the system's browser, as `policy playground
 * --open` does (docs/cli.md, "`playground`"): `open <url>` on macOS,
 * `cmd /c start "" <url>` on Windows, `xdg-open <url>` elsewhere. The
 * command starts in its own session (so that stopping the playground with
 * Ctrl-C does not close the browser), with the environment of the process
 * (the opener needs `DISPLAY` and the like) and its output ignored.
 *
 * Under Deno it is started with `Deno.Command`, which passes the
 * environment on without reading it (`node:child_process` would need
 * `--allow-env` for all of it): it needs only `--allow-run=xdg-open` (or
 * `open`). The same source runs under Node, with `node:child_process`.
 * Nothing `node:` is imported before it runs: the CLI's bundle would load
 * it at every start (docs/performance.md, "Start-up").
 *
 * @module
 */
/** The command that opens `url` on `platform` (a `process.platform` value). */
export function browserCommand(platform: string, url: string): { command: string; args: string[] } {
  if (platform === "darwin") return { command: "open", args: [url] };
  if (platform === "win32") return { command: "cmd", args: ["/c", "start", '""', url] };
  return { command: "xdg-open", args: [url] };
}

/** The part of the Deno namespace used here. */
interface DenoProcesses {
  build: { os: string };
  Command: new (command: string, options: {
    args: string[];
    stdin: "null";
    stdout: "null";
    stderr: "null";
    detached: boolean;
  }) => { spawn(): { unref(): void } };
}

/**
 * Starts the browser command for `url`; resolves once it started.
 *
 * @throws {Error} When the command cannot be started (not installed, or not
 * permitted: under Deno it needs `--allow-run=xdg-open` or `open`).
 */
export async function openBrowser(url: string, platform?: string): Promise<void> {
  const deno = (globalThis as { Deno?: Partial<DenoProcesses> }).Deno;
  // Deno names Windows "windows", Node "win32".
  const os = platform ??
    (deno?.build?.os === undefined
      ? (await import("node:process")).default.platform
      : deno.build.os === "windows"
      ? "win32"
      : deno.build.os);
  const { command, args } = browserCommand(os, url);
  if (typeof deno?.Command === "function") {
    const child = new deno.Command(command, {
      args,
      stdin: "null",
      stdout: "null",
      stderr: "null",
      detached: true,
    }).spawn();
    child.unref();
    return;
  }
  const { spawn } = await import("node:child_process");
  await new Promise<void>((resolve, reject) => {
    const child = spawn(command, args, { detached: true, stdio: "ignore" });
    child.once("error", reject);
    child.once("spawn", () => {
      child.unref();
      resolve();
    });
  });
}
