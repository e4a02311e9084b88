/**
 * Watching files for `policy simulate --watch`: the state of each file (or
 * folder) is polled, as the local client polls its bundle (device, inode,
 * size, modification and change times; see `FileLayer.version`),
 * every {@link WATCH_INTERVAL_MS}, on the timers of the command's clock
 * (`CliIo.clock`), until one changes or the I/O's abort signal fires.
 *
 * @module
 */
import type { FileLayer } from "../../../io/file_layer.ts";
import { systemErrorCode } from "../../../io/system_error.ts";
import type { CommandIo } from "../../cli_io.ts";

/** How often watched files are polled. */
export const WATCH_INTERVAL_MS = 500;

/** The state of each watched path: its version, or `missing:<code>` when it cannot be statted. */
export type FileStates = ReadonlyMap<string, string>;

/** The states of `paths` now. */
export async function fileStates(
  files: FileLayer,
  paths: Iterable<string>,
): Promise<FileStates> {
  const states = new Map<string, string>();
  await Promise.all(
    [...new Set(paths)].map(async (p) => {
      let state: string;
      try {
        state = await files.version(p);
      } catch (error) {
        state = `missing:${systemErrorCode(error) ?? "unknown"}`;
      }
      states.set(p, state);
    }),
  );
  return states;
}

/** The first path whose state differs between `before` and `now`, or null. */
function changed(before: FileStates, now: FileStates): string | null {
  for (const [p, state] of now) if (before.get(p) !== state) return p;
  return null;
}

/**
 * Waits until one of the files of `since` is no longer in the state
 * recorded there, polling every {@link WATCH_INTERVAL_MS} on the I/O's
 * clock. Resolves with the path that changed, or null when the I/O's signal
 * aborts first (no timer is left pending).
 */
export function waitForChange(io: CommandIo, since: FileStates): Promise<string | null> {
  const { clock, signal } = io;
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return resolve(null);
    let handle: unknown;
    let done = false;
    const finish = (result: string | null) => {
      done = true;
      signal?.removeEventListener("abort", onAbort);
      resolve(result);
    };
    const onAbort = () => {
      clock.clearTimeout(handle);
      finish(null);
    };
    signal?.addEventListener("abort", onAbort);
    const poll = async () => {
      try {
        const now = await fileStates(io.files, since.keys());
        if (done) return;
        const path = changed(since, now);
        if (path !== null) return finish(path);
        handle = clock.setTimeout(() => void poll(), WATCH_INTERVAL_MS);
      } catch (error) {
        signal?.removeEventListener("abort", onAbort);
        reject(error);
      }
    };
    handle = clock.setTimeout(() => void poll(), WATCH_INTERVAL_MS);
  });
}
