// Reading the bundle file of the local client with node:fs/promises only (no
// Deno namespace), so the same code runs on Deno and Node.
import type { BigIntStats } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import { nodeFs } from "../_io/node_fs.ts";
import { PolicyError } from "../engine/policy_error.ts";

/** The bytes of a bundle file and the version of the file they were read from. */
export interface BundleFile {
  bytes: Uint8Array;
  /** See {@link fileVersion}. */
  version: string;
  /** The file's modification time, in milliseconds since the epoch. */
  mtimeMs: number;
}

/**
 * What identifies one state of a file: device, inode, size, and modification
 * and change times at the full precision the runtime gives (nanoseconds on
 * Node, milliseconds for the modification time on Deno). Any write, rename over
 * the path or symlink swap changes at least one of them.
 */
export function fileVersion(stats: BigIntStats): string {
  return `${stats.dev}:${stats.ino}:${stats.size}:${stats.mtimeNs}:${stats.ctimeNs}`;
}

/**
 * The version of the file at `path` (following symlinks), without reading it.
 * Rejects with the raw file system error; see {@link readError}.
 */
export async function statVersion(path: string): Promise<string> {
  const { fs } = await nodeFs();
  return fileVersion(await fs.stat(path, { bigint: true }));
}

/**
 * Reads the bundle file at `path`. The size is checked with `stat` before the
 * file is read, and the read stops after `maxBytes + 1` bytes whatever the
 * file does meanwhile, so an oversized file is never read whole.
 *
 * @throws {PolicyError} `BUNDLE_READ_ERROR` (missing, unreadable, not a
 * regular file, permission denied) or `BUNDLE_TOO_LARGE`.
 */
export async function readBundleFile(path: string, maxBytes: number): Promise<BundleFile> {
  const { fs } = await nodeFs();
  // A stat of the path first: a named pipe or a device would block `open`.
  let stats: BigIntStats;
  try {
    stats = await fs.stat(path, { bigint: true });
  } catch (error) {
    throw readError(path, error);
  }
  checkStats(path, stats, maxBytes);
  let handle: FileHandle;
  try {
    handle = await fs.open(path, "r");
  } catch (error) {
    throw readError(path, error);
  }
  try {
    // The file now open may differ from the one stat saw (a rename in between):
    // its own stat gives the version of the bytes read.
    const own = await handle.stat({ bigint: true });
    checkStats(path, own, maxBytes);
    const bytes = await readAtMost(handle, Number(own.size), maxBytes + 1);
    if (bytes.byteLength > maxBytes) throw tooLarge(path, `more than ${maxBytes}`, maxBytes);
    return { bytes, version: fileVersion(own), mtimeMs: Number(own.mtimeNs / 1_000_000n) };
  } catch (error) {
    throw error instanceof PolicyError ? error : readError(path, error);
  } finally {
    await handle.close();
  }
}

function checkStats(path: string, stats: BigIntStats, maxBytes: number): void {
  if (!stats.isFile()) {
    throw new PolicyError(
      "BUNDLE_READ_ERROR",
      `the bundle path "${path}" is not a regular file; point bundlePath at the bundle JSON file`,
    );
  }
  if (stats.size > BigInt(maxBytes)) throw tooLarge(path, String(stats.size), maxBytes);
}

function tooLarge(path: string, size: string, maxBytes: number): PolicyError {
  return new PolicyError(
    "BUNDLE_TOO_LARGE",
    `the bundle file "${path}" is ${size} bytes, over the limit of ${maxBytes} bytes; raise maxFileBytes or split the bundle`,
  );
}

/** Reads from the current position to the end of the file, or until `limit` bytes. */
async function readAtMost(
  handle: FileHandle,
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
    const { bytesRead } = await handle.read(buffer, length, buffer.byteLength - length, null);
    if (bytesRead === 0) break;
    length += bytesRead;
  }
  return buffer.subarray(0, length);
}

/** The `code` of a Node-style system error (`ENOENT`, `EACCES`, …), if any. */
export function systemErrorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : undefined;
}

/** True for the errors of a runtime permission model (Deno's `--allow-read`). */
function isPermissionDenial(error: unknown): boolean {
  const name = (error as { name?: unknown } | null)?.name;
  return name === "NotCapable" || name === "PermissionDenied";
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
        const detail = error instanceof Error ? error.message : String(error);
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

/** The bytes to compare on later checks while `file` is racy, else null. */
export function racyBytes(file: BundleFile, now: number = Date.now()): Uint8Array | null {
  return now - file.mtimeMs < RACY_WINDOW_MS ? file.bytes : null;
}

/** True when two byte arrays hold the same bytes. */
export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.byteLength !== b.byteLength) return false;
  for (let i = 0; i < a.byteLength; i++) if (a[i] !== b[i]) return false;
  return true;
}
