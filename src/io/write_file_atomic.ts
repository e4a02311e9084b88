/**
 * Writing a file atomically, the one mechanism the CLI and the clients share:
 * into a temporary file in the same folder, flushed, then renamed into place
 * (or hard-linked, when an existing file must not be replaced). A crash never
 * leaves half a document and a watching client never reads one; the temporary
 * file of a writer killed mid-write is removed by a later write of the same
 * file. A replaced file keeps its mode, and its owner where the process may
 * set it. Uses `node:` built-ins only, so it runs on Deno and Node alike.
 *
 * Only a regular file is ever replaced. Whatever else is at the path — a
 * symbolic link (even to a regular file), a device such as `/dev/null`, a
 * named pipe, a socket, a folder — is refused before anything is written, and
 * is left as it was: a rename would replace the link or the device node with
 * a regular file (as root, `--junit /dev/stdout` would have replaced the
 * system's `/dev/stdout`). See docs/cli.md, "Writing files".
 *
 * What remains: the check (`lstat`) and the rename are two system calls.
 * Someone who may create entries in the target's folder can put a link or a
 * device node there between them, and the rename then replaces that entry.
 * It replaces the directory entry only — a rename never writes through a
 * link or into a device — and whoever can do that can remove the entry
 * anyway, so nothing is lost that they could not already destroy. The check
 * is made before anything is written and again just before the rename, so
 * the window is those two calls.
 *
 * @module
 */
import { toHex } from "../_internal/encoding.ts";
import { type Clock, SYSTEM_CLOCK } from "../public/clock.ts";
import { nodeFs } from "./node_fs.ts";

/** Options of {@link writeFileAtomic}. */
export interface WriteFileAtomicOptions {
  /**
   * File mode of the file written, whatever was there (`0o600` for anything
   * holding a secret: private keys, licences). Without it, a replaced file
   * keeps its mode (and its owner and group, where the process may set them),
   * and a new file is created with `0o644` less the process's umask.
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
 *
 * @throws {NotRegularFileError} when something other than a regular file is
 * at `target` (a symbolic link, a device, a named pipe, a socket, a folder),
 * with nothing written.
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
  // The file replaced, whose mode and owner the new one takes (null: none there).
  const replaced = overwrite ? await regularFileAt(target) : null;
  if (!overwrite && await fs.lstat(target).then(() => true, () => false)) {
    throw alreadyExists(target);
  }
  const mode = options.mode ?? (replaced === null ? undefined : replaced.mode & 0o7777);
  try {
    if (createParents) await fs.mkdir(folder, { recursive: true });
    // Created with the mode it will have (a new file: 0644 less the umask), so that a 0600 file's
    // temporary copy is never more open than the file.
    const handle = await fs.open(temp, "wx", (mode ?? NEW_FILE_MODE) & 0o777);
    try {
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    if (replaced !== null && options.mode === undefined) await keepOwner(fs, temp, replaced);
    if (mode !== undefined) await fs.chmod(temp, mode);
    if (overwrite) {
      // Again, just before the rename: what appeared meanwhile is not replaced either.
      await regularFileAt(target);
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

/** The mode of a new file written without `mode` (less the umask). */
const NEW_FILE_MODE = 0o644;

/**
 * Thrown by {@link writeFileAtomic} when the path holds something other than
 * a regular file; nothing was written. Its message says what is there and
 * what to do, without the path (callers say "cannot write <path>: …").
 */
export class NotRegularFileError extends Error {
  /** `ENOTREG`, beside the file system's own codes. */
  readonly code = "ENOTREG";
  /** What is at the path: `symbolic link`, `character device`, `folder`, … */
  readonly kind: string;
  constructor(kind: string, linkTarget?: string) {
    super(
      `it is a ${kind}${
        linkTarget === undefined ? "" : ` (to ${shortPath(linkTarget)})`
      }, not a regular file; it was not replaced and nothing was written (name a regular file${
        linkTarget === undefined ? "" : ", such as the link's target,"
      } or a new path, or remove the ${kind} first)`,
    );
    this.name = "NotRegularFileError";
    this.kind = kind;
  }
}

/**
 * The `lstat` of the regular file at `target`, or null when nothing is there.
 *
 * @throws {NotRegularFileError} when something else is there.
 */
async function regularFileAt(
  target: string,
): Promise<{ mode: number; uid: number; gid: number } | null> {
  const { fs } = await nodeFs();
  let stat;
  try {
    stat = await fs.lstat(target);
  } catch (error) {
    if ((error as { code?: string }).code === "ENOENT") return null;
    throw error;
  }
  if (stat.isFile()) return stat;
  const kind = stat.isSymbolicLink()
    ? "symbolic link"
    : stat.isDirectory()
    ? "folder"
    : stat.isFIFO()
    ? "named pipe"
    : stat.isCharacterDevice()
    ? "character device"
    : stat.isBlockDevice()
    ? "block device"
    : stat.isSocket()
    ? "socket"
    : "special file";
  const link = stat.isSymbolicLink() ? await fs.readlink(target).catch(() => undefined) : undefined;
  throw new NotRegularFileError(kind, link);
}

/** A link's target as quoted in a message: at most 120 characters. */
function shortPath(text: string): string {
  return text.length <= 120 ? JSON.stringify(text) : `${JSON.stringify(text.slice(0, 120))}…`;
}

/** The `EEXIST` error of `overwrite: false`, as `link()` would throw it. */
function alreadyExists(target: string): Error {
  return Object.assign(new Error(`${target} already exists`), { code: "EEXIST" });
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
