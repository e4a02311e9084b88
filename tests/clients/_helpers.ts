/**
 * Helpers of the client tests: temporary folders under the repository's
 * `.tmp/`, polling until a condition holds, and the ways a bundle file gets
 * written in production.
 *
 * @module
 */

const TMP_ROOT = new URL("../../.tmp/", import.meta.url);

/** A fresh folder under `.tmp/` and the function that removes it. */
export async function makeTempDir(
  prefix = "clients-",
): Promise<{ dir: string; remove(): Promise<void> }> {
  await Deno.mkdir(TMP_ROOT, { recursive: true });
  const dir = await Deno.makeTempDir({ dir: decodeURIComponent(TMP_ROOT.pathname), prefix });
  return { dir, remove: () => Deno.remove(dir, { recursive: true }) };
}

/**
 * Polls `condition` every few milliseconds until it returns true, failing
 * with `message` after `timeoutMs` (generous, for loaded machines).
 */
export async function waitFor(
  condition: () => boolean | Promise<boolean>,
  message: string,
  timeoutMs = 10_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms: ${message}`);
    await sleep(5);
  }
}

/** Waits `ms` milliseconds. Only to let a watcher run a few checks that must change nothing. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

let counter = 0;

/** Writes `data` to a new file beside `path` and renames it over `path`, as editors and the CLI do. */
export async function writeAtomic(
  path: string,
  data: string | Uint8Array,
  mtime?: Date,
): Promise<void> {
  const temp = `${path}.${Deno.pid}.${++counter}.tmp`;
  if (typeof data === "string") await Deno.writeTextFile(temp, data);
  else await Deno.writeFile(temp, data);
  if (mtime !== undefined) await Deno.utime(temp, mtime, mtime);
  await Deno.rename(temp, path);
}
