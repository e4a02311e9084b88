/**
 * An exclusive operating-system lock on a file (`flock`), where the runtime
 * offers one: Deno does (`Deno.FsFile.tryLock`), Node does not. The kernel
 * drops the lock when its process dies, however it dies, which is what makes
 * it a sure sign of a live holder. The one place that reaches for the Deno
 * namespace, and only when it is there: the same source runs under Node.
 *
 * @module
 */

/** An OS lock held on a file; `release` drops it and closes the file. */
export interface HeldFileLock {
  release(): Promise<void>;
}

/** The part of the Deno namespace used here. */
interface DenoFiles {
  open(path: string, options: { read: true }): Promise<{
    tryLock(exclusive: boolean): Promise<boolean>;
    unlock(): Promise<void>;
    close(): void;
  }>;
}

/**
 * Tries to take an exclusive OS lock on the existing file at `path`
 * without waiting. Resolves to the held lock, to `null` when another
 * process holds one, or to `undefined` when the runtime has no file locks.
 * Rejects with the file system's error when the file cannot be opened.
 */
export async function tryLockFile(path: string): Promise<HeldFileLock | null | undefined> {
  const deno = (globalThis as { Deno?: Partial<DenoFiles> }).Deno;
  if (typeof deno?.open !== "function") return undefined;
  const file = await deno.open(path, { read: true });
  if (typeof file.tryLock !== "function") {
    file.close();
    return undefined;
  }
  let locked = false;
  try {
    locked = await file.tryLock(true);
  } finally {
    if (!locked) file.close();
  }
  if (!locked) return null;
  return {
    release: async () => {
      try {
        await file.unlock();
      } finally {
        file.close();
      }
    },
  };
}
