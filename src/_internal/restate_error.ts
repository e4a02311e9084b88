// This module is browser compatible.
import { PolicyError } from "../public/policy_error.ts";

/**
 * The same failure in other words: `error`'s code and issues with `message`,
 * and `error` as the cause. For a caller that knows what the library's
 * message cannot (which file, which origin, what else failed).
 */
export function restateError(error: PolicyError, message: string): PolicyError {
  return new PolicyError(error.code, message, { cause: error, issues: [...error.issues] });
}
