/**
 * The file layer of the `policy` command: what its commands read, list and
 * stat, and the platform's path rules, behind one small interface with two
 * implementations. `node_file_layer.ts` uses `node:fs/promises` and
 * `node:path` (Node, and Deno on Windows); `deno_file_layer.ts` uses the
 * `Deno` namespace, because a Deno process pays about 20–40 ms at start-up
 * for Deno's Node compatibility layer (docs/performance.md, "Start-up").
 * `cli.ts` chooses one for its runtime and passes it in `CliIo.files`; the
 * library never uses the Deno one (it serves Deno, Node and browsers from
 * one source). Both pass the same tests (`tests/io/file_layer_test.ts`).
 *
 * Writes, renames and the working folder's lock stay on the one atomic
 * writer (`write_file_atomic.ts`, `node:fs`), loaded when a command writes.
 *
 * @module
 */
import type { ReadOptions } from "./read_regular_file.ts";

/** The path rules of the platform: the functions of `node:path` the CLI uses. */
export interface PathRules {
  /** The separator of path segments (`/`, or `\` on Windows). */
  readonly sep: string;
  /** The absolute path of the segments, resolved right to left (as `node:path`). */
  resolve(...paths: string[]): string;
  /** The segments joined and normalized. */
  join(...paths: string[]): string;
  /** The folder part of a path. */
  dirname(path: string): string;
  /** The last segment of a path. */
  basename(path: string): string;
  /** The relative path from `from` to `to` (both resolved first). */
  relative(from: string, to: string): string;
  /** True for an absolute path. */
  isAbsolute(path: string): boolean;
}

/** What a path holds: a regular file, a folder, or anything else (pipe, device, socket). */
export type EntryKind = "file" | "folder" | "other";

/** One entry of a folder, symlinks not followed (a symlink is `other`). */
export interface FolderEntry {
  name: string;
  kind: EntryKind;
}

/** The file operations of the CLI's read paths, on one runtime's API. */
export interface FileLayer {
  /** Which implementation: `node` (`node:fs`) or `deno` (the `Deno` namespace). */
  readonly runtime: "node" | "deno";
  /** The platform's path rules. */
  readonly path: PathRules;
  /**
   * The bytes of the regular file at `path` (symlinks followed), refusing
   * anything else and any file over `maxBytes` (the semantics of
   * `readRegularFile`); with `options.within`, only a file whose real path
   * is inside that folder (`within_folder.ts`).
   *
   * @throws {ReadFailure} Whatever went wrong.
   */
  readRegularFile(path: string, maxBytes: number, options?: ReadOptions): Promise<Uint8Array>;
  /** What is at `path`, symlinks followed; `null` when nothing is (or it cannot be seen). */
  kind(path: string): Promise<EntryKind | null>;
  /** True when anything is at `path`, a dangling symlink included. */
  exists(path: string): Promise<boolean>;
  /**
   * The entries of a folder, in the order the system gives them.
   * Rejects with the file system's error (its `code`, `ENOENT` …).
   */
  list(folder: string): Promise<FolderEntry[]>;
  /**
   * What identifies the present state of the file or folder at `path`
   * without reading it (device, inode, size, times; see
   * `file_version.ts`): any write, rename over the path or symlink swap
   * changes it. Rejects with the file system's error.
   */
  version(path: string): Promise<string>;
}
