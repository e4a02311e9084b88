/**
 * Whether a program the tests start (redis-server, redis-cli, prometheus)
 * can be run here: it is asked its `--version`. Tests that need one skip,
 * printing the reason, when it cannot; `.ci/run` installs them all.
 *
 * @module
 */

/**
 * Null when `command --version` runs and succeeds; else why not: not
 * installed (with `install`, what installs it), no run permission, or the
 * command failed.
 */
export async function whyNotRunnable(command: string, install: string): Promise<string | null> {
  try {
    const { success } = await new Deno.Command(command, {
      args: ["--version"],
      stdout: "null",
      stderr: "null",
    }).output();
    return success ? null : `${command} --version failed`;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return `${command} not found (${install})`;
    if (error instanceof Deno.errors.NotCapable || error instanceof Deno.errors.PermissionDenied) {
      return `run permission for ${command} not granted`;
    }
    throw error;
  }
}
