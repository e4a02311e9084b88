// This module is browser compatible.
/**
 * What a thrown file system or network error is, for the modules that turn
 * it into a coded `PolicyError`: one place that knows the shapes Node and
 * Deno give them.
 *
 * @module
 */

/** The `code` of a Node-style system error (`ENOENT`, `EACCES`, …), if any. */
export function systemErrorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : undefined;
}

/**
 * True for the errors of a runtime permission model: Deno's `NotCapable`
 * (`--allow-read`, `--allow-net` missing), `PermissionDenied` before Deno 2.
 */
export function isPermissionDenial(error: unknown): boolean {
  const name = (error as { name?: unknown } | null)?.name;
  return name === "NotCapable" || name === "PermissionDenied";
}
