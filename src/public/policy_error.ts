// This module is browser compatible.
// The library's errors live in the kernel, not in the engine: the kernel's
// option checker, WebCrypto access and error restating throw them, and the
// kernel depends on no other folder (tests/architecture_test.ts). The engine
// and every export re-export them unchanged.
import type { Issue } from "./issue.ts";

/**
 * Every stable error code the library and the CLI report. Callers match on
 * these, never on messages. Every code is documented in `docs/errors.md`,
 * grouped as here.
 *
 * @example Every code a PolicyError can carry
 * ```ts
 * import { ERROR_CODES, PolicyError } from "../engine/mod.ts";
 * import assert from "node:assert/strict";
 *
 * assert.ok(ERROR_CODES.includes("BUNDLE_INVALID"));
 * assert.ok(ERROR_CODES.includes(new PolicyError("BUNDLE_UNSIGNED", "unsigned").code));
 * ```
 */
export const ERROR_CODES = [
  // Loading a bundle (docs/errors.md, "Loading a bundle")
  "BUNDLE_READ_ERROR",
  "BUNDLE_PARSE_ERROR",
  "BUNDLE_INVALID",
  "CHECKSUM_MISMATCH",
  "BUNDLE_UNSIGNED",
  "BUNDLE_SIGNATURE_MISSING",
  "BUNDLE_SIGNATURE_UNVERIFIED",
  "BUNDLE_SIGNATURE_INVALID",
  "BUNDLE_SIGNATURE_ALGORITHM_MISMATCH",
  "BUNDLE_SIGNATURE_ALGORITHM_REMOVED",
  // Size, context policy, remote delivery (docs/errors.md), the library licence (docs/license.md)
  "BUNDLE_TOO_LARGE",
  "CONTEXT_KEY_NOT_ALLOWED",
  "REMOTE_HMAC_REFUSED",
  "BUNDLE_SCOPE_MISMATCH",
  "REMOTE_UNAUTHORIZED",
  "REMOTE_NOT_FOUND",
  "REMOTE_UNAVAILABLE",
  "LICENSE_REQUIRED",
  // The project's own
  "INVALID_REQUEST",
  "INVALID_KEY",
  "INVALID_OPTIONS",
  "TYPESCRIPT_UNAVAILABLE",
  "CACHE_WRITE_ERROR",
  "WEBCRYPTO_UNAVAILABLE",
  // The project's own: enforcement (docs/enforcement.md)
  "INVALID_DECISION",
  "THROTTLE_STORE_UNAVAILABLE",
  // The project's own: running in production (docs/operations.md)
  "BUNDLE_SIGNATURE_KEY_UNKNOWN",
  "BUNDLE_VERSION_ROLLBACK",
  "BUNDLE_STALE",
  "BUNDLE_FRESHNESS_INVALID",
  "BUNDLE_FRESHNESS_MISSING",
  "BUNDLE_EXPIRED",
  "DECISION_LOG_WRITE_ERROR",
  // The project's own: toolkit licence (docs/license.md)
  "LICENSE_INVALID",
  "LICENSE_EXPIRED",
  "ACTIVATION_REFUSED",
  "ACTIVATION_UNAVAILABLE",
] as const;

/** A stable error code. */
export type ErrorCode = typeof ERROR_CODES[number];

/** Options of {@link PolicyError}. */
export interface PolicyErrorOptions {
  /** The underlying error, if any. */
  cause?: unknown;
  /** Validation issues (set on `BUNDLE_INVALID`). */
  issues?: Issue[];
}

/**
 * The one error class of the library. `code` is stable; `message` is for
 * people and says what to do.
 *
 * @example Matching on the code
 * ```ts
 * import { isPolicyError, PolicyError } from "../engine/mod.ts";
 * import assert from "node:assert/strict";
 *
 * const err = new PolicyError("BUNDLE_UNSIGNED", "the bundle has no signature");
 * assert.ok(isPolicyError(err, "BUNDLE_UNSIGNED"));
 * assert.equal(err.name, "PolicyError");
 * ```
 */
export class PolicyError extends Error {
  /** The stable code. */
  readonly code: ErrorCode;
  /** Validation issues, for `BUNDLE_INVALID`; empty otherwise. */
  readonly issues: readonly Issue[];

  /** Creates an error with a stable `code`, a `message` for people, and optional `cause` and `issues`. */
  constructor(code: ErrorCode, message: string, options: PolicyErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "PolicyError";
    this.code = code;
    this.issues = options.issues ?? [];
  }
}

/**
 * True when `error` is a {@link PolicyError}, and, when `code` is given, has that code.
 *
 * @example
 * ```ts
 * import { isPolicyError, PolicyError } from "../engine/mod.ts";
 * import assert from "node:assert/strict";
 *
 * assert.equal(isPolicyError(new Error("x")), false);
 * assert.equal(isPolicyError(new PolicyError("BUNDLE_INVALID", "x"), "BUNDLE_PARSE_ERROR"), false);
 * ```
 */
export function isPolicyError(error: unknown, code?: ErrorCode): error is PolicyError {
  return error instanceof PolicyError && (code === undefined || error.code === code);
}
