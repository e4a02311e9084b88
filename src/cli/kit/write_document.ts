/**
 * The one guarded write path of the working folder's documents (the draft,
 * the bundle): the size is checked against `limits.maxFileBytes` before
 * anything is written (what the CLI and the runtime could not read back is
 * never written), the command must still hold the working folder's lock,
 * and the file is replaced atomically, keeping its mode and owner (see
 * `src/io/write_file_atomic.ts`). See `docs/cli.md`, "Writing files".
 *
 * @module
 */
import { PolicyError } from "../../public/policy_error.ts";
import { type AtomicWriteOptions, writeFileAtomic } from "./atomic_write.ts";
import { CliError } from "./errors.ts";
import type { DocumentKind } from "./read_document.ts";
import type { WorkingFolderLock } from "./working_folder_lock.ts";

/** Options of {@link writeDocument}. */
export interface WriteDocumentOptions extends AtomicWriteOptions {
  /** What the document is: bundles get the `BUNDLE_*` codes. */
  kind: DocumentKind;
  /** `limits.maxFileBytes`. */
  maxBytes: number;
  /** The working folder's lock, which must still be this command's. */
  lock: WorkingFolderLock;
}

/**
 * Writes `text` to `file` if it fits in `maxBytes` and the lock is still held.
 *
 * @throws {PolicyError|CliError} `BUNDLE_TOO_LARGE` (bundles) or
 * `DOCUMENT_TOO_LARGE`, with nothing written; `WORKING_FOLDER_LOCKED`;
 * `WRITE_ERROR`, or the error of `onExists`.
 */
export async function writeDocument(
  file: string,
  text: string,
  options: WriteDocumentOptions,
): Promise<void> {
  const { kind, maxBytes, lock, ...write } = options;
  const bytes = new TextEncoder().encode(text);
  checkDocumentSize(file, kind, bytes.byteLength, maxBytes);
  await lock.assertHeld();
  await writeFileAtomic(file, bytes, write);
}

/**
 * Refuses a document of `size` bytes over `maxBytes`: what the CLI and the
 * runtime could not read back is never written.
 *
 * @throws {PolicyError|CliError} `BUNDLE_TOO_LARGE` (bundles) or `DOCUMENT_TOO_LARGE`.
 */
export function checkDocumentSize(
  file: string,
  kind: DocumentKind,
  size: number,
  maxBytes: number,
): void {
  if (size <= maxBytes) return;
  const message =
    `the ${kind} ${file} would be ${size} bytes, over limits.maxFileBytes (${maxBytes} bytes), so neither the CLI nor a client could read it; nothing was written (split the policies, or raise limits.maxFileBytes here and maxFileBytes in the clients)`;
  throw kind === "bundle"
    ? new PolicyError("BUNDLE_TOO_LARGE", message)
    : new CliError("DOCUMENT_TOO_LARGE", message);
}
