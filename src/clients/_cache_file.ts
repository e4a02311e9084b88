// The remote client's cache file (`cachePath`): the exact bytes of the last
// verified bundle, written atomically and read back at start-up. Uses
// node:fs/promises so the same code runs on Deno and Node.
import { nodeFs } from "../io/node_fs.ts";
import { ReadFailure, readRegularFile } from "../io/read_regular_file.ts";
import { NotRegularFileError, writeFileAtomic } from "../io/write_file_atomic.ts";
import { PolicyError } from "../public/policy_error.ts";
import { describeThrown } from "../_internal/describe_thrown.ts";
import type { Clock } from "../public/clock.ts";

/** The bytes of the cache file, and when it was last written or confirmed. */
export interface CacheFile {
  bytes: Uint8Array;
  /** Its modification time, in ms since the epoch: see {@link touchCacheFile}. */
  mtimeMs: number;
}

/**
 * Reads the cache file: only a regular file (a pipe or device is refused at
 * once, leaving nothing pending), refused over `maxFileBytes` before it is
 * read whole.
 *
 * @throws {PolicyError} `BUNDLE_READ_ERROR` (missing, unreadable, not a
 * regular file, no read permission) or `BUNDLE_TOO_LARGE`.
 */
export async function readCacheFile(path: string, maxFileBytes: number): Promise<CacheFile> {
  try {
    const { bytes, stats } = await readRegularFile(path, maxFileBytes);
    return { bytes, mtimeMs: Number(stats.mtimeNs / 1_000_000n) };
  } catch (error) {
    if (error instanceof ReadFailure && error.reason === "too-large") {
      throw new PolicyError(
        "BUNDLE_TOO_LARGE",
        `the cache file ${path} is ${error.size} bytes or more, over the limit of ${maxFileBytes} bytes`,
      );
    }
    throw new PolicyError(
      "BUNDLE_READ_ERROR",
      `cannot read the cache file ${path}: ${describeThrown(error)}`,
      { cause: error },
    );
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
export async function writeCacheFile(
  path: string,
  bytes: Uint8Array,
  clock: Clock,
): Promise<void> {
  try {
    await writeFileAtomic(path, bytes, { clock });
  } catch (error) {
    throw new PolicyError(
      "CACHE_WRITE_ERROR",
      `cannot write the bundle cache ${path}: ${describeThrown(error)}${
        error instanceof NotRegularFileError ? "" : "; check that its folder exists and is writable"
      }`,
      { cause: error },
    );
  }
}

/**
 * Sets the cache file's modification time to `atMs`: the last time an
 * origin confirmed the bundle it holds, which a client started from it
 * counts its staleness from (docs/operations.md "A staleness bound").
 *
 * @throws {PolicyError} `CACHE_WRITE_ERROR`.
 */
export async function touchCacheFile(path: string, atMs: number): Promise<void> {
  try {
    const { fs } = await nodeFs();
    const at = new Date(atMs);
    await fs.utimes(path, at, at);
  } catch (error) {
    throw new PolicyError(
      "CACHE_WRITE_ERROR",
      `cannot record the confirmation time on the bundle cache ${path}: ${describeThrown(error)}`,
      { cause: error },
    );
  }
}

/**
 * The freshness record beside a cache file (docs/remote.md "Cache file"):
 * its presence says that a bundle with a freshness statement has been in
 * force in a client of that cache, so a restarted client still requires
 * one (docs/security.md "Signed freshness").
 */
export function freshnessRecordPath(cachePath: string): string {
  return `${cachePath}.freshness.json`;
}

/** The `type` of a freshness record. */
export const FRESHNESS_RECORD_TYPE = "policy-freshness-record/v1";

/** The most bytes a freshness record is read to: it is written far smaller. */
export const MAX_FRESHNESS_RECORD_BYTES = 4096;

/** What a freshness record says, for people and messages (its presence is what counts). */
export interface FreshnessRecord {
  type: typeof FRESHNESS_RECORD_TYPE;
  /** Always true: a record is written only once statements are required. */
  requireFreshness: true;
  /** When the bundle below came into force (ISO 8601). */
  since: string;
  /** That bundle's signed `bundleVersion` and checksum, and the client's scope. */
  bundleVersion: number;
  checksum: string;
  orgId: string;
  projectId: string;
  env: string;
}

/**
 * Writes the freshness record of `cachePath` atomically, through the one
 * write path (`writeFileAtomic`), as one line of JSON.
 *
 * @throws {PolicyError} `CACHE_WRITE_ERROR`.
 */
export async function writeFreshnessRecord(
  cachePath: string,
  record: FreshnessRecord,
  clock: Clock,
): Promise<void> {
  const path = freshnessRecordPath(cachePath);
  try {
    await writeFileAtomic(path, new TextEncoder().encode(`${JSON.stringify(record)}\n`), { clock });
  } catch (error) {
    throw new PolicyError(
      "CACHE_WRITE_ERROR",
      `cannot write the freshness record ${path}: ${describeThrown(error)}`,
      { cause: error },
    );
  }
}

/**
 * Reads the freshness record of `cachePath`: `"missing"` when there is none
 * (nothing, or part of the path is not a folder), else its bytes, or the
 * reason they cannot be read (a folder or device there, no permission,
 * over {@link MAX_FRESHNESS_RECORD_BYTES}): the caller fails closed on
 * anything but `"missing"`.
 */
export async function readFreshnessRecord(
  cachePath: string,
): Promise<"missing" | { bytes: Uint8Array } | { unreadable: string }> {
  try {
    const { bytes } = await readRegularFile(
      freshnessRecordPath(cachePath),
      MAX_FRESHNESS_RECORD_BYTES,
    );
    return { bytes };
  } catch (error) {
    if (error instanceof ReadFailure && error.reason === "missing") return "missing";
    return { unreadable: describeThrown(error) };
  }
}
