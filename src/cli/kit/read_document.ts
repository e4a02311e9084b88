/**
 * Reading the documents the CLI works on: the size limit is checked before
 * a file is read whole (`limits.maxFileBytes`), then the text is decoded as
 * UTF-8 and, for JSON documents, parsed: bundles as strict JSON (what the
 * runtime reads), the documents people write (drafts, rules, suites,
 * configuration, imports) as JSON with comments and trailing commas.
 * Failures carry stable codes.
 *
 * @module
 */
import { JsonParseError, parseJson } from "../../engine/parse_json.ts";
import { ReadFailure, type ReadOptions } from "../../io/read_regular_file.ts";
import type { FileLayer } from "../../io/file_layer.ts";
import { PolicyError } from "../../public/policy_error.ts";
import { CliError } from "./errors.ts";
import { describeThrown } from "../../_internal/describe_thrown.ts";

/** `limits.maxFileBytes` default: 8 MiB. */
export const DEFAULT_MAX_FILE_BYTES = 8_388_608;

/** What a document is, for messages and error codes. Bundles get the `BUNDLE_*` codes. */
export type DocumentKind =
  | "bundle"
  | "draft"
  | "document"
  | "rule"
  | "suite"
  | "requests"
  | "import"
  | "private key"
  | "public key"
  | "config"
  | "license";

/**
 * Reads a file of at most `maxBytes` bytes: only a regular file (a pipe,
 * device or socket is refused at once, see `readRegularFile`); with
 * `options.within` (the working folder), only one whose real path is inside.
 *
 * @throws {PolicyError|CliError} `BUNDLE_READ_ERROR`/`BUNDLE_TOO_LARGE` for
 * bundles, `DOCUMENT_READ_ERROR`/`DOCUMENT_TOO_LARGE` otherwise.
 */
export async function readDocumentBytes(
  files: FileLayer,
  path: string,
  kind: DocumentKind,
  maxBytes: number,
  options: ReadOptions = {},
): Promise<Uint8Array> {
  try {
    return await files.readRegularFile(path, maxBytes, options);
  } catch (error) {
    if (error instanceof ReadFailure && error.reason === "too-large") {
      throw tooLarge(kind, path, maxBytes, error.size);
    }
    throw readError(kind, path, error);
  }
}

/**
 * Reads a UTF-8 text file of at most `maxBytes` bytes (see
 * {@link readDocumentBytes}); a byte-order mark is dropped.
 *
 * @throws {PolicyError|CliError} the codes of {@link readDocumentBytes}, and
 * `BUNDLE_PARSE_ERROR`/`DOCUMENT_PARSE_ERROR` when it is not UTF-8.
 */
export async function readTextDocument(
  files: FileLayer,
  path: string,
  kind: DocumentKind,
  maxBytes: number,
  options: ReadOptions = {},
): Promise<string> {
  const bytes = await readDocumentBytes(files, path, kind, maxBytes, options);
  try {
    const text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  } catch {
    throw parseError(kind, path, "it is not UTF-8 text");
  }
}

/** A parsed JSON document. */
export interface JsonDocument {
  value: unknown;
  /** The text has comments or trailing commas (JSONC), which a rewrite does not keep. */
  commented: boolean;
}

/**
 * Parses the text of a document: strict JSON for bundles, JSON with
 * comments and trailing commas for every other kind.
 *
 * @throws {PolicyError|CliError} `BUNDLE_PARSE_ERROR` or
 * `DOCUMENT_PARSE_ERROR`, naming the line and column, never the text.
 */
export function parseDocumentText(text: string, kind: DocumentKind, path: string): JsonDocument {
  try {
    return { value: parseJson(text), commented: false };
  } catch (error) {
    if (!(error instanceof JsonParseError)) throw error;
    if (kind === "bundle") {
      throw parseError(kind, path, `it is not JSON (${error.message}); bundles are strict JSON`);
    }
  }
  try {
    return { value: parseJson(text, { comments: true }), commented: true };
  } catch (error) {
    throw parseError(kind, path, `it is not JSON (${describeThrown(error)})`);
  }
}

/**
 * Reads and parses a JSON document of at most `maxBytes` bytes (see
 * {@link parseDocumentText}).
 *
 * @throws {PolicyError|CliError} the codes of {@link readTextDocument} and
 * {@link parseDocumentText}.
 */
export async function readJsonDocument(
  files: FileLayer,
  path: string,
  kind: DocumentKind,
  maxBytes: number,
): Promise<JsonDocument> {
  return parseDocumentText(await readTextDocument(files, path, kind, maxBytes), kind, path);
}

/** True when something exists at `path` (a dangling symlink included). */
export function exists(files: FileLayer, path: string): Promise<boolean> {
  return files.exists(path);
}

function readError(kind: DocumentKind, path: string, error: unknown): Error {
  const why = !(error instanceof ReadFailure)
    ? String(error)
    : error.reason === "missing"
    ? "it does not exist"
    : error.reason === "folder"
    ? "it is a folder, not a file"
    : error.reason === "not-regular"
    ? "it is not a regular file (a pipe, device or socket)"
    : error.reason === "denied"
    ? "permission denied"
    : error.reason === "outside"
    ? "its real path (symbolic links followed) is outside the working folder, and only files " +
      "inside it are served: copy the file into it, or choose the folder that holds it with -w"
    : error.message;
  const message = `cannot read ${kind} ${path}: ${why}`;
  return kind === "bundle"
    ? new PolicyError("BUNDLE_READ_ERROR", message)
    : new CliError("DOCUMENT_READ_ERROR", message);
}

function tooLarge(kind: DocumentKind, path: string, max: number, size: number): Error {
  const message =
    `${kind} ${path} is ${size} bytes or more, over limits.maxFileBytes (${max} bytes); raise the limit in policy.config.json if the file is expected to be this large`;
  return kind === "bundle"
    ? new PolicyError("BUNDLE_TOO_LARGE", message)
    : new CliError("DOCUMENT_TOO_LARGE", message);
}

function parseError(kind: DocumentKind, path: string, why: string): Error {
  const message = `cannot parse ${kind} ${path}: ${why}`;
  return kind === "bundle"
    ? new PolicyError("BUNDLE_PARSE_ERROR", message)
    : new CliError("DOCUMENT_PARSE_ERROR", message);
}
