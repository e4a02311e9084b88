// The remote client's cache file (`cachePath`): the exact bytes of the last
// verified bundle, written atomically and read back at start-up. Uses
// node:fs/promises so the same code runs on Deno and Node.
import { nodeFs } from "../_io/node_fs.ts";
import { writeFileAtomic } from "../_io/write_file_atomic.ts";
import { PolicyError } from "../engine/policy_error.ts";

/**
 * Reads the cache file, refusing one over `maxFileBytes` before reading it whole.
 *
 * @throws {PolicyError} `BUNDLE_READ_ERROR` (missing, unreadable, no read
 * permission) or `BUNDLE_TOO_LARGE`.
 */
export async function readCacheFile(path: string, maxFileBytes: number): Promise<Uint8Array> {
  let handle;
  try {
    handle = await (await nodeFs()).fs.open(path, "r");
  } catch (error) {
    throw new PolicyError(
      "BUNDLE_READ_ERROR",
      `cannot read the cache file ${path}: ${describe(error)}`,
      { cause: error },
    );
  }
  try {
    const { size } = await handle.stat();
    if (size > maxFileBytes) {
      throw new PolicyError(
        "BUNDLE_TOO_LARGE",
        `the cache file ${path} is ${size} bytes, over the limit of ${maxFileBytes} bytes`,
      );
    }
    return new Uint8Array(await handle.readFile());
  } catch (error) {
    if (error instanceof PolicyError) throw error;
    throw new PolicyError(
      "BUNDLE_READ_ERROR",
      `cannot read the cache file ${path}: ${describe(error)}`,
      { cause: error },
    );
  } finally {
    await handle.close().catch(() => {});
  }
}

/**
 * Writes `bytes` to `path` atomically: to a new temporary file in the same
 * folder, flushed to disk, then renamed over `path`. A reader sees the old
 * file or the new one, never part of one; a failed write leaves no
 * temporary file behind.
 *
 * @throws {PolicyError} `CACHE_WRITE_ERROR`.
 */
export async function writeCacheFile(path: string, bytes: Uint8Array): Promise<void> {
  try {
    await writeFileAtomic(path, bytes);
  } catch (error) {
    throw new PolicyError(
      "CACHE_WRITE_ERROR",
      `cannot write the bundle cache ${path}: ${
        describe(error)
      }; check that its folder exists and is writable`,
      { cause: error },
    );
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
