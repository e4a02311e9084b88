/**
 * `node:fs/promises` and `node:path`, loaded on first use. Importing them
 * costs Deno about 30 ms of start-up (its Node compatibility layer), which a
 * program that imports the library and never touches a file through it
 * should not pay.
 *
 * @module
 */

type Fs = typeof import("node:fs/promises");
type Path = typeof import("node:path");

let modules: Promise<{ fs: Fs; path: Path }> | undefined;

/** The two modules, imported once. */
export function nodeFs(): Promise<{ fs: Fs; path: Path }> {
  return modules ??= Promise.all([import("node:fs/promises"), import("node:path")])
    .then(([fs, path]) => ({ fs, path }));
}
