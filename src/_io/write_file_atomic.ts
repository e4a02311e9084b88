/**
 * Writing a file atomically, the one mechanism the CLI and the clients share:
 * into a temporary file in the same folder, flushed, then renamed into place
 * (or hard-linked, when an existing file must not be replaced). A crash never
 * leaves half a document and a watching client never reads one; the temporary
 * file of a writer killed mid-write is removed by a later write of the same
 * file. A replaced file keeps its mode, and its owner where the process may
 * set it. Uses `node:` built-ins only, so it runs on Deno and Node alike.
 *
 * @module
 */
import { toHex } from "../_internal/encoding.ts";
import { type Clock, SYSTEM_CLOCK } from "../_internal/clock.ts";
import { nodeFs } from "./node_fs.ts";

/** Options of {@link writeFileAtomic}. */
export interface WriteFileAtomicOptions {
  /**
   * File mode of the file written, whatever was there (`0o600` for private
   * keys and licences). Without it, a replaced file keeps its mode (and its
   * owner and group, where the process may set them), and a new file gets
   * `0o644`.
   */
  mode?: number;
  /** Replace an existing file (default true). When false, an existing file fails with `EEXIST`. */
  overwrite?: boolean;
  /** Create missing parent folders (default false). */
  createParents?: boolean;
  /**
   * The clock whose `wallNow()` the age of stale temporary files is
   * measured against (their times are the file system's). Default: the
   * system clock.
   */
  clock?: Clock;
}

/**
 * Writes `data` to `target` atomically. On failure the temporary file is
 * removed and the file system's error is thrown as it is (its `code` is
 * `EEXIST` when `overwrite` is false and `target` exists): callers turn it
 * into their own error code.
 */
export async function writeFileAtomic(
  target: string,
  data: string | Uint8Array,
  options: WriteFileAtomicOptions = {},
): Promise<void> {
  const { overwrite = true, createParents = false } = options;
  const { fs, path } = await nodeFs();
  const folder = path.dirname(target);
  const temp = path.join(folder, `.${path.basename(target)}.${randomSuffix()}.tmp`);
  // The file replaced, whose mode and owner the new one takes.
  const replaced = overwrite && options.mode === undefined
    ? await fs.stat(target).catch(() => null)
    : null;
  const mode = options.mode ?? (replaced === null ? 0o644 : replaced.mode & 0o7777);
  try {
    if (createParents) await fs.mkdir(folder, { recursive: true });
    const handle = await fs.open(temp, "wx", mode);
    try {
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    if (replaced !== null) await keepOwner(fs, temp, replaced);
    await fs.chmod(temp, mode);
    if (overwrite) {
      await fs.rename(temp, target);
    } else {
      // link() fails if the target exists: no window where another writer's file is replaced.
      await fs.link(temp, target);
      await fs.unlink(temp);
    }
  } catch (error) {
    await fs.rm(temp, { force: true }).catch(() => {});
    throw error;
  }
  await removeStaleTemporaries(folder, path.basename(target), options.clock ?? SYSTEM_CLOCK);
}

/**
 * Gives `file` the owner and group of `replaced` when they differ from its
 * own. Only a privileged process may give a file away: where that is
 * refused (`EPERM`), or the platform has no owners, the file stays the
 * writer's, as any rewrite by that user would leave it.
 */
async function keepOwner(
  fs: Awaited<ReturnType<typeof nodeFs>>["fs"],
  file: string,
  replaced: { uid: number; gid: number },
): Promise<void> {
  const own = await fs.stat(file);
  if (own.uid === replaced.uid && own.gid === replaced.gid) return;
  await fs.chown(file, replaced.uid, replaced.gid).catch(() => {});
}

/**
 * Temporary files of a target older than this were left by a writer that
 * was killed between creating and renaming them (a live writer renames
 * within seconds).
 */
export const STALE_TEMPORARY_MS = 60_000;

/**
 * Removes the temporary files of `name` in `folder` (`.<name>.<12 hex>.tmp`,
 * the names {@link writeFileAtomic} gives) older than
 * {@link STALE_TEMPORARY_MS}, so that writers killed mid-write (`kill -9`, a
 * power cut) do not leave copies piling up. Best effort: never fails.
 */
async function removeStaleTemporaries(folder: string, name: string, clock: Clock): Promise<void> {
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const pattern = new RegExp(`^\\.${escaped}\\.[0-9a-f]{12}\\.tmp$`);
  const { fs, path } = await nodeFs();
  try {
    const cutoff = clock.wallNow() - STALE_TEMPORARY_MS;
    for (const entry of await fs.readdir(folder)) {
      if (!pattern.test(entry)) continue;
      const file = path.join(folder, entry);
      const stat = await fs.lstat(file).catch(() => null);
      if (stat !== null && stat.isFile() && stat.mtimeMs < cutoff) {
        await fs.rm(file, { force: true }).catch(() => {});
      }
    }
  } catch {
    // An unreadable folder: nothing to clean.
  }
}

function randomSuffix(): string {
  return toHex(crypto.getRandomValues(new Uint8Array(6)));
}
