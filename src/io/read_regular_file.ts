/**
 * The one way the library and the CLI read a file: only a regular file, and
 * never more than a limit. Named pipes, devices, sockets and folders are
 * refused at once: the file is opened without blocking (a FIFO with no
 * writer would otherwise hold `open` forever, and the process with it),
 * then its own stat decides. Uses `node:fs/promises`, so the same code runs
 * on Deno and Node.
 *
 * @module
 */
import type { BigIntStats } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import { nodeFs } from "./node_fs.ts";
import { isPermissionDenial, systemErrorCode } from "./system_error.ts";
import { describeThrown } from "../_internal/describe_thrown.ts";
import { identityOf, locateWithin, type RealPaths } from "./within_folder.ts";

/** Why a file could not be read; callers turn it into their own coded error. */
export type ReadFailureReason =
  /** Nothing at the path (or part of the path is not a folder). */
  | "missing"
  | "folder"
  /** A named pipe, device, socket or anything else that is not a regular file. */
  | "not-regular"
  | "too-large"
  /** The operating system or the runtime's permissions refused. */
  | "denied"
  /** Its real path is not inside the folder of the `within` option (`within_folder.ts`). */
  | "outside"
  | "other";

/** A file that could not be read, with a reason and the size seen when too large. */
export class ReadFailure extends Error {
  /** Why. */
  readonly reason: ReadFailureReason;
  /** The size found (`too-large` only): the stat size, or the bytes read when it grew. */
  readonly size: number;

  /** Creates the failure; `cause` is the file system error, if any. */
  constructor(reason: ReadFailureReason, detail: string, size = 0, cause?: unknown) {
    super(detail, cause === undefined ? undefined : { cause });
    this.name = "ReadFailure";
    this.reason = reason;
    this.size = size;
  }
}

/** Options of the file readers. */
export interface ReadOptions {
  /**
   * A folder the file must be within: its real path (symbolic links
   * followed) inside the folder's, else `outside` (see `within_folder.ts`).
   */
  within?: string;
}

/** The bytes of a regular file and the stat of the file they were read from. */
export interface RegularFile {
  bytes: Uint8Array;
  /** The open file's own stat (so a rename after opening cannot mislead). */
  stats: BigIntStats;
}

/**
 * Reads the regular file at `path` (symlinks followed), refusing anything
 * else and any file over `maxBytes` before reading it whole; the read stops
 * after `maxBytes + 1` bytes whatever the file does meanwhile. With
 * `within`, only a file whose real path is inside that folder.
 *
 * @throws {ReadFailure} Whatever went wrong; never leaves an operation pending.
 */
export async function readRegularFile(
  path: string,
  maxBytes: number,
  options: ReadOptions = {},
): Promise<RegularFile> {
  const { fs, path: rules } = await nodeFs();
  const { constants } = fs;
  let handle: FileHandle;
  try {
    // O_NONBLOCK: opening a FIFO returns at once instead of waiting for a writer.
    handle = await fs.open(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (error) {
    throw failure(error);
  }
  try {
    const stats = await handle.stat({ bigint: true });
    if (options.within !== undefined) {
      const paths: RealPaths = {
        sep: rules.sep,
        realPath: (p) => fs.realpath(p),
        identity: async (p) => identityOf(await fs.stat(p, { bigint: true })),
      };
      const where = await locateWithin(paths, path, identityOf(stats), options.within);
      if (where === "outside") throw outsideFailure(options.within);
      if (where === "replaced") {
        throw new ReadFailure("other", "it was replaced while it was opened");
      }
    }
    assertRegularFile(stats);
    if (stats.size > BigInt(maxBytes)) {
      throw new ReadFailure("too-large", "it is over the size limit", Number(stats.size));
    }
    const bytes = await readAtMost(
      async (into) => (await handle.read(into, 0, into.byteLength, null)).bytesRead,
      Number(stats.size),
      maxBytes + 1,
    );
    if (bytes.byteLength > maxBytes) {
      throw new ReadFailure("too-large", "it grew over the size limit", bytes.byteLength);
    }
    return { bytes, stats };
  } catch (error) {
    throw error instanceof ReadFailure ? error : failure(error);
  } finally {
    await handle.close().catch(() => {});
  }
}

/**
 * The regular-file check of every reader (and of the decision log's
 * appender): on the open file's own stat.
 *
 * @throws {ReadFailure} `folder` or `not-regular`.
 */
export function assertRegularFile(stats: { isDirectory(): boolean; isFile(): boolean }): void {
  if (stats.isDirectory()) throw new ReadFailure("folder", "it is a folder");
  if (!stats.isFile()) {
    throw new ReadFailure("not-regular", "it is not a regular file (a pipe, device or socket)");
  }
}

/** The failure of a file whose real path is not inside the folder of the `within` option. */
export function outsideFailure(folder: string): ReadFailure {
  return new ReadFailure(
    "outside",
    `its real path (symbolic links followed) is outside ${folder}`,
  );
}

/**
 * Reads from the current position to the end of a file, or until `limit`
 * bytes, with `read` (which fills the start of the buffer it is given and
 * returns how many bytes, 0 or null at the end): the one read loop of the
 * file readers.
 */
export async function readAtMost(
  read: (into: Uint8Array) => Promise<number | null>,
  expected: number,
  limit: number,
): Promise<Uint8Array> {
  // One byte more than expected, so the usual case ends with one read and one EOF.
  let buffer = new Uint8Array(Math.min(expected + 1, limit));
  let length = 0;
  while (length < limit) {
    if (length === buffer.byteLength) {
      const grown = new Uint8Array(Math.min(buffer.byteLength * 2, limit));
      grown.set(buffer);
      buffer = grown;
    }
    const bytesRead = await read(buffer.subarray(length));
    if (bytesRead === null || bytesRead === 0) break;
    length += bytesRead;
  }
  return buffer.subarray(0, length);
}

/** A file system error as a {@link ReadFailure} (for the openers of files). */
export function failure(error: unknown): ReadFailure {
  if (isPermissionDenial(error)) {
    return new ReadFailure("denied", "the runtime denied read access", 0, error);
  }
  switch (systemErrorCode(error)) {
    case "ENOENT":
    case "ENOTDIR":
      return new ReadFailure("missing", "it does not exist", 0, error);
    case "EISDIR":
      return new ReadFailure("folder", "it is a folder", 0, error);
    case "EACCES":
    case "EPERM":
      return new ReadFailure("denied", "permission denied", 0, error);
    case "ENXIO": // a socket, or a FIFO opened for writing only
      return new ReadFailure("not-regular", "it is not a regular file", 0, error);
    default: {
      const detail = describeThrown(error);
      return new ReadFailure("other", detail, 0, error);
    }
  }
}
