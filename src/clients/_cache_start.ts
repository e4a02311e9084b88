// The remote client's start-up from its cache file (docs/remote.md
// "Start-up", docs/operations.md "No going back"): the bundle it holds,
// verified from its bytes like a network bundle.
import type { BundleStatus, LoadedBundle } from "../verify/load_bundle.ts";
import { parseBundleBytes } from "../verify/load_bundle.ts";
import { acceptRemoteBundle, type RemoteScope } from "./_accept_remote_bundle.ts";
import { readCacheFile } from "./_cache_file.ts";

/** A verified bundle read from the cache file. */
export interface CachedBundle {
  loaded: LoadedBundle;
  bytes: Uint8Array;
  /** The file's modification time: when an origin last confirmed it (or earlier). */
  confirmedAt: number;
}

/**
 * Reads and verifies the cache file at `path`.
 *
 * @throws {PolicyError} `BUNDLE_READ_ERROR`, `BUNDLE_TOO_LARGE`, or a check's code.
 */
export async function loadCachedBundle(path: string, scope: RemoteScope): Promise<CachedBundle> {
  const file = await readCacheFile(path, scope.maxFileBytes);
  const loaded = await acceptRemoteBundle(file.bytes, `the cache file ${path}`, scope);
  return { loaded, bytes: file.bytes, confirmedAt: file.mtimeMs };
}

/**
 * The cache file's bundle when it verifies and its `bundleVersion` is higher
 * than `than`'s, else null (a missing or unusable file included): what a
 * client starts from instead of an older bundle from the network. The file
 * is only verified when its version is higher.
 */
export async function newerCachedBundle(
  path: string,
  scope: RemoteScope,
  than: BundleStatus,
): Promise<CachedBundle | null> {
  if (than.bundleVersion === null) return null;
  try {
    const file = await readCacheFile(path, scope.maxFileBytes);
    const version = (parseBundleBytes(file.bytes) as { bundleVersion?: unknown } | null)
      ?.bundleVersion;
    if (typeof version !== "number" || !(version > than.bundleVersion)) return null;
    const loaded = await acceptRemoteBundle(file.bytes, `the cache file ${path}`, scope);
    return { loaded, bytes: file.bytes, confirmedAt: file.mtimeMs };
  } catch {
    return null;
  }
}
