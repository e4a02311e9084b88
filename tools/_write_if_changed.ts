/**
 * Writing a generated file the way the build tools of this folder do: only
 * when its text changed, and atomically (`src/io/write_file_atomic.ts`), so
 * that a task running at the same time (`deno task test` runs two) reads the
 * old file or the new one, never half of one, and an unchanged file keeps its
 * time.
 *
 * @module
 */
import { writeFileAtomic } from "../src/io/write_file_atomic.ts";

/** Writes `text` to `path` (creating its folder) unless the file already holds it. */
export async function writeIfChanged(path: string, text: string): Promise<void> {
  if (await readTextIfAny(path) === text) return;
  await writeFileAtomic(path, text, { createParents: true });
}

async function readTextIfAny(path: string): Promise<string | undefined> {
  try {
    return await Deno.readTextFile(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw error;
  }
}
