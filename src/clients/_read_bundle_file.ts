// Reading the bundle file of the local client with node:fs/promises only (no
// Deno namespace), so the same code runs on Deno and Node.
import { fileVersion } from "../io/file_version.ts";
import { ReadFailure, readRegularFile, type RegularFile } from "../io/read_regular_file.ts";
import { isPermissionDenial, systemErrorCode } from "../io/system_error.ts";
import { PolicyError } from "../public/policy_error.ts";
import { describeThrown } from "../_internal/describe_thrown.ts";

/** The bytes of a bundle file and the version of the file they were read from. */
export interface BundleFile {
  bytes: Uint8Array;
  /** See {@link fileVersion}. */
  version: string;
  /** The file's modification time, in milliseconds since the epoch. */
  mtimeMs: number;
}

/**
 * Reads the bundle file at `path` (see `readRegularFile`: only a regular
 * file, refused at once otherwise, and never more than `maxBytes + 1` bytes
 * read, so an oversized file is never read whole).
 *
 * @throws {PolicyError} `BUNDLE_READ_ERROR` (missing, unreadable, not a
 * regular file, permission denied) or `BUNDLE_TOO_LARGE`. The cause is the
 * file system's error, when there is one.
 */
export async function readBundleFile(path: string, maxBytes: number): Promise<BundleFile> {
  let file: RegularFile;
  try {
    file = await readRegularFile(path, maxBytes);
  } catch (error) {
    if (!(error instanceof ReadFailure)) throw readError(path, error);
    if (error.reason === "too-large") {
      throw new PolicyError(
        "BUNDLE_TOO_LARGE",
        `the bundle file "${path}" is ${error.size} bytes or more, over the limit of ${maxBytes} bytes; raise maxFileBytes or split the bundle`,
      );
    }
    if (error.reason === "not-regular") {
      throw new PolicyError(
        "BUNDLE_READ_ERROR",
        `the bundle path "${path}" is not a regular file (a pipe, device or socket); point bundlePath at the bundle JSON file`,
      );
    }
    throw readError(path, error.cause ?? { code: error.reason === "folder" ? "EISDIR" : "" });
  }
  const { bytes, stats } = file;
  return { bytes, version: fileVersion(stats), mtimeMs: Number(stats.mtimeNs / 1_000_000n) };
}

/**
 * Turns a file system error on `path` into a `BUNDLE_READ_ERROR` that names
 * the path and says what to do. The original error is the `cause`.
 */
export function readError(path: string, error: unknown): PolicyError {
  const message = (() => {
    if (isPermissionDenial(error)) {
      return `cannot read the bundle file "${path}": the runtime denied read access; with Deno, run with --allow-read=${path}`;
    }
    switch (systemErrorCode(error)) {
      case "ENOENT":
        return `the bundle file "${path}" does not exist; check bundlePath (a relative path resolves from the current directory)`;
      case "ENOTDIR":
        return `the bundle file "${path}" does not exist: part of the path is not a folder; check bundlePath`;
      case "EISDIR":
        return `the bundle path "${path}" is a folder; point bundlePath at the bundle JSON file`;
      case "EACCES":
      case "EPERM":
        return `cannot read the bundle file "${path}": permission denied; make it readable by the user running this process`;
      default: {
        const detail = describeThrown(error);
        return `cannot read the bundle file "${path}": ${detail}`;
      }
    }
  })();
  return new PolicyError("BUNDLE_READ_ERROR", message, { cause: error });
}

/**
 * A file read this soon after its last modification may be rewritten within
 * the same timestamp tick (milliseconds for mtime, a second for ctime here, up
 * to 2 s on some file systems) with the same size: its stat would not change.
 * Until then, the client compares bytes instead of trusting the stat
 * (git's "racily clean" rule).
 */
export const RACY_WINDOW_MS = 2_000;

/**
 * The bytes to compare on later checks while `file` is racy, else null.
 * `wallNow` is the wall clock (the file's time is one).
 */
export function racyBytes(file: BundleFile, wallNow: number): Uint8Array | null {
  return wallNow - file.mtimeMs < RACY_WINDOW_MS ? file.bytes : null;
}
