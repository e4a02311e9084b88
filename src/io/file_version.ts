/**
 * What identifies one state of a file without reading it: the local
 * client's watch and `policy simulate --watch` poll it. Uses
 * `node:fs/promises` only (no Deno namespace), so the same code runs on
 * Deno and Node.
 *
 * @module
 */
import type { BigIntStats } from "node:fs";
import { nodeFs } from "./node_fs.ts";

/**
 * What identifies one state of a file: device, inode, size, and modification
 * and change times at the full precision the runtime gives (nanoseconds on
 * Node, milliseconds for the modification time on Deno). Any write, rename over
 * the path or symlink swap changes at least one of them.
 */
export function fileVersion(stats: BigIntStats): string {
  return `${stats.dev}:${stats.ino}:${stats.size}:${stats.mtimeNs}:${stats.ctimeNs}`;
}

/**
 * The version of the file at `path` (following symlinks), without reading it.
 * Rejects with the raw file system error.
 */
export async function statVersion(path: string): Promise<string> {
  const { fs } = await nodeFs();
  return fileVersion(await fs.stat(path, { bigint: true }));
}
