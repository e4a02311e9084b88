/**
 * The one way the CLI writes a file: {@link writeFileAtomicCore} (temporary
 * file, flush, rename), with failures as `CliError`s.
 *
 * @module
 */
import {
  writeFileAtomic as writeFileAtomicCore,
  type WriteFileAtomicOptions,
} from "../../io/write_file_atomic.ts";
import { CliError } from "./errors.ts";
import { describeThrown } from "../../_internal/describe_thrown.ts";

export { STALE_TEMPORARY_MS } from "../../io/write_file_atomic.ts";

/** Options of {@link writeFileAtomic}. */
export interface AtomicWriteOptions extends WriteFileAtomicOptions {
  /** The error thrown when `overwrite` is false and the file exists. */
  onExists?: (target: string) => Error;
}

/**
 * Writes `data` to `target` atomically.
 *
 * @throws {CliError} `WRITE_ERROR`, or the error of `onExists`.
 */
export async function writeFileAtomic(
  target: string,
  data: string | Uint8Array,
  options: AtomicWriteOptions = {},
): Promise<void> {
  try {
    await writeFileAtomicCore(target, data, options);
  } catch (error) {
    if ((error as { code?: string }).code === "EEXIST" && options.overwrite === false) {
      throw options.onExists?.(target) ??
        new CliError("WRITE_ERROR", `${target} already exists; it was not replaced`);
    }
    throw new CliError(
      "WRITE_ERROR",
      `cannot write ${target}: ${describeThrown(error)}`,
    );
  }
}
