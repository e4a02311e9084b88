/**
 * Scratch folders of the tests, under the repository's `.tmp/` (ignored by
 * git; the one folder the test tasks may write, `--allow-write=.tmp`).
 * `.tmp/` is created when missing: a test may run first in a fresh clone.
 *
 * @module
 */

/** The repository's `.tmp/` folder. */
const TMP_ROOT = new URL("../.tmp/", import.meta.url);

/**
 * A fresh folder under `.tmp/` and the function that removes it, for setups
 * that outlive one function (a test that can wrap its body uses
 * {@link withTempDir}).
 */
export async function makeTempDir(
  prefix = "test-",
): Promise<{ dir: string; remove(): Promise<void> }> {
  await Deno.mkdir(TMP_ROOT, { recursive: true });
  const dir = await Deno.makeTempDir({ dir: decodeURIComponent(TMP_ROOT.pathname), prefix });
  return { dir, remove: () => Deno.remove(dir, { recursive: true }) };
}

/** Runs `fn` with a fresh folder under `.tmp/`, removed afterwards. */
export async function withTempDir<T>(
  fn: (dir: string) => Promise<T>,
  prefix = "test-",
): Promise<T> {
  const { dir, remove } = await makeTempDir(prefix);
  try {
    return await fn(dir);
  } finally {
    await remove();
  }
}
