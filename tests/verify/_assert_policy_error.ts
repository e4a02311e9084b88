import assert from "node:assert/strict";
import { type ErrorCode, PolicyError } from "../../src/engine/policy_error.ts";

/** Asserts that `fn` throws a PolicyError with `code` (and nothing else) and returns it. */
export function assertThrowsCode(fn: () => unknown, code: ErrorCode): PolicyError {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof PolicyError, `expected a PolicyError, got ${error}`);
    assert.equal(error.code, code, error.message);
    return error;
  }
  assert.fail(`expected a PolicyError ${code}, but nothing was thrown`);
}

/** Asserts that `promise` rejects with a PolicyError with `code` (and nothing else) and returns it. */
export async function assertRejectsCode(
  promise: Promise<unknown>,
  code: ErrorCode,
): Promise<PolicyError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof PolicyError, `expected a PolicyError, got ${error}`);
    assert.equal(error.code, code, error.message);
    return error;
  }
  assert.fail(`expected a PolicyError ${code}, but the promise resolved`);
}
