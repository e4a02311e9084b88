/**
 * The CLI's own error codes and the one table that maps every error code
 * (the library's and the CLI's) to an exit code (`docs/cli.md`, "Exit codes").
 *
 * @module
 */
import { ERROR_CODES, isPolicyError, type PolicyError } from "../../public/policy_error.ts";
import { restateError } from "../../_internal/restate_error.ts";
import { describeThrown } from "../../_internal/describe_thrown.ts";

/** Error codes the CLI adds to the library's (documented in `docs/cli.md`). */
export const CLI_ERROR_CODES = [
  "USAGE_ERROR",
  "CONFIG_NOT_FOUND",
  "CONFIG_INVALID",
  "WORKING_FOLDER_NOT_FOUND",
  "WORKING_FOLDER_LOCKED",
  "ENV_NOT_PERMITTED",
  "DOCUMENT_READ_ERROR",
  "DOCUMENT_PARSE_ERROR",
  "DOCUMENT_TOO_LARGE",
  "WRITE_ERROR",
  "DRAFT_INVALID",
  "DRAFT_EXISTS",
  "SIGNATURE_DOWNGRADE",
  "POLICY_NOT_FOUND",
  "POLICY_EXISTS",
  "RULE_NOT_FOUND",
  "RULE_INVALID",
  "DEFAULTS_INVALID",
  "DUPLICATE_RULE_ID",
  "IMPORT_UNMAPPABLE",
  "IMPORT_CONFLICT",
  "SUITE_INVALID",
  "REQUESTS_INVALID",
  "SIMULATION_FAILED",
  "COVERAGE_BELOW_THRESHOLD",
  "CHANGE_DETECTED",
  "VALIDATION_FAILED",
  "FORMAT_CHECK_FAILED",
  "PARITY_FAILED",
  "BUNDLE_VERSION_EXHAUSTED",
  "SIGNING_KEY_MISSING",
  "PUBLIC_KEY_MISSING",
  "KEY_EXISTS",
  "ANALYZE_FAILED",
  "PLAYGROUND_UNAVAILABLE",
  "INTERNAL_ERROR",
] as const;

/** An error code the CLI adds. */
export type CliErrorCode = typeof CLI_ERROR_CODES[number];

/** The exit codes (`docs/cli.md`, "Exit codes"). */
export type ExitCode = 0 | 1 | 2 | 3 | 4;

/** Exit code 0: success. */
export const EXIT_OK = 0;
/** Exit code 1: a check failed. */
export const EXIT_CHECK_FAILED = 1;
/** Exit code 2: usage or configuration error, unreadable input. */
export const EXIT_USAGE = 2;
/** Exit code 3: licence refused. */
export const EXIT_LICENSE = 3;
/** Exit code 4: the checks passed, but fewer rules were exercised than a threshold asks. */
export const EXIT_BELOW_THRESHOLD = 4;

/**
 * THE table: error code → exit code. 1 = a check on a document failed;
 * 2 = the invocation, the configuration or an input file is wrong;
 * 3 = licence refused; 4 = below a threshold. A test checks that every code
 * of the library and of the CLI has an entry. A command whose own check is
 * something else than its inputs (`simulate`) reads it through
 * {@link exitCodeWhenNotRun}.
 */
export const EXIT_CODES: Readonly<Record<string, ExitCode>> = Object.freeze({
  // Checks that failed (1)
  BUNDLE_INVALID: 1,
  CHECKSUM_MISMATCH: 1,
  BUNDLE_UNSIGNED: 1,
  BUNDLE_SIGNATURE_MISSING: 1,
  BUNDLE_SIGNATURE_UNVERIFIED: 1,
  BUNDLE_SIGNATURE_INVALID: 1,
  BUNDLE_SIGNATURE_KEY_UNKNOWN: 1,
  BUNDLE_SIGNATURE_ALGORITHM_MISMATCH: 1,
  BUNDLE_SIGNATURE_ALGORITHM_REMOVED: 1,
  BUNDLE_SCOPE_MISMATCH: 1,
  BUNDLE_VERSION_ROLLBACK: 1,
  BUNDLE_STALE: 1,
  BUNDLE_FRESHNESS_INVALID: 1,
  BUNDLE_FRESHNESS_MISSING: 1,
  BUNDLE_EXPIRED: 1,
  CONTEXT_KEY_NOT_ALLOWED: 1,
  DRAFT_INVALID: 1,
  POLICY_NOT_FOUND: 1,
  POLICY_EXISTS: 1,
  RULE_NOT_FOUND: 1,
  RULE_INVALID: 1,
  DEFAULTS_INVALID: 1,
  DUPLICATE_RULE_ID: 1,
  IMPORT_UNMAPPABLE: 1,
  IMPORT_CONFLICT: 1,
  SIMULATION_FAILED: 1,
  CHANGE_DETECTED: 1,
  VALIDATION_FAILED: 1,
  FORMAT_CHECK_FAILED: 1,
  PARITY_FAILED: 1,
  KEY_EXISTS: 1,
  ANALYZE_FAILED: 1,
  INTERNAL_ERROR: 1,
  // Usage, configuration, unreadable input (2)
  USAGE_ERROR: 2,
  CONFIG_NOT_FOUND: 2,
  CONFIG_INVALID: 2,
  WORKING_FOLDER_NOT_FOUND: 2,
  WORKING_FOLDER_LOCKED: 2,
  ENV_NOT_PERMITTED: 2,
  BUNDLE_READ_ERROR: 2,
  BUNDLE_PARSE_ERROR: 2,
  BUNDLE_TOO_LARGE: 2,
  DOCUMENT_READ_ERROR: 2,
  DOCUMENT_PARSE_ERROR: 2,
  DOCUMENT_TOO_LARGE: 2,
  WRITE_ERROR: 2,
  BUNDLE_VERSION_EXHAUSTED: 2,
  DRAFT_EXISTS: 2,
  SIGNATURE_DOWNGRADE: 2,
  SUITE_INVALID: 2,
  REQUESTS_INVALID: 2,
  SIGNING_KEY_MISSING: 2,
  PUBLIC_KEY_MISSING: 2,
  INVALID_KEY: 2,
  INVALID_OPTIONS: 2,
  INVALID_REQUEST: 2,
  INVALID_DECISION: 2,
  THROTTLE_STORE_UNAVAILABLE: 2,
  REMOTE_HMAC_REFUSED: 2,
  REMOTE_UNAUTHORIZED: 2,
  REMOTE_NOT_FOUND: 2,
  REMOTE_UNAVAILABLE: 2,
  CACHE_WRITE_ERROR: 2,
  DECISION_LOG_WRITE_ERROR: 2,
  TYPESCRIPT_UNAVAILABLE: 2,
  WEBCRYPTO_UNAVAILABLE: 2,
  ACTIVATION_UNAVAILABLE: 2,
  PLAYGROUND_UNAVAILABLE: 2,
  // Licence (3)
  LICENSE_REQUIRED: 3,
  LICENSE_INVALID: 3,
  LICENSE_EXPIRED: 3,
  ACTIVATION_REFUSED: 3,
  // Below a threshold (4)
  COVERAGE_BELOW_THRESHOLD: 4,
});

/** The exit code of an error code; codes missing from the table count as a failed check. */
export function exitCodeFor(code: string): ExitCode {
  return Object.hasOwn(EXIT_CODES, code) ? EXIT_CODES[code]! : EXIT_CHECK_FAILED;
}

/**
 * The exit code of an error that stopped a command whose check is its own
 * (`simulate`: exit 1 is a scenario that failed, nothing else): a failed
 * check of one of its inputs (a bundle that does not load or verify) means
 * the check could not run, exit 2, like a missing key or a bad suite file;
 * a licence refusal stays 3. So CI can tell "the suite failed" from "the
 * suite could not run".
 */
export function exitCodeWhenNotRun(code: string): ExitCode {
  const exit = exitCodeFor(code);
  return exit === EXIT_CHECK_FAILED ? EXIT_USAGE : exit;
}

/** Every code the table must cover: the library's and the CLI's. */
export const ALL_ERROR_CODES: readonly string[] = [...ERROR_CODES, ...CLI_ERROR_CODES];

/** Options of {@link CliError}. */
export interface CliErrorOptions {
  /** What to do next, printed after the message. */
  hint?: string;
  cause?: unknown;
}

/** An error of the CLI itself: a stable code from {@link CLI_ERROR_CODES}, a message, a hint. */
export class CliError extends Error {
  readonly code: CliErrorCode;
  readonly hint: string | undefined;

  constructor(code: CliErrorCode, message: string, options: CliErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "CliError";
    this.code = code;
    this.hint = options.hint;
  }
}

/** A usage error (exit 2). */
export function usageError(message: string, hint?: string): CliError {
  return new CliError("USAGE_ERROR", message, hint === undefined ? {} : { hint });
}

/** The code, message and hint of anything thrown. */
export interface ErrorReport {
  code: string;
  message: string;
  hint: string | undefined;
}

/**
 * The same library error with a hint for the command line (what to do in
 * terms of flags and configuration, which the library's message cannot say).
 */
export function withHint(error: PolicyError, hint: string): PolicyError {
  return Object.assign(restateError(error, error.message), { hint });
}

/** Describes a thrown value; unknown errors become `INTERNAL_ERROR`. */
export function describeError(error: unknown): ErrorReport {
  if (error instanceof CliError) {
    return { code: error.code, message: error.message, hint: error.hint };
  }
  if (isPolicyError(error)) {
    const hint = (error as { hint?: unknown }).hint;
    return {
      code: error.code,
      message: error.message,
      hint: typeof hint === "string" ? hint : undefined,
    };
  }
  const message = describeThrown(error);
  return {
    code: "INTERNAL_ERROR",
    message: `unexpected error: ${message}`,
    hint: "this is a bug in the policy CLI; please report it with the command you ran",
  };
}
