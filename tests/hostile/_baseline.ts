/**
 * The yardstick of the hostile runners (`_corpus_runner.ts`,
 * `_import_runner.ts`): what `JSON.parse` takes on a text, or a SHA-256 of
 * its bytes when that is longer (every load hashes the bytes, and reading a
 * file costs at least that: the floor where `JSON.parse` is faster still, on
 * a document of one long string it copies at memory speed or text it refuses
 * at its first byte). Each is the fastest of a few runs, since one run can be
 * slowed by whatever else the machine does, on both clocks of `_elapsed.ts`.
 * docs/security.md states the bound so.
 *
 * @module
 */
import { type Elapsed, fastest, NOT_YET, slowest, startClocks } from "./_elapsed.ts";

function time(fn: () => unknown): Elapsed {
  const elapsed = startClocks();
  try {
    fn();
  } catch {
    // a parse error is timed too
  }
  return elapsed();
}

/** The longer of JSON.parse of `text` (fastest of three) and SHA-256 of `bytes` (of two). */
export async function baseline(text: string, bytes: Uint8Array<ArrayBuffer>): Promise<Elapsed> {
  let parse = NOT_YET;
  for (let run = 0; run < 3; run++) parse = fastest(parse, time(() => JSON.parse(text)));
  let hash = NOT_YET;
  for (let run = 0; run < 2; run++) {
    const elapsed = startClocks();
    await crypto.subtle.digest("SHA-256", bytes);
    hash = fastest(hash, elapsed());
  }
  return slowest(parse, hash);
}
