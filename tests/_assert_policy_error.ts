import assert from "node:assert/strict";
import { type ErrorCode, PolicyError } from "../src/public/policy_error.ts";

/** Checks that `error` is a PolicyError with one of `codes`, and returns it. */
function checkError(error: unknown, codes: ErrorCode | ErrorCode[]): PolicyError {
  const wanted = Array.isArray(codes) ? codes : [codes];
  assert.ok(
    error instanceof PolicyError,
    `expected a PolicyError ${wanted.join(" or ")}, got ${error}`,
  );
  assert.ok(
    wanted.includes(error.code),
    `expected ${wanted.join(" or ")}, got ${error.code}: ${error.message.slice(0, 300)}`,
  );
  return error;
}

/** Asserts that `fn` throws a PolicyError with `code` (or one of `codes`), and returns it. */
export function assertThrowsCode(fn: () => unknown, codes: ErrorCode | ErrorCode[]): PolicyError {
  try {
    fn();
  } catch (error) {
    return checkError(error, codes);
  }
  assert.fail(`expected a PolicyError ${[codes].flat().join(" or ")}, but nothing was thrown`);
}

/** Asserts that `promise` rejects with a PolicyError with `code` (or one of `codes`), and returns it. */
export async function assertRejectsCode(
  promise: Promise<unknown>,
  codes: ErrorCode | ErrorCode[],
): Promise<PolicyError> {
  try {
    await promise;
  } catch (error) {
    return checkError(error, codes);
  }
  assert.fail(`expected a PolicyError ${[codes].flat().join(" or ")}, but the promise resolved`);
}
