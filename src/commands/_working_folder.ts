/**
 * The working folder (SPEC.md "Working folder resolution order") and the
 * user file `$POLICY_HOME/config.json` that persists it.
 *
 * @module
 */
import * as fs from "node:fs/promises";
import * as path from "node:path";
import type { CliIo } from "./cli_io.ts";
import { readEnv } from "./_env.ts";
import { CliError } from "./_errors.ts";
import { parseJsoncObject } from "./_jsonc.ts";
import { DEFAULT_MAX_FILE_BYTES, exists, readTextDocument } from "./_read_document.ts";
import { writeFileAtomic } from "./_atomic_write.ts";

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
export function policyHome(io: CliIo): string | undefined {
  const home = readEnv(io, "POLICY_HOME");
  if (home !== undefined) return path.resolve(io.cwd, home);
  const user = readEnv(io, "HOME") ?? readEnv(io, "USERPROFILE");
  return user === undefined ? undefined : path.join(user, ".policy");
}

/** The user config file, or undefined when no home folder is known. */
export function userConfigPath(io: CliIo): string | undefined {
  const home = policyHome(io);
  return home === undefined ? undefined : path.join(home, "config.json");
}

/** Reads the user config; an absent file is an empty object. */
export async function readUserConfig(file: string): Promise<Record<string, unknown>> {
  if (!(await exists(file))) return {};
  const text = await readTextDocument(file, "config", DEFAULT_MAX_FILE_BYTES);
  return parseJsoncObject(text, file);
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
 * @throws {CliError} `CONFIG_INVALID` when the user config is not JSON.
 */
export async function resolveWorkingFolder(
  flag: string | undefined,
  io: CliIo,
): Promise<WorkingFolder> {
  if (flag !== undefined && flag !== "") {
    return { path: path.resolve(io.cwd, flag), source: "flag" };
  }
  const env = readEnv(io, "POLICY_WORKING_FOLDER");
  if (env !== undefined) return { path: path.resolve(io.cwd, env), source: "env" };
  const file = userConfigPath(io);
  if (file !== undefined) {
    const persisted = (await readUserConfig(file)).workingFolder;
    if (typeof persisted === "string" && persisted !== "") {
      return { path: path.resolve(io.cwd, persisted), source: "user-config" };
    }
  }
  return { path: path.resolve(io.cwd), source: "cwd" };
}

/** True when `folder` is an existing directory. */
export async function isDirectory(folder: string): Promise<boolean> {
  try {
    return (await fs.stat(folder)).isDirectory();
  } catch {
    return false;
  }
}

/**
 * Checks that the working folder exists.
 *
 * @throws {CliError} `WORKING_FOLDER_NOT_FOUND`.
 */
export async function requireWorkingFolder(folder: WorkingFolder): Promise<void> {
  if (!(await isDirectory(folder.path))) {
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
