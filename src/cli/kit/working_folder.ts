/**
 * The working folder (`docs/cli.md`, "Working folder and paths") and the
 * user file `$POLICY_HOME/config.json` that persists it.
 *
 * @module
 */
import type { CommandIo } from "../cli_io.ts";
import type { FileLayer } from "../../io/file_layer.ts";
import { nodeFs } from "../../io/node_fs.ts";
import { readEnv } from "./env.ts";
import { CliError } from "./errors.ts";
import { parseJsoncObject } from "./jsonc.ts";
import { DEFAULT_MAX_FILE_BYTES, exists, readTextDocument } from "./read_document.ts";
import { writeFileAtomic } from "./atomic_write.ts";
import { describeThrown } from "../../_internal/describe_thrown.ts";

/** Where the working folder came from, in resolution order. */
export type WorkingFolderSource = "flag" | "env" | "user-config" | "cwd";

/** The resolved working folder. */
export interface WorkingFolder {
  /** Absolute path. */
  path: string;
  source: WorkingFolderSource;
}

/** How each source is described to people. */
export const SOURCE_LABELS: Readonly<Record<WorkingFolderSource, string>> = Object.freeze({
  flag: "--working-folder flag",
  env: "POLICY_WORKING_FOLDER",
  "user-config": "persisted user config",
  cwd: "current folder",
});

/** `$POLICY_HOME`, else `~/.policy`; undefined when no home folder is known. */
export function policyHome(io: CommandIo): string | undefined {
  const { path } = io.files;
  const home = readEnv(io, "POLICY_HOME");
  if (home !== undefined) return path.resolve(io.cwd, home);
  const user = readEnv(io, "HOME") ?? readEnv(io, "USERPROFILE");
  return user === undefined ? undefined : path.join(user, ".policy");
}

/** The user config file, or undefined when no home folder is known. */
export function userConfigPath(io: CommandIo): string | undefined {
  const home = policyHome(io);
  return home === undefined ? undefined : io.files.path.join(home, "config.json");
}

/** How to recover from a user config that cannot be used. */
const REPAIR_HINT =
  "fix the file, or run 'policy working-folder reset' (or 'set <path>') to start it over; the damaged file is kept beside it";

/**
 * Reads the user config; an absent file is an empty object.
 *
 * @throws {CliError} `CONFIG_INVALID` (with how to start it over) when it
 * is not a JSON object or `workingFolder` is not a non-empty string;
 * `DOCUMENT_READ_ERROR`.
 */
export async function readUserConfig(
  files: FileLayer,
  file: string,
): Promise<Record<string, unknown>> {
  if (!(await exists(files, file))) return {};
  const text = await readTextDocument(files, file, "config", DEFAULT_MAX_FILE_BYTES);
  let config: Record<string, unknown>;
  try {
    config = parseJsoncObject(text, file);
  } catch (error) {
    if (!(error instanceof CliError)) throw error;
    throw new CliError(error.code, error.message, { hint: REPAIR_HINT });
  }
  const folder = config.workingFolder;
  if (folder !== undefined && (typeof folder !== "string" || folder === "")) {
    throw new CliError(
      "CONFIG_INVALID",
      `${file}: workingFolder must be a non-empty string (the path of the working folder)`,
      { hint: REPAIR_HINT },
    );
  }
  return config;
}

/**
 * Reads the user config to change it (`working-folder set` and `reset`). A
 * file that cannot be used is not an obstacle to replacing it: it is moved
 * aside to `config.json.damaged-<time>` and the change starts from an empty
 * file; `moved` says where it went.
 */
export async function readUserConfigForChange(
  files: FileLayer,
  file: string,
  now: Date,
): Promise<{ config: Record<string, unknown>; moved: string | null }> {
  try {
    return { config: await readUserConfig(files, file), moved: null };
  } catch (error) {
    if (!(error instanceof CliError) || error.code !== "CONFIG_INVALID") throw error;
    const moved = `${file}.damaged-${now.toISOString().replace(/[:.]/g, "-")}`;
    const { fs } = await nodeFs();
    await fs.rename(file, moved).catch((cause) => {
      throw new CliError("WRITE_ERROR", `cannot move ${file} aside: ${describeThrown(cause)}`);
    });
    return { config: {}, moved };
  }
}

/** Writes the user config atomically, creating `$POLICY_HOME` if needed. */
export async function writeUserConfig(file: string, data: Record<string, unknown>): Promise<void> {
  await writeFileAtomic(file, JSON.stringify(data, null, 2) + "\n", { createParents: true });
}

/**
 * Resolves the working folder: 1. `--working-folder`; 2. `POLICY_WORKING_FOLDER`;
 * 3. `workingFolder` of the user config; 4. the current folder. Relative
 * values resolve from the current folder.
 *
 * The user config is read only when neither the flag nor the variable is
 * given, so a damaged one stops only the commands that would use it.
 *
 * @throws {CliError} `CONFIG_INVALID` when the user config cannot be used.
 */
export async function resolveWorkingFolder(
  flag: string | undefined,
  io: CommandIo,
): Promise<WorkingFolder> {
  const { path } = io.files;
  if (flag !== undefined && flag !== "") {
    return { path: path.resolve(io.cwd, flag), source: "flag" };
  }
  const env = readEnv(io, "POLICY_WORKING_FOLDER");
  if (env !== undefined) return { path: path.resolve(io.cwd, env), source: "env" };
  const file = userConfigPath(io);
  if (file !== undefined) {
    const persisted = (await readUserConfig(io.files, file)).workingFolder;
    if (typeof persisted === "string") {
      return { path: path.resolve(io.cwd, persisted), source: "user-config" };
    }
  }
  return { path: path.resolve(io.cwd), source: "cwd" };
}

/** True when `folder` is an existing directory. */
export async function isDirectory(files: FileLayer, folder: string): Promise<boolean> {
  return await files.kind(folder) === "folder";
}

/**
 * Checks that the working folder exists.
 *
 * @throws {CliError} `WORKING_FOLDER_NOT_FOUND`.
 */
export async function requireWorkingFolder(
  files: FileLayer,
  folder: WorkingFolder,
): Promise<void> {
  if (!(await isDirectory(files, folder.path))) {
    throw new CliError(
      "WORKING_FOLDER_NOT_FOUND",
      `the working folder ${folder.path} (from ${
        SOURCE_LABELS[folder.source]
      }) is not an existing folder`,
      {
        hint: "create it, pass --working-folder <path>, or run 'policy working-folder set <path>'",
      },
    );
  }
}
