/**
 * The CLI's file layer on the `Deno` namespace (see `file_layer.ts`): a Deno
 * process that never loads Deno's Node compatibility layer starts 20–40 ms
 * sooner (docs/performance.md, "Start-up"). For the `policy` command only:
 * the library serves Deno, Node and browsers from one source through
 * `node:` built-ins, and never imports this module (tests/architecture_test.ts).
 *
 * Special files are refused as `read_regular_file.ts` refuses them, with one
 * difference: `Deno.open` cannot open without blocking (`O_NONBLOCK`), so a
 * file is stat-ed first and only a regular file is opened; the open file's
 * own stat must then be a regular file with the same device and inode. What
 * remains is the moment between the two: a named pipe put in the file's
 * place after the stat and before the open makes the open wait for a
 * writer (docs/security.md, "Special files"). With `within`, the file the
 * path's real path names must be the one stat-ed (`within_folder.ts`).
 *
 * @module
 */
import type { EntryKind, FileLayer, FolderEntry } from "./file_layer.ts";
import { posixPathRules } from "./posix_path.ts";
import {
  assertRegularFile,
  failure,
  outsideFailure,
  readAtMost,
  ReadFailure,
} from "./read_regular_file.ts";
import { identityOf, locateWithin, type RealPaths } from "./within_folder.ts";

/** What the layer reads of a `Deno.FileInfo`. */
interface DenoStat {
  isFile: boolean;
  isDirectory: boolean;
  size: number;
  dev: number;
  ino: number | null;
  mtime: Date | null;
  ctime?: Date | null;
}

/** An open `Deno.FsFile`, the part used here. */
interface DenoFile {
  stat(): Promise<DenoStat>;
  read(buffer: Uint8Array): Promise<number | null>;
  close(): void;
}

/** The part of the `Deno` namespace the layer uses (typed here: the npm build has no Deno types). */
interface DenoFiles {
  build: { os: string };
  cwd(): string;
  stat(path: string): Promise<DenoStat>;
  lstat(path: string): Promise<DenoStat>;
  realPath(path: string): Promise<string>;
  open(path: string, options: { read: true }): Promise<DenoFile>;
  readDir(path: string): AsyncIterable<{ name: string; isFile: boolean; isDirectory: boolean }>;
}

/** How often a file replaced between the stat and the open is tried again. */
const ATTEMPTS = 3;

/**
 * The Deno file layer, or `undefined` where it does not apply: outside Deno,
 * and on Windows (its path rules are POSIX; Windows keeps `node:path`).
 */
export function denoFileLayer(): FileLayer | undefined {
  const deno = (globalThis as { Deno?: DenoFiles }).Deno;
  if (deno === undefined || typeof deno.open !== "function" || deno.build.os === "windows") {
    return undefined;
  }
  const kindOf = (stat: DenoStat): EntryKind =>
    stat.isFile ? "file" : stat.isDirectory ? "folder" : "other";
  const realPaths: RealPaths = {
    sep: "/",
    realPath: (path) => deno.realPath(path),
    identity: async (path) => identityOf(await deno.stat(path)),
  };
  return {
    runtime: "deno",
    path: posixPathRules(() => deno.cwd()),
    async readRegularFile(path, maxBytes, options = {}) {
      for (let attempt = 1;; attempt++) {
        let seen: DenoStat;
        let where = "inside";
        try {
          seen = await deno.stat(path);
          if (options.within !== undefined) {
            where = await locateWithin(realPaths, path, identityOf(seen), options.within);
          }
        } catch (error) {
          throw failure(error);
        }
        if (where === "outside") throw outsideFailure(options.within!);
        if (where === "replaced") {
          if (attempt < ATTEMPTS) continue;
          throw new ReadFailure("other", "it kept changing while it was opened");
        }
        // Refused before any open: a pipe, device or socket is never opened.
        assertRegularFile({ isDirectory: () => seen.isDirectory, isFile: () => seen.isFile });
        if (seen.size > maxBytes) {
          throw new ReadFailure("too-large", "it is over the size limit", seen.size);
        }
        let file: DenoFile;
        try {
          file = await deno.open(path, { read: true });
        } catch (error) {
          throw failure(error);
        }
        try {
          const opened = await file.stat();
          assertRegularFile({
            isDirectory: () => opened.isDirectory,
            isFile: () => opened.isFile,
          });
          if (opened.dev !== seen.dev || opened.ino !== seen.ino) {
            // Replaced between the stat and the open (an atomic write, say): look again.
            if (attempt < ATTEMPTS) continue;
            throw new ReadFailure("other", "it kept changing while it was opened");
          }
          if (opened.size > maxBytes) {
            throw new ReadFailure("too-large", "it is over the size limit", opened.size);
          }
          const bytes = await readAtMost((into) => file.read(into), opened.size, maxBytes + 1);
          if (bytes.byteLength > maxBytes) {
            throw new ReadFailure("too-large", "it grew over the size limit", bytes.byteLength);
          }
          return bytes;
        } catch (error) {
          throw error instanceof ReadFailure ? error : failure(error);
        } finally {
          file.close();
        }
      }
    },
    async kind(path) {
      try {
        return kindOf(await deno.stat(path));
      } catch {
        return null;
      }
    },
    async exists(path) {
      try {
        await deno.lstat(path);
        return true;
      } catch {
        return false;
      }
    },
    async list(folder) {
      const entries: FolderEntry[] = [];
      for await (const entry of deno.readDir(folder)) {
        entries.push({
          name: entry.name,
          kind: entry.isFile ? "file" : entry.isDirectory ? "folder" : "other",
        });
      }
      return entries;
    },
    async version(path) {
      const stat = await deno.stat(path);
      return `${stat.dev}:${stat.ino}:${stat.size}:${stat.mtime?.getTime()}:${stat.ctime?.getTime()}`;
    },
  };
}
