/**
 * The Deno binary a test may run as a child process: this very binary when
 * `--allow-run` grants it by path, else `deno` from PATH (`--allow-run=deno`
 * grants the PATH entry, often a symlink to the binary rather than its own
 * path, as with `npx deno`). Null when neither is granted.
 */
export function denoCommand(): string | null {
  for (const command of [Deno.execPath(), "deno"]) {
    if (Deno.permissions.querySync({ name: "run", command }).state === "granted") return command;
  }
  return null;
}

/** {@link denoCommand}, or an error saying which permission to grant. */
export function requireDenoCommand(): string {
  const command = denoCommand();
  if (command === null) {
    throw new Error("these tests run `deno` in a child process: grant --allow-run=deno");
  }
  return command;
}
