// This module is browser compatible.
/**
 * The shape of a finding, shared by validation (`validateBundle`) and
 * `PolicyError.issues`.
 *
 * @module
 */

/** A validation finding: a stable code, a message for people, and a JSON Pointer. */
export interface Issue {
  /** Stable code, for example `INVALID_RULE_TARGET` (docs/errors.md). */
  code: string;
  /** For people: what is wrong and what to do. */
  message: string;
  /** JSON Pointer into the document, for example `/policies/0/rules/2/target`. */
  path: string;
}
