/**
 * Finding files below a folder by name: the one folder walker of the CLI
 * (`simulate --suite <folder>`, `fmt`, `playground`). Symbolic links to
 * folders are never followed (no cycles, nothing outside the tree; with
 * `within`, no folder is listed whose real path leads out, the folder given
 * included), the walk keeps no call stack whatever the depth, and the result
 * is sorted by path, segment by segment (a folder's files come together), so
 * it is the same on every machine. Uses `node:` built-ins only.
 *
 * @module
 */
import { nodeFs } from "./node_fs.ts";
import { isInside } from "./within_folder.ts";

/**
 * Folder names a walk of a project does not enter by default: dependencies
 * and build output (hidden folders, `.git` among them, neither).
 */
export const DEFAULT_SKIPPED_DIRECTORIES: readonly string[] = [
  "node_modules",
  "bower_components",
  "jspm_packages",
  "dist",
  "build",
  "out",
  "npm",
  "coverage",
  "storybook-static",
];

/** Options of {@link findFiles}. */
export interface FindFilesOptions {
  /**
   * Whether to enter a folder, by its name. Default: every folder but hidden
   * ones and those of {@link DEFAULT_SKIPPED_DIRECTORIES}.
   */
  enter?: (name: string) => boolean;
  /** Called with each folder as it is listed (the folder given first). */
  onFolder?: (folder: string) => void;
  /** Most entries (files and folders) looked at in all; beyond, {@link FindFilesError}. */
  maxEntries?: number;
  /** A folder that cannot be listed: left out (`skip`, the default) or a {@link FindFilesError}. */
  unreadable?: "skip" | "throw";
  /**
   * A folder every folder listed must be within: its real path (symbolic
   * links followed) inside this folder's, else {@link FindFilesError}
   * `outside` before anything of it is listed (see `within_folder.ts`).
   */
  within?: string;
}

/** Why {@link findFiles} stopped. */
export type FindFilesFailure = "unreadable" | "too-many-entries" | "outside";

/**
 * Why {@link findFiles} stopped: a folder it could not list, too many
 * entries, or a folder whose real path is not within the `within` folder.
 */
export class FindFilesError extends Error {
  /** `unreadable`, `too-many-entries` or `outside`. */
  readonly reason: FindFilesFailure;
  /** The folder listed (`unreadable`, `outside`), or the folder given (`too-many-entries`). */
  readonly folder: string;

  /** Creates the error; `cause` is the file system's error of an unreadable folder. */
  constructor(reason: FindFilesFailure, folder: string, cause?: unknown) {
    super(
      reason === "unreadable"
        ? `cannot list the folder ${folder}`
        : reason === "outside"
        ? `the folder ${folder} leads outside (its real path, symbolic links followed)`
        : `too many entries in ${folder}`,
      cause === undefined ? undefined : { cause },
    );
    this.name = "FindFilesError";
    this.reason = reason;
    this.folder = folder;
  }
}

/** True for a folder a walk of a project enters by default. */
function projectFolder(name: string): boolean {
  return !name.startsWith(".") && !DEFAULT_SKIPPED_DIRECTORIES.includes(name);
}

/**
 * The paths of the entries below `folder` that are not folders and whose
 * name `matches` (symbolic links to files among them: the caller decides
 * what to do with them), sorted by path segment by segment.
 *
 * @throws {FindFilesError} with `maxEntries`, `within`, or `unreadable: "throw"`.
 */
export async function findFiles(
  folder: string,
  matches: (name: string) => boolean,
  options: FindFilesOptions = {},
): Promise<string[]> {
  const { fs, path } = await nodeFs();
  const enter = options.enter ?? projectFolder;
  const maxEntries = options.maxEntries ?? Infinity;
  const found: string[] = [];
  const pending = [folder];
  let entries = 0;
  let realWithin: string | undefined;
  while (pending.length > 0) {
    const current = pending.pop()!;
    options.onFolder?.(current);
    let listing;
    try {
      if (options.within !== undefined) {
        realWithin ??= await fs.realpath(options.within);
        if (!isInside(realWithin, await fs.realpath(current), path.sep)) {
          throw new FindFilesError("outside", current);
        }
      }
      listing = await fs.readdir(current, { withFileTypes: true });
    } catch (error) {
      if (error instanceof FindFilesError) throw error;
      if (options.unreadable === "throw") throw new FindFilesError("unreadable", current, error);
      continue;
    }
    for (const entry of listing) {
      if (++entries > maxEntries) throw new FindFilesError("too-many-entries", folder);
      const at = path.join(current, entry.name);
      if (entry.isDirectory()) {
        if (enter(entry.name)) pending.push(at);
      } else if (matches(entry.name)) {
        found.push(at);
      }
    }
  }
  const key = (file: string) => path.relative(folder, file).split(path.sep);
  return found.sort((a, b) => compareSegments(key(a), key(b)));
}

function compareSegments(a: readonly string[], b: readonly string[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    if (a[i] !== b[i]) return a[i]! < b[i]! ? -1 : 1;
  }
  return a.length - b.length;
}
