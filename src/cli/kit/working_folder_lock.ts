/**
 * The working folder's lock: commands that read, change and write the draft
 * or the bundle hold it for the whole of that, so that concurrent commands
 * run one after the other instead of losing each other's work (eight
 * parallel `add-rule`s add eight rules; parallel builds get successive
 * `bundleVersion`s). See `docs/cli.md`, "Concurrent commands".
 *
 * The lock is the file `.policy.lock` in the working folder, created
 * exclusively (written in full under a temporary name, then hard-linked into
 * place, so it is never seen half-written). It records who holds it. A lock
 * left by a process that died (`kill -9`, a crash, a power cut) is detected
 * and taken over:
 *
 * - under Deno the holder also keeps an OS lock (`flock`) on the file, which
 *   the kernel drops when the process dies: a lock file nobody `flock`s is stale;
 * - the holder touches the file every second (heartbeat), so a lock whose
 *   file has not changed for {@link STALE_LOCK_MS} is stale whatever runtime
 *   left it; under Node, whose processes can be asked whether they live, a
 *   holder whose process is gone is stale after {@link DEAD_HOLDER_MS}.
 *
 * Taking over is itself exclusive (a `.policy.lock.break` file), so two
 * waiters never both break a lock; and before a command replaces a file it
 * checks that the lock is still its own ({@link WorkingFolderLock.assertHeld}).
 *
 * Every path through the waiting loop sleeps and checks the deadline, so a
 * command never spins; anything at the lock's paths that a policy command
 * does not leave there (a symbolic link, a folder, a pipe) is `WRITE_ERROR`
 * naming it, at once. Time comes from the injected clock: the deadline and
 * the waits on its monotonic `now()` and timers, the lock file's age (a
 * time from the file system) against its `wallNow()`.
 *
 * @module
 */
import { toHex } from "../../_internal/encoding.ts";
import { nodeFs } from "../../io/node_fs.ts";

/** The `node:fs/promises` module, as `nodeFs` loads it. */
type NodeFsModule = Awaited<ReturnType<typeof nodeFs>>["fs"];
import { systemErrorCode } from "../../io/system_error.ts";
import { ReadFailure, readRegularFile, type RegularFile } from "../../io/read_regular_file.ts";
import { type HeldFileLock, tryLockFile } from "../../io/try_lock_file.ts";
import { CliError } from "./errors.ts";
import { parseJson } from "../../engine/parse_json.ts";
import { type Clock, delay, SYSTEM_CLOCK } from "../../public/clock.ts";
import { describeThrown } from "../../_internal/describe_thrown.ts";

/** The lock's file name, in the working folder. */
export const LOCK_FILE = ".policy.lock";
/** How often the holder touches the lock file. */
export const HEARTBEAT_MS = 1_000;
/** A lock file untouched for this long is stale, whoever left it. */
export const STALE_LOCK_MS = 10_000;
/** A lock whose holder's process is known to be gone is stale once untouched this long. */
export const DEAD_HOLDER_MS = 2_500;
/** How long a command waits for the lock by default before `WORKING_FOLDER_LOCKED`. */
export const LOCK_WAIT_MS = 60_000;

/** What the lock file holds. */
interface LockRecord {
  pid: number;
  /** The command, for the message of whoever waits. */
  command: string;
  /** Unique to this acquisition: a lock taken over by another is no longer ours. */
  token: string;
  /** ISO 8601. */
  since: string;
  /** The holder also holds an OS lock on the file (Deno). */
  flock: boolean;
}

/** A held lock. */
export interface WorkingFolderLock {
  /** The lock file. */
  readonly file: string;
  /**
   * Checks that the lock is still this command's (a holder stalled for
   * longer than {@link STALE_LOCK_MS} may have lost it).
   *
   * @throws {CliError} `WORKING_FOLDER_LOCKED`.
   */
  assertHeld(): Promise<void>;
  /** Releases the lock (removes the file if it is still this command's). */
  release(): Promise<void>;
}

/** Options of {@link lockWorkingFolder}. */
export interface LockOptions {
  /** Give up after this long (default {@link LOCK_WAIT_MS}). */
  waitMs?: number;
  /** Called once when the lock is busy and the command starts waiting. */
  onWait?: (holder: string) => void;
  /** The clock of the waits, the deadline and the heartbeat (default: the system clock). */
  clock?: Clock;
}

/**
 * Takes the lock of `folder`, waiting while another live command holds it.
 *
 * @throws {CliError} `WORKING_FOLDER_LOCKED` after `waitMs`; `WRITE_ERROR`
 * when the lock file cannot be created or something else is at its path.
 */
export async function lockWorkingFolder(
  folder: string,
  command: string,
  options: LockOptions = {},
): Promise<WorkingFolderLock> {
  const { path } = await nodeFs();
  const clock = options.clock ?? SYSTEM_CLOCK;
  const file = path.join(folder, LOCK_FILE);
  const deadline = clock.now() + (options.waitMs ?? LOCK_WAIT_MS);
  let waited = false;
  let seen: SeenLock | null = null;
  for (let attempt = 0;; attempt++) {
    const held = await tryCreate(file, command, clock);
    if (held !== null) {
      await removeStaleTemporaries(file, clock);
      return held;
    }
    const current = await readLock(file); // null: released meanwhile
    if (current !== null) seen = current;
    if (current !== null && await isStale(file, current, clock)) {
      await breakLock(file, current, clock);
      // Taken over: try again at once (a second time only after a wait).
      if (attempt === 0) continue;
    } else if (current !== null && !waited) {
      waited = true;
      options.onWait?.(describeHolder(current));
    }
    // Every other path waits, and every path meets the deadline.
    if (clock.now() >= deadline) {
      throw new CliError(
        "WORKING_FOLDER_LOCKED",
        `the working folder ${folder} is locked by ${
          seen === null ? "another command" : describeHolder(seen)
        }; nothing was changed`,
        {
          hint:
            `wait for that command to finish and run this one again; a lock whose process died is taken over by itself within ${
              STALE_LOCK_MS / 1000
            } s (the lock is ${file})`,
        },
      );
    }
    await delay(clock, 25 + Math.random() * 50);
  }
}

/**
 * Creates the lock `target` for command `what`, or returns null when
 * another command holds it: written beside it, OS-locked, then linked into
 * place (a link never replaces a file).
 *
 * @throws {CliError} `WRITE_ERROR`.
 */
async function tryCreate(
  target: string,
  what: string,
  clock: Clock,
): Promise<WorkingFolderLock | null> {
  const { fs } = await nodeFs();
  const token = toHex(crypto.getRandomValues(new Uint8Array(8)));
  const temp = temporaryName(target, token);
  let os: HeldFileLock | null | undefined;
  try {
    await fs.writeFile(temp, "", { flag: "wx", mode: 0o644 });
    // The OS lock is taken on the file before it becomes the lock, so no
    // waiter ever sees the lock without it.
    os = await tryLockFile(temp).catch(() => undefined);
    const record: LockRecord = {
      pid: process.pid, // the `process` global: see cli.ts
      command: what,
      token,
      since: new Date(clock.wallNow()).toISOString(),
      flock: os !== undefined && os !== null,
    };
    await fs.writeFile(temp, JSON.stringify(record) + "\n");
    try {
      await fs.link(temp, target);
    } catch (error) {
      if (systemErrorCode(error) === "EEXIST") {
        await os?.release();
        return null;
      }
      throw error;
    }
    return holdLock(target, token, os ?? null, clock, fs);
  } catch (error) {
    await os?.release().catch(() => {});
    throw new CliError(
      "WRITE_ERROR",
      `cannot create the working folder's lock ${target}: ${describeThrown(error)}`,
    );
  } finally {
    await fs.rm(temp, { force: true }).catch(() => {});
  }
}

/** The lock `target`, held: its heartbeat runs until it is released. */
function holdLock(
  target: string,
  token: string,
  os: HeldFileLock | null,
  clock: Clock,
  fs: NodeFsModule,
): WorkingFolderLock {
  let beat: Promise<unknown> = Promise.resolve();
  let released = false;
  let timer: unknown;
  const heartbeat = () => {
    timer = clock.setTimeout(() => {
      const now = new Date(clock.wallNow());
      beat = fs.utimes(target, now, now).catch(() => {}).finally(() => {
        if (!released) heartbeat();
      });
    }, HEARTBEAT_MS);
  };
  heartbeat();
  return {
    file: target,
    assertHeld: async () => {
      const seen = await readLock(target);
      if (seen?.record?.token !== token) {
        throw new CliError(
          "WORKING_FOLDER_LOCKED",
          `this command lost the working folder's lock ${target} (it was stalled for over ${
            STALE_LOCK_MS / 1000
          } s and another command took it over); nothing was written`,
          { hint: "run the command again" },
        );
      }
    },
    release: async () => {
      if (released) return;
      released = true;
      clock.clearTimeout(timer);
      await beat;
      try {
        const seen = await readLock(target);
        if (seen?.record?.token === token) await fs.rm(target, { force: true });
      } finally {
        await os?.release().catch(() => {});
      }
    },
  };
}

/** The name a lock is written under before it is linked into place. */
function temporaryName(file: string, token: string): string {
  return `${file}.${token}.tmp`;
}

/**
 * Removes what commands killed while taking the lock left (a temporary
 * lock, a break file), once older than {@link STALE_LOCK_MS}. Best effort.
 */
async function removeStaleTemporaries(file: string, clock: Clock): Promise<void> {
  const { fs, path } = await nodeFs();
  const base = path.basename(file).replaceAll(".", "\\.");
  const pattern = new RegExp(`^${base}\\.(?:[0-9a-f]{16}\\.tmp|break)$`);
  const folder = path.dirname(file);
  try {
    for (const name of await fs.readdir(folder)) {
      if (!pattern.test(name)) continue;
      const entry = path.join(folder, name);
      const stat = await fs.lstat(entry).catch(() => null);
      if (stat?.isFile() && clock.wallNow() - stat.mtimeMs > STALE_LOCK_MS) {
        await fs.rm(entry, { force: true }).catch(() => {});
      }
    }
  } catch {
    // an unreadable folder: nothing to clean
  }
}

/** The lock file as seen by a waiter. */
interface SeenLock {
  /** Null when the file does not hold a record (another writer's garbage). */
  record: LockRecord | null;
  ino: number;
  mtimeMs: number;
}

/** A lock record is a few hundred bytes; a larger file is not one. */
const MAX_LOCK_BYTES = 64 * 1024;

/**
 * The lock as it is now, or null when there is none. Read with the one file
 * reader, so that a named pipe or device put at the lock's path fails at
 * once instead of holding the command; a symbolic link (which the lock
 * never is) fails too, dangling or not.
 *
 * @throws {CliError} `WRITE_ERROR` naming what is at the path.
 */
async function readLock(file: string): Promise<SeenLock | null> {
  const { fs } = await nodeFs();
  const link = await fs.lstat(file).catch(() => null);
  if (link?.isSymbolicLink()) {
    throw new CliError(
      "WRITE_ERROR",
      `the working folder's lock ${file} is a symbolic link, which no policy command creates; if no policy command is running on this folder, remove it`,
    );
  }
  let read: RegularFile;
  try {
    read = await readRegularFile(file, MAX_LOCK_BYTES);
  } catch (error) {
    if (error instanceof ReadFailure && error.reason === "missing") return null;
    throw new CliError(
      "WRITE_ERROR",
      `cannot read the working folder's lock ${file}: ${
        describeThrown(error)
      }; if no policy command is running on this folder, remove it`,
    );
  }
  let record: LockRecord | null = null;
  try {
    const value = parseJson(new TextDecoder().decode(read.bytes)) as LockRecord | null;
    if (typeof value?.token === "string" && Number.isSafeInteger(value.pid)) record = value;
  } catch {
    // not a record: judged by its age
  }
  const { stats } = read;
  return { record, ino: Number(stats.ino), mtimeMs: Number(stats.mtimeNs / 1_000_000n) };
}

/** True when the holder of the lock `seen` is gone. */
async function isStale(file: string, seen: SeenLock, clock: Clock): Promise<boolean> {
  // The file's time is the file system's: compared with the wall clock.
  const age = clock.wallNow() - seen.mtimeMs;
  if (age > STALE_LOCK_MS) return true;
  if (seen.record?.flock) {
    // Its holder keeps an OS lock: if this process can take one, the holder is gone.
    const probe = await tryLockFile(file).catch(() => undefined);
    if (probe !== undefined && probe !== null) {
      await probe.release();
      return true;
    }
    if (probe === null) return false;
  }
  return seen.record !== null && age > DEAD_HOLDER_MS && processIsGone(seen.record.pid);
}

/**
 * True when no process `pid` exists on this machine. False when it does or
 * when the runtime will not say (Deno without `--allow-run`).
 */
function processIsGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return systemErrorCode(error) === "ESRCH";
  }
}

/**
 * Removes the stale lock `seen`, unless it changed meanwhile. Exclusive:
 * one waiter breaks a lock, the others see it gone or taken (they wait,
 * and try again).
 *
 * @throws {CliError} `WRITE_ERROR` when the break file cannot be written,
 * or when something other than a file is at its path.
 */
async function breakLock(file: string, seen: SeenLock, clock: Clock): Promise<void> {
  const { fs } = await nodeFs();
  const breaker = `${file}.break`;
  try {
    await fs.writeFile(breaker, String(process.pid), { flag: "wx" });
  } catch (error) {
    if (systemErrorCode(error) !== "EEXIST") {
      throw new CliError(
        "WRITE_ERROR",
        `cannot take over the working folder's stale lock: cannot create ${breaker}: ${
          describeThrown(error)
        }`,
      );
    }
    // Another waiter is breaking it; its break file is itself stale if it died doing so.
    const stat = await fs.lstat(breaker).catch(() => null);
    if (stat !== null && !stat.isFile()) {
      throw new CliError(
        "WRITE_ERROR",
        `cannot take over the working folder's stale lock: ${breaker} is ${
          stat.isDirectory() ? "a folder" : stat.isSymbolicLink() ? "a symbolic link" : "not a file"
        }, which no policy command creates; if no policy command is running on this folder, remove it`,
      );
    }
    if (stat !== null && clock.wallNow() - stat.mtimeMs > STALE_LOCK_MS) {
      await fs.rm(breaker, { force: true }).catch(() => {});
    }
    return;
  }
  try {
    // In readLock's units: the same file, unchanged since it was judged stale.
    const now = await fs.stat(file, { bigint: true }).catch(() => null);
    if (
      now !== null && Number(now.ino) === seen.ino &&
      Number(now.mtimeNs / 1_000_000n) === seen.mtimeMs
    ) {
      await fs.rm(file, { force: true });
    }
  } finally {
    await fs.rm(breaker, { force: true });
  }
}

function describeHolder(seen: SeenLock): string {
  const r = seen.record;
  return r === null
    ? "another command"
    : `'policy ${r.command}' (process ${r.pid}, since ${r.since})`;
}
