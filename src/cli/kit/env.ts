/** Reading environment variables through {@link CliIo}, with a clear error when not permitted. */
import type { CliIo } from "../cli_io.ts";
import { CliError } from "./errors.ts";
import { describeThrown } from "../../_internal/describe_thrown.ts";
import { looksLikeSecret } from "../../_internal/check_options.ts";

/** What the name of an environment variable looks like (the JSON Schema of the config uses it too). */
export const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/**
 * What an HMAC secret or a similar key holds: a run of 32 or more hex
 * digits (anywhere: `x<secret>` is a valid name and still a secret). The
 * JSON Schema of the config refuses names that match it; the CLI refuses
 * anything `looksLikeSecret` (this, PEM text, long random base64).
 */
export const SECRET_LIKE = /[0-9a-fA-F]{32}/;

/**
 * True when `value` can be the name of an environment variable and does not
 * look like a secret (a value pasted where a name was expected, such as
 * `--hmac-secret-env "$POLICY_HMAC_SECRET"` or `"x$POLICY_HMAC_SECRET"`).
 * Callers must not print a value this refuses: see {@link envNameProblem}.
 */
export function isEnvName(value: string): boolean {
  return ENV_NAME.test(value) && !looksLikeSecret(value);
}

/**
 * The message for a value given where an environment variable's name was
 * expected (`where`: the flag or configuration field). It never contains
 * the value, which may be a secret.
 */
export function envNameProblem(where: string): string {
  return `${where} takes the NAME of an environment variable (letters, digits and _, such as POLICY_HMAC_SECRET), not a value; what was given is not a variable name, and is not printed since it may be a secret`;
}

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
      `cannot read environment variable ${name}: ${describeThrown(error)}`,
      { hint: `under Deno, add ${name} to --allow-env` },
    );
  }
  return value === undefined || value === "" ? undefined : value;
}
