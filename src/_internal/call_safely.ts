/**
 * Calls a user callback (`onError`, `onPoll`) so that nothing it does can
 * stop a client: a throw is swallowed, and so is the rejection of an async
 * callback (which would otherwise be an unhandled rejection, fatal in Deno).
 */
export function callSafely<T>(callback: ((value: T) => unknown) | null, value: T): void {
  if (callback === null) return;
  try {
    const result = callback(value);
    if (result instanceof Promise) result.catch(() => {});
  } catch {
    // The caller's bug; the client goes on.
  }
}
