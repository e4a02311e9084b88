// This module is browser compatible.
/**
 * `rollout` (docs/bundle-format.md "Rollout buckets"): the bucket of the
 * value at a path, `h / 2^32 × 100` (`fraction`) or `h mod 100` (`mod100`),
 * where `h` is MurmurHash3 x86 32-bit, seed 0, of the UTF-8 bytes of
 * `salt + ":" + text`, and `text` the value: a non-empty string, or a whole
 * number within ±(2^53−1) written in decimal. True when `from ≤ bucket < to`.
 *
 * @module
 */
import { type HashPrefix, hashPrefix, murmur3After } from "./murmur3.ts";

/** A rollout's parameters, compiled: the hash state after `salt:`, and the range. */
export interface RolloutOperand {
  readonly prefix: HashPrefix;
  readonly from: number;
  readonly to: number;
  /** `mod100` bucketing; else `fraction`. */
  readonly mod100: boolean;
}

/** The operand of a rollout with these (valid) parameters. */
export function rolloutOperand(
  salt: string,
  from: number,
  to: number,
  mod100: boolean,
): RolloutOperand {
  return { prefix: hashPrefix(`${salt}:`), from, to, mod100 };
}

/**
 * The text a value is bucketed by: a non-empty string as it is, a whole
 * number within ±(2^53−1) in decimal (`-0` as `0`); null for anything else.
 */
export function rolloutText(value: unknown): string | null {
  if (typeof value === "string") return value.length > 0 ? value : null;
  return Number.isSafeInteger(value) ? String(value) : null;
}

/** The bucket of a value read at the path, or -1 when it cannot be bucketed. */
export function rolloutBucket(operand: RolloutOperand, value: unknown): number {
  let text: string;
  if (typeof value === "string") {
    if (value.length === 0) return -1;
    text = value;
  } else if (Number.isSafeInteger(value)) {
    text = String(value);
  } else {
    return -1;
  }
  const h = murmur3After(operand.prefix, text);
  return operand.mod100 ? h % 100 : h / 4294967296 * 100;
}

/** Whether a value read at the path (undefined: absent) is in the rollout. */
export function inRollout(operand: RolloutOperand, value: unknown): boolean {
  const bucket = rolloutBucket(operand, value);
  return bucket >= operand.from && bucket < operand.to;
}
