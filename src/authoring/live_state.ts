// This module is browser compatible.
/**
 * What `policy playground` pushes to the page (docs/playground.md, "A live
 * view while authoring"): the working folder's document and suites. The
 * server (`src/cli/commands/playground/playground_server.ts`) sends it as JSON; the page
 * reads it back with {@link parseLiveState}.
 *
 * @module
 */
import { parseJson } from "../engine/parse_json.ts";
import { isRecord } from "../_internal/guards.ts";

/** A file of the working folder, as the page receives it. */
export interface LiveFile {
  /** Its absolute path. */
  path: string;
  /** Its path from the working folder. */
  relativePath: string;
  /** Its text; null when it could not be read. */
  text: string | null;
  /** Why it could not be read, or null. */
  error: { code: string; message: string } | null;
}

/** What the server pushes: the working folder's document and suites. */
export interface LiveState {
  version: 1;
  /** The working folder (absolute). */
  workingFolder: string;
  /** The draft, or the bundle when there is no draft; null when there is neither. */
  document: LiveFile | null;
  /** The suites found. */
  suites: LiveFile[];
}

/**
 * Reads a pushed state (the server is local, but what it sends is still
 * parsed with `parseJson` and checked).
 *
 * @throws {Error} When the data is not a live state.
 */
export function parseLiveState(data: string): LiveState {
  const value = parseJson(data);
  if (!isRecord(value) || value.version !== 1 || typeof value.workingFolder !== "string") {
    throw new Error("the server sent something else than a playground state");
  }
  const file = (f: unknown): LiveFile => {
    if (!isRecord(f) || typeof f.path !== "string") {
      throw new Error("a file of the state has no path");
    }
    const error = isRecord(f.error) && typeof f.error.code === "string" &&
        typeof f.error.message === "string"
      ? { code: f.error.code, message: f.error.message }
      : null;
    return {
      path: f.path,
      relativePath: typeof f.relativePath === "string" ? f.relativePath : f.path,
      text: typeof f.text === "string" ? f.text : null,
      error,
    };
  };
  return {
    version: 1,
    workingFolder: value.workingFolder,
    document: value.document === null ? null : file(value.document),
    suites: Array.isArray(value.suites) ? value.suites.map(file) : [],
  };
}
