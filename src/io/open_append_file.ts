/**
 * Opens a regular file for appending (the decision log's file): created if
 * missing, opened without blocking and checked with the readers' one
 * regular-file check, so that a named pipe with no reader, a device or a
 * socket at the path fails at once instead of holding `open` (and the
 * process) forever. Uses `node:fs/promises`, so it runs on Deno and Node.
 *
 * @module
 */
import type { FileHandle } from "node:fs/promises";
import { nodeFs } from "./node_fs.ts";
import { assertRegularFile, failure, ReadFailure } from "./read_regular_file.ts";

/**
 * The open regular file at `path` (symlinks followed), positioned for
 * appends; created with mode 0644 when missing.
 *
 * @throws {ReadFailure} Anything else at the path (`folder`, `not-regular`),
 * or the file system's error; never leaves an operation pending.
 */
export async function openAppendFile(path: string): Promise<FileHandle> {
  const { fs } = await nodeFs();
  const { constants } = fs;
  let handle: FileHandle;
  try {
    // O_NONBLOCK: a FIFO with no reader fails (ENXIO) instead of waiting for one.
    handle = await fs.open(
      path,
      constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | (constants.O_NONBLOCK ?? 0),
      0o644,
    );
  } catch (error) {
    throw failure(error);
  }
  try {
    assertRegularFile(await handle.stat());
    return handle;
  } catch (error) {
    await handle.close().catch(() => {});
    throw error instanceof ReadFailure ? error : failure(error);
  }
}
