// Checks of the options both clients share, so a mistake in them fails at
// creation with INVALID_OPTIONS instead of misbehaving later.
import { PolicyError } from "../engine/policy_error.ts";
import type { ClientOptions } from "./types.ts";

/** An `INVALID_OPTIONS` error. */
export function invalidOption(message: string): PolicyError {
  return new PolicyError("INVALID_OPTIONS", message);
}

/**
 * Checks `maxFileBytes`, `onError`, `contextPolicy` and the types of
 * `allowUnsigned` and `parseCustomEffect`. The `verify` key is checked when
 * it is imported, by the load pipeline.
 *
 * @throws {PolicyError} `INVALID_OPTIONS`.
 */
export function checkClientOptions(options: ClientOptions): void {
  const { maxFileBytes, onError, contextPolicy, allowUnsigned, parseCustomEffect } = options;
  if (
    maxFileBytes !== undefined &&
    (typeof maxFileBytes !== "number" || !Number.isSafeInteger(maxFileBytes) || maxFileBytes < 1)
  ) {
    throw invalidOption(
      `maxFileBytes must be a whole number of bytes, at least 1; got ${String(maxFileBytes)}`,
    );
  }
  if (onError !== undefined && typeof onError !== "function") {
    throw invalidOption("onError must be a function that takes a PolicyError");
  }
  for (
    const [name, value] of [["allowUnsigned", allowUnsigned], [
      "parseCustomEffect",
      parseCustomEffect,
    ]] as const
  ) {
    if (value !== undefined && typeof value !== "boolean") {
      throw invalidOption(`${name} must be true or false; got ${String(value)}`);
    }
  }
  if (contextPolicy !== undefined) {
    const keys = (contextPolicy as { allowedKeys?: unknown } | null)?.allowedKeys;
    if (!Array.isArray(keys) || !keys.every((key) => typeof key === "string")) {
      throw invalidOption("contextPolicy must be { allowedKeys: string[] }");
    }
  }
}
