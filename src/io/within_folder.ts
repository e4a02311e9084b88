/**
 * Confinement to a folder: the `within` option of the file readers
 * (`read_regular_file.ts`, `deno_file_layer.ts`) and of the folder walker
 * (`find_files.ts`). A file or folder is within a folder when its real path
 * (every symbolic link resolved) is inside the folder's real path: a link to
 * a file inside is followed, a link (or a linked folder on the way) leading
 * out is refused. `policy playground` reads with it, since what it reads is
 * sent to any program of the machine that connects (docs/playground.md, "A
 * live view while authoring").
 *
 * A reader checks the file it has open: the real path's file must be the
 * same (device and inode) as the open one, so a link swapped between the
 * open and the check is caught, not read.
 *
 * @module
 */
/** What the check needs of a runtime's file API. */
export interface RealPaths {
  /** The separator of path segments. */
  readonly sep: string;
  /** The real path: absolute, every symbolic link resolved (`realpath(3)`). */
  realPath(path: string): Promise<string>;
  /** What names the file at `path`, symbolic links followed: its device and inode. */
  identity(path: string): Promise<string>;
}

/** The identity {@link RealPaths.identity} gives, of a stat (Node's bigint one or Deno's). */
export function identityOf(stats: { dev: number | bigint; ino: number | bigint | null }): string {
  return `${stats.dev}:${stats.ino}`;
}

/** True when the real path `path` is `folder` or below it (both real paths). */
export function isInside(folder: string, path: string, sep: string): boolean {
  return path === folder || path.startsWith(folder.endsWith(sep) ? folder : folder + sep);
}

/**
 * Where the file at `path`, open as `opened` (its identity), really is:
 * `inside` `folder`, `outside` it, or `replaced` when the path no longer
 * names the file that is open (a rename or link swap meanwhile: the caller
 * looks again or gives up). Rejects with the file system's error when a
 * path cannot be resolved.
 */
export async function locateWithin(
  paths: RealPaths,
  path: string,
  opened: string,
  folder: string,
): Promise<"inside" | "outside" | "replaced"> {
  const realFolder = await paths.realPath(folder);
  const real = await paths.realPath(path);
  if (!isInside(realFolder, real, paths.sep)) return "outside";
  return await paths.identity(real) === opened ? "inside" : "replaced";
}
