/**
 * Finding files below a folder by name, the way the CLI looks for its
 * documents in a project: dependency and build folders and hidden folders
 * are not entered, nor are symbolic links to folders (no cycles, nothing
 * outside the tree), and the result is sorted, so it is the same on every
 * machine. Uses `node:` built-ins only.
 *
 * @module
 */
import { nodeFs } from "./node_fs.ts";

/**
 * Folder names never entered: dependencies and build output (hidden folders,
 * `.git` among them, are never entered either).
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
  /** Folder names to skip besides {@link DEFAULT_SKIPPED_DIRECTORIES} and hidden folders. */
  skipDirectories?: readonly string[];
}

/**
 * The paths of the entries below `folder` (not folders) whose name
 * `matches`, sorted; symbolic links to files are listed (the caller decides
 * what to do with them). A folder that cannot be read is left out.
 */
export async function findFiles(
  folder: string,
  matches: (name: string) => boolean,
  options: FindFilesOptions = {},
): Promise<string[]> {
  const { fs, path } = await nodeFs();
  const skipped = new Set([...DEFAULT_SKIPPED_DIRECTORIES, ...(options.skipDirectories ?? [])]);
  const found: string[] = [];
  const pending = [folder];
  while (pending.length > 0) {
    const current = pending.pop()!;
    const entries = await fs.readdir(current, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      const at = path.join(current, entry.name);
      if (entry.isDirectory()) {
        if (!entry.name.startsWith(".") && !skipped.has(entry.name)) pending.push(at);
      } else if (matches(entry.name)) {
        found.push(at);
      }
    }
  }
  return found.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}
