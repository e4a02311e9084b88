/**
 * Walks a source tree and collects the evaluation points of every source file.
 *
 * @module
 */
import { DEFAULT_SKIPPED_DIRECTORIES as SKIPPED_DIRECTORIES } from "../io/find_files.ts";
import { ReadFailure, readRegularFile } from "../io/read_regular_file.ts";
import { nodeFs } from "../io/node_fs.ts";
import { PolicyError } from "../public/policy_error.ts";
import type { Discovery, DiscoveryWarning, EvaluationPoint, TypeScriptApi } from "./types.ts";
import { discoverEvaluationPoints } from "./discover_evaluation_points.ts";
import { isSourceFileName } from "./_source_files.ts";
import { compareLocations } from "./_compare_locations.ts";
import { loadTypeScript } from "./_load_typescript.ts";

/**
 * Folder names the scan never enters: installed dependencies and the usual
 * build, bundle and coverage output. Every folder whose name starts with `.`
 * (`.git`, `.next`, `.nuxt`, `.svelte-kit`, `.output`, `.turbo`, `.vercel`,
 * `.cache`...) is skipped as well.
 *
 * @example Dependencies and build output are skipped
 * ```ts
 * import { DEFAULT_SKIPPED_DIRECTORIES } from "./scan_source_tree.ts";
 * import assert from "node:assert/strict";
 *
 * assert.ok(DEFAULT_SKIPPED_DIRECTORIES.includes("node_modules"));
 * ```
 */
export const DEFAULT_SKIPPED_DIRECTORIES: readonly string[] = SKIPPED_DIRECTORIES;

/**
 * Default of {@link ScanSourceTreeOptions.maxFileBytes}: 8 MiB, as `limits.maxFileBytes`.
 *
 * @example The default limit
 * ```ts
 * import { DEFAULT_MAX_SOURCE_FILE_BYTES } from "./scan_source_tree.ts";
 * import assert from "node:assert/strict";
 *
 * assert.equal(DEFAULT_MAX_SOURCE_FILE_BYTES, 8 * 1024 * 1024);
 * ```
 */
export const DEFAULT_MAX_SOURCE_FILE_BYTES = 8_388_608;

/** Options of {@link scanSourceTree}. */
export interface ScanSourceTreeOptions {
  /** Folder names to skip in addition to {@link DEFAULT_SKIPPED_DIRECTORIES} and hidden folders. */
  skipDirectories?: readonly string[];
  /** Larger files are skipped with an `ANALYZE_FILE_TOO_LARGE` warning. Default 8 MiB. */
  maxFileBytes?: number;
  /** The TypeScript compiler API; when absent it is loaded with `import("typescript")`. */
  typescript?: TypeScriptApi;
}

/** What {@link scanSourceTree} finds. */
export interface SourceTreeScan extends Discovery {
  /** How many source files were parsed. */
  filesScanned: number;
}

/**
 * Scans every source file under `root` (`.ts`, `.tsx`, `.mts`, `.cts`, `.js`,
 * `.jsx`, `.mjs`, `.cjs`; declaration files such as `.d.ts` excepted) with
 * {@link discoverEvaluationPoints}.
 *
 * Skips the folders of {@link DEFAULT_SKIPPED_DIRECTORIES}, hidden folders and
 * `options.skipDirectories`; never follows a symbolic link to a folder (no
 * loops, no escaping the tree), but reads a symbolic link to a file. `root`
 * itself is always scanned, whatever its name, and may also be a single file.
 * Files and folders that cannot be read, and files over `maxFileBytes`, are
 * skipped with a warning. File paths in the result are relative to `root`
 * with `/` separators; points and warnings are sorted by file, line and
 * column.
 *
 * Uses `node:fs/promises` only, so it runs under Deno and Node. Under Deno it
 * needs read permission on `root`; loading TypeScript reads a few environment
 * variables, which `--ignore-env=TSC_*,NODE_ENV,NODE_INSPECTOR_IPC,VSCODE_INSPECTOR_OPTIONS`
 * (or `--allow-env` for them) satisfies.
 *
 * @param root The folder (or file) to scan.
 * @param options Skipped folders, size limit, and an already loaded TypeScript module.
 * @throws {PolicyError} `INVALID_OPTIONS` when `root` does not exist or cannot be read.
 *
 * @example Scanning a fixture tree
 * ```ts
 * import { scanSourceTree } from "./scan_source_tree.ts";
 * import assert from "node:assert/strict";
 *
 * const scan = await scanSourceTree("tests/testdata/analyze/sample-service");
 * assert.ok(scan.filesScanned > 0);
 * assert.ok(scan.points.every((point) => !point.file.startsWith("node_modules/")));
 * ```
 */
export async function scanSourceTree(
  root: string,
  options: ScanSourceTreeOptions = {},
): Promise<SourceTreeScan> {
  const skipped = new Set([...DEFAULT_SKIPPED_DIRECTORIES, ...(options.skipDirectories ?? [])]);
  const maxFileBytes = options.maxFileBytes ?? DEFAULT_MAX_SOURCE_FILE_BYTES;
  const points: EvaluationPoint[] = [];
  const warnings: DiscoveryWarning[] = [];
  let filesScanned = 0;

  // node:fs and node:path load on first use: the `policy` command bundles this module.
  const { fs, path: paths } = await nodeFs();
  const { basename, join } = paths;
  let rootIsFile: boolean;
  try {
    const info = await fs.stat(root);
    if (!info.isDirectory() && !info.isFile()) throw new Error("not a folder or a file");
    rootIsFile = info.isFile();
  } catch (cause) {
    throw new PolicyError(
      "INVALID_OPTIONS",
      `cannot read the source folder "${root}" (${_describeError(cause)}); pass an existing folder`,
      { cause },
    );
  }

  const ts = options.typescript ?? await loadTypeScript();

  const warnAbout = (file: string, code: DiscoveryWarning["code"], message: string) => {
    warnings.push({ code, message, file, line: 1, column: 1 });
  };

  const scanFile = async (path: string, file: string): Promise<void> => {
    let text: string;
    try {
      // Only a regular file, never more than the limit (a pipe would block).
      text = new TextDecoder().decode((await readRegularFile(path, maxFileBytes)).bytes);
    } catch (cause) {
      if (cause instanceof ReadFailure && cause.reason === "too-large") {
        warnAbout(
          file,
          "ANALYZE_FILE_TOO_LARGE",
          `skipped: ${cause.size} bytes is over the limit of ${maxFileBytes}; raise maxFileBytes to scan it`,
        );
      } else {
        warnAbout(file, "ANALYZE_FILE_UNREADABLE", `skipped: ${_describeError(cause)}`);
      }
      return;
    }
    filesScanned++;
    const found = discoverEvaluationPoints(file, text, ts);
    points.push(...found.points);
    warnings.push(...found.warnings);
  };

  const walk = async (folder: string): Promise<void> => {
    let entries;
    try {
      entries = await fs.readdir(folder, { withFileTypes: true });
    } catch (cause) {
      warnAbout(
        _relativePath(paths, root, folder),
        "ANALYZE_FILE_UNREADABLE",
        `skipped folder: ${_describeError(cause)}`,
      );
      return;
    }
    const names = entries.map((entry) => entry.name).sort(_compareText);
    const byName = new Map(entries.map((entry) => [entry.name, entry]));
    for (const name of names) {
      const entry = byName.get(name)!;
      const path = join(folder, name);
      if (entry.isDirectory()) {
        if (!name.startsWith(".") && !skipped.has(name)) await walk(path);
      } else if (isSourceFileName(name)) {
        if (entry.isFile() || (entry.isSymbolicLink() && await _isFileThroughLink(fs, path))) {
          await scanFile(path, _relativePath(paths, root, path));
        }
      }
    }
  };

  if (rootIsFile) {
    await scanFile(root, basename(root));
  } else {
    await walk(root);
  }

  points.sort(compareLocations);
  warnings.sort((a, b) => compareLocations(a, b) || _compareText(a.code, b.code));
  return { points, warnings, filesScanned };
}

/** True when `path` (a symbolic link) leads to a regular file. Broken links are false. */
async function _isFileThroughLink(
  fs: { stat(path: string): Promise<{ isFile(): boolean }> },
  path: string,
): Promise<boolean> {
  try {
    return (await fs.stat(path)).isFile();
  } catch {
    return false; // a broken link: nothing to scan
  }
}

function _relativePath(
  { relative, sep }: { relative(from: string, to: string): string; sep: string },
  root: string,
  path: string,
): string {
  const relativePath = relative(root, path);
  return sep === "/" ? relativePath : relativePath.split(sep).join("/");
}

function _compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function _describeError(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return typeof code === "string" && !error.message.startsWith(code)
      ? `${code}: ${error.message}`
      : error.message;
  }
  return String(error);
}
