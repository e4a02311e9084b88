/**
 * The CLI's file layer on `node:fs/promises` and `node:path` (see
 * `file_layer.ts`): the `policy` command's under Node, and under Deno on
 * Windows. Its reads are the library's (`readRegularFile`, `statVersion`).
 *
 * @module
 */
import type { EntryKind, FileLayer } from "./file_layer.ts";
import { nodeFs } from "./node_fs.ts";
import { readRegularFile } from "./read_regular_file.ts";
import { statVersion } from "./file_version.ts";

/** The Node file layer (loads `node:fs/promises` and `node:path` on first call). */
export async function nodeFileLayer(): Promise<FileLayer> {
  const { fs, path } = await nodeFs();
  const kindOf = (stat: { isFile(): boolean; isDirectory(): boolean }): EntryKind =>
    stat.isFile() ? "file" : stat.isDirectory() ? "folder" : "other";
  return {
    runtime: "node",
    path,
    readRegularFile: async (file, maxBytes, options) =>
      (await readRegularFile(file, maxBytes, options)).bytes,
    async kind(file) {
      try {
        return kindOf(await fs.stat(file));
      } catch {
        return null;
      }
    },
    async exists(file) {
      try {
        await fs.lstat(file);
        return true;
      } catch {
        return false;
      }
    },
    async list(folder) {
      return (await fs.readdir(folder, { withFileTypes: true })).map((entry) => ({
        name: entry.name,
        kind: kindOf(entry),
      }));
    },
    version: statVersion,
  };
}
