/**
 * The yardstick of the hostile runners (`_corpus_runner.ts`,
 * `_import_runner.ts`): what `JSON.parse` takes on a text, or a SHA-256 of
 * its bytes when that is longer (every load hashes the bytes, and reading a
 * file costs at least that: the floor where `JSON.parse` is faster still, on
 * a document of one long string it copies at memory speed or text it refuses
 * at its first byte). Each is the fastest of a few runs, since one run can be
 * slowed by whatever else the machine does. docs/security.md states the bound
 * so.
 *
 * @module
 */

function time(fn: () => unknown): number {
  const started = performance.now();
  try {
    fn();
  } catch {
    // a parse error is timed too
  }
  return performance.now() - started;
}

/** Milliseconds: the longer of JSON.parse of `text` (fastest of three) and SHA-256 of `bytes` (of two). */
export async function baselineMs(text: string, bytes: Uint8Array<ArrayBuffer>): Promise<number> {
  const parseMs = Math.min(
    time(() => JSON.parse(text)),
    time(() => JSON.parse(text)),
    time(() => JSON.parse(text)),
  );
  let hashMs = Infinity;
  for (let run = 0; run < 2; run++) {
    const started = performance.now();
    await crypto.subtle.digest("SHA-256", bytes);
    hashMs = Math.min(hashMs, performance.now() - started);
  }
  return Math.max(parseMs, hashMs);
}
