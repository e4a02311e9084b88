/**
 * Opens a web address in the system's browser, as `policy playground
 * --open` does (docs/cli.md, "`playground`"): `open <url>` on macOS,
 * `cmd /c start "" <url>` on Windows, `xdg-open <url>` elsewhere. The
 * command is started detached, its output ignored; the promise settles once
 * it started (or could not be).
 *
 * @module
 */
import { spawn } from "node:child_process";
import process from "node:process";

/** The command that opens `url` on `platform` (a `process.platform` value). */
export function browserCommand(platform: string, url: string): { command: string; args: string[] } {
  if (platform === "darwin") return { command: "open", args: [url] };
  if (platform === "win32") return { command: "cmd", args: ["/c", "start", '""', url] };
  return { command: "xdg-open", args: [url] };
}

/**
 * Starts the browser command for `url`.
 *
 * @throws {Error} When the command cannot be started (not installed, or not
 * permitted: under Deno it needs `--allow-run=xdg-open` or `open`).
 */
export function openBrowser(url: string, platform: string = process.platform): Promise<void> {
  const { command, args } = browserCommand(platform, url);
  return new Promise((resolve, reject) => {
    let child;
    try {
      child = spawn(command, args, { detached: true, stdio: "ignore" });
    } catch (error) {
      reject(error);
      return;
    }
    child.once("error", reject);
    child.once("spawn", () => {
      child.unref();
      resolve();
    });
  });
}
