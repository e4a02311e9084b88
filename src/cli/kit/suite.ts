/**
 * Simulation suites (`simulate --suite`, `diff --suite`) as the CLI reads
 * them: the check of `src/authoring/suite.ts` with the file's name in the
 * error, and which files `--suite` names (a file, or every `suite.json` and
 * `*.suite.json` below a folder).
 *
 * @module
 */
import type { FileLayer } from "../../io/file_layer.ts";
import type { Issue } from "../../engine/types.ts";
import { CliError } from "./errors.ts";
import { systemErrorCode } from "../../io/system_error.ts";
import { findFiles, FindFilesError } from "../../io/find_files.ts";
import { isRecord } from "../../_internal/guards.ts";
import { checkSuite, type Scenario } from "../../authoring/suite.ts";

/**
 * Checks a suite document read from `file`. Unknown fields are returned as
 * warnings (`UNKNOWN_FIELD`, with the closest known name); with `strict`
 * they make the suite invalid.
 *
 * @throws {CliError} `SUITE_INVALID`, listing every problem.
 */
export function parseSuite(
  document: unknown,
  file: string,
  options: { strict?: boolean } = {},
): { name: string; scenarios: Scenario[]; warnings: Issue[] } {
  if (!isRecord(document)) {
    throw new CliError("SUITE_INVALID", `${file} must be a JSON object with name and scenarios`);
  }
  const { name, scenarios, warnings, problems } = checkSuite(document, options);
  if (problems.length > 0) {
    throw new CliError(
      "SUITE_INVALID",
      `${file} is not a valid simulation suite: ${problems.join("; ")}`,
    );
  }
  return { name: name!, scenarios, warnings };
}

/** What a suite file's name ends with, for `--suite <folder>`. */
export const SUITE_FILE_SUFFIX = ".suite.json";

/**
 * The names of suite files: `suite.json`, the name the README and the
 * walkthrough give their suite, or `*.suite.json`. `--suite <folder>` runs
 * these, and `fmt` and `playground` find these when no suite is named.
 */
export function isSuiteFileName(name: string): boolean {
  return name === "suite.json" || (name.endsWith(SUITE_FILE_SUFFIX) && name !== SUITE_FILE_SUFFIX);
}
/** Most suite files one run takes. */
export const MAX_SUITE_FILES = 1_000;
/** Most folder entries `--suite <folder>` looks at (a folder of build output named by mistake). */
export const MAX_SUITE_FOLDER_ENTRIES = 100_000;

/**
 * The suite files that `--suite` values name, in order: a file as it is; a
 * folder, every `suite.json` and `*.suite.json` below it (symbolic links to folders are not
 * followed), sorted by path. A file named twice runs once. `onFolder` is
 * called with each folder looked at (`simulate --watch` watches them, so a
 * new suite file is seen). With `within` (the working folder), a folder whose
 * real path leads out of it is refused before anything in it is listed.
 *
 * @throws {CliError} `DOCUMENT_READ_ERROR` (a path that does not exist, a
 * folder without suite files, a folder leading out), `SUITE_INVALID` (too
 * many files or entries).
 */
export async function suiteFiles(
  files: FileLayer,
  paths: readonly string[],
  options: { onFolder?: (folder: string) => void; within?: string } = {},
): Promise<string[]> {
  const found: string[] = [];
  for (const given of paths) {
    // Not there (or unreadable): reading it as a file says which, with the usual code.
    if (await files.kind(given) !== "folder") {
      found.push(given);
      continue;
    }
    const inFolder = await suiteFilesBelow(given, options);
    if (inFolder.length === 0) {
      throw new CliError(
        "DOCUMENT_READ_ERROR",
        `no suite.json or *${SUITE_FILE_SUFFIX} file below the folder ${given}`,
        { hint: `name suite files like billing${SUITE_FILE_SUFFIX}, or pass the file itself` },
      );
    }
    found.push(...inFolder);
  }
  const unique = [...new Set(found)];
  if (unique.length > MAX_SUITE_FILES) {
    throw new CliError(
      "SUITE_INVALID",
      `--suite names ${unique.length} suite files; at most ${MAX_SUITE_FILES} run at once`,
    );
  }
  return unique;
}

/** Every suite file below `folder` ({@link isSuiteFileName}), sorted by path (hidden folders included). */
async function suiteFilesBelow(
  folder: string,
  options: { onFolder?: (folder: string) => void; within?: string },
): Promise<string[]> {
  try {
    return await findFiles(folder, isSuiteFileName, {
      enter: () => true,
      maxEntries: MAX_SUITE_FOLDER_ENTRIES,
      unreadable: "throw",
      ...options,
    });
  } catch (error) {
    if (!(error instanceof FindFilesError)) throw error;
    throw error.reason === "unreadable"
      ? new CliError(
        "DOCUMENT_READ_ERROR",
        `cannot list the folder ${error.folder} (${systemErrorCode(error.cause) ?? "unreadable"})`,
      )
      : error.reason === "outside"
      ? folderOutside(error.folder)
      : new CliError(
        "SUITE_INVALID",
        `the folder ${folder} holds over ${MAX_SUITE_FOLDER_ENTRIES} entries; name the folder of the suites`,
      );
  }
}

/**
 * A folder whose real path leads out of the working folder, for the readers
 * confined to it (`policy playground`).
 */
export function folderOutside(folder: string): CliError {
  return new CliError(
    "DOCUMENT_READ_ERROR",
    `cannot list the folder ${folder}: its real path (symbolic links followed) is outside the working folder, and only files inside it are served`,
    { hint: "name a folder inside the working folder, or choose the working folder with -w" },
  );
}
