/** Reading environment variables through {@link CliIo}, with a clear error when not permitted. */
import type { CliIo } from "./cli_io.ts";
import { CliError } from "./_errors.ts";

/**
 * The value of an environment variable; an empty value counts as unset.
 *
 * @throws {CliError} `ENV_NOT_PERMITTED` when the runtime refuses to read it.
 */
export function readEnv(io: CliIo, name: string): string | undefined {
  let value: string | undefined;
  try {
    value = io.env(name);
  } catch (error) {
    throw new CliError(
      "ENV_NOT_PERMITTED",
      `cannot read environment variable ${name}: ${(error as Error).message ?? String(error)}`,
      { hint: `under Deno, add ${name} to --allow-env` },
    );
  }
  return value === undefined || value === "" ? undefined : value;
}
