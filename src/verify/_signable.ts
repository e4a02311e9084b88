// This module is browser compatible.
// What signBundle and signFreshness sign: a bundle a client would load
// (docs/errors.md BUNDLE_INVALID). Both take any value from their callers,
// so a value that is not JSON data (a getter that throws, a proxy) is
// BUNDLE_INVALID too, never the error it threw.
import { assertValidBundle } from "../engine/validate_bundle.ts";
import { isPolicyError, PolicyError } from "../public/policy_error.ts";
import { describeThrown } from "../_internal/describe_thrown.ts";

/**
 * Checks that `bundle` is a valid bundle, as a client loading it would.
 *
 * @throws {PolicyError} `BUNDLE_INVALID`, with the issues, or saying that
 * the value could not be read.
 */
export function assertSignable(bundle: unknown): void {
  try {
    assertValidBundle(bundle);
  } catch (error) {
    if (isPolicyError(error)) throw error;
    throw new PolicyError(
      "BUNDLE_INVALID",
      `the bundle cannot be read for signing (${
        describeThrown(error)
      }); it must be plain JSON data`,
      { cause: error },
    );
  }
}
