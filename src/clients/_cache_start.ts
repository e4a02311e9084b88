// The remote client's start-up from its cache file (docs/remote.md
// "Start-up", docs/operations.md "No going back"): the bundle it holds,
// verified from its bytes like a network bundle.
import type { BundleStatus, LoadedBundle } from "../verify/load_bundle.ts";
import { parseBundleBytes } from "../verify/load_bundle.ts";
import { acceptRemoteBundle, type RemoteScope } from "./_accept_remote_bundle.ts";
import {
  FRESHNESS_RECORD_TYPE,
  freshnessRecordPath,
  readCacheFile,
  readFreshnessRecord,
} from "./_cache_file.ts";
import { parseJson } from "../engine/parse_json.ts";
import { isRecord } from "../_internal/guards.ts";

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

/** What a starting client knows of freshness statements from its cache's folder. */
export interface StatementsAtStart {
  /** Why statements are required from the start (for messages), or null. */
  because: string | null;
  /** A well-formed freshness record is there already (nothing to write). */
  recorded: boolean;
}

/**
 * Whether a client of the cache file at `path` has had a bundle with a
 * freshness statement in force before (docs/remote.md "Cache file"): its
 * freshness record says so; without a record, the cache file holds a bundle
 * with a `freshness` member (a cache written before records were). Fails
 * closed: a record that is there but cannot be read or is not one this
 * version writes counts as "required". Without a record, a cache file that
 * is missing, unreadable or not a bundle tells nothing ("not required", as
 * at a first start). Reads at most `MAX_FRESHNESS_RECORD_BYTES` and
 * `maxFileBytes`; never throws.
 */
export async function statementsAtStart(
  path: string,
  maxFileBytes: number,
): Promise<StatementsAtStart> {
  const recordPath = freshnessRecordPath(path);
  const record = await readFreshnessRecord(path);
  if (record !== "missing") {
    if ("unreadable" in record) {
      return {
        because:
          `its freshness record ${recordPath} is there but cannot be read (${record.unreadable}), which fails closed`,
        recorded: false,
      };
    }
    const facts = recordFacts(record.bytes);
    return facts === null
      ? {
        because:
          `its freshness record ${recordPath} is there but is not one this version writes, which fails closed`,
        recorded: false,
      }
      : {
        because:
          `its freshness record ${recordPath} says a bundle with one (bundleVersion ${facts.bundleVersion}, ${facts.checksum}) came into force at ${facts.since}`,
        recorded: true,
      };
  }
  // No record: a cache written before records were may hold a bundle with a statement. A
  // cache that cannot be read or parsed tells nothing (it is rewritten at the next success, as
  // before): whoever could garble it could as well delete it and the record.
  let document: unknown;
  try {
    document = parseBundleBytes((await readCacheFile(path, maxFileBytes)).bytes);
  } catch {
    return { because: null, recorded: false };
  }
  return isRecord(document) && document.freshness !== undefined
    ? { because: `its cache file ${path} holds a bundle with one`, recorded: false }
    : { because: null, recorded: false };
}

/** The facts of a record written by {@link writeFreshnessRecord}, or null. */
function recordFacts(
  bytes: Uint8Array,
): { bundleVersion: number; checksum: string; since: string } | null {
  let value: unknown;
  try {
    value = parseJson(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch {
    return null;
  }
  if (!isRecord(value) || value.type !== FRESHNESS_RECORD_TYPE) return null;
  const { requireFreshness, bundleVersion, checksum, since } = value;
  const ok = requireFreshness === true && Number.isSafeInteger(bundleVersion) &&
    typeof checksum === "string" && /^sha256:[0-9a-f]{64}$/.test(checksum) &&
    typeof since === "string" && since.length <= 40 && !Number.isNaN(Date.parse(since));
  return ok ? { bundleVersion: bundleVersion as number, checksum, since } : null;
}
