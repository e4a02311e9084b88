// This module is browser compatible.
/**
 * The format of the signed freshness statement (`docs/bundle-format.md`,
 * "Freshness statement"): its members, its times, and the bytes its
 * signature covers. Shared by validation (a malformed statement is
 * `INVALID_FIELD`), signing and verification (`src/verify`).
 *
 * @module
 */
import { isRecord } from "../_internal/guards.ts";
import { canonicalJsonBytes } from "./canonical_payload.ts";
import { CHECKSUM_PATTERN, fieldNames, MIN_BUNDLE_VERSION } from "./bundle_format.ts";
import type { FreshnessStatement } from "./types.ts";

/** The `type` of a version 1 statement, the only one there is. */
export const FRESHNESS_TYPE = "policy-bundle-freshness/v1";

/** The members a statement may have, from the format's definition (the optional ones: `orgId`, `projectId`). */
const MEMBERS: ReadonlySet<string> = new Set(fieldNames("freshness"));
const SIGNATURE_MEMBERS: ReadonlySet<string> = new Set(fieldNames("statementSignature"));
const CHECKSUM = new RegExp(CHECKSUM_PATTERN);
/** UTC with a `Z`, whole seconds or milliseconds: what `toISOString` writes, `.000` optional. */
const TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{3}))?Z$/;

/**
 * The time a statement's `issuedAt` or `expiresAt` stands for, in ms since
 * the epoch, or undefined when `text` is not strictly
 * `YYYY-MM-DDTHH:MM:SS[.mmm]Z` with a real date and time, from 1970 on.
 *
 * @example
 * ```ts
 * import { statementTime } from "./freshness_statement.ts";
 * import assert from "node:assert/strict";
 *
 * assert.equal(statementTime("2026-12-03T10:00:00Z"), Date.UTC(2026, 11, 3, 10));
 * assert.equal(statementTime("2026-12-03T10:00:00.250Z"), Date.UTC(2026, 11, 3, 10, 0, 0, 250));
 * assert.equal(statementTime("2026-02-30T10:00:00Z"), undefined);
 * assert.equal(statementTime("2026-12-03T10:00:00+00:00"), undefined);
 * ```
 */
export function statementTime(text: unknown): number | undefined {
  if (typeof text !== "string") return undefined;
  const match = TIME.exec(text);
  if (match === null) return undefined;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  if (year < 1970) return undefined;
  const ms = Date.UTC(year, month - 1, day, hour, minute, second, Number(match[7] ?? 0));
  // Date.UTC rolls 2026-02-30 over to March: the parts must come back as written.
  const back = new Date(ms);
  return back.getUTCMonth() === month - 1 && back.getUTCDate() === day &&
      back.getUTCHours() === hour && back.getUTCMinutes() === minute &&
      back.getUTCSeconds() === second
    ? ms
    : undefined;
}

/**
 * A time as a statement writes it: UTC, whole seconds without a fraction
 * (`2026-12-03T10:00:00Z`), else with milliseconds.
 */
export function formatStatementTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.000Z$/, "Z");
}

/**
 * What is wrong with the shape of a `freshness` member, or undefined: an
 * object with exactly the members of a version 1 statement, each of its
 * type (`docs/bundle-format.md`, "Freshness statement"). Whether it names
 * the bundle and verifies is the load pipeline's business. Internal: not
 * exported by `mod.ts` (`tests/verify/freshness_test.ts` holds it to its
 * messages through `validateBundle`).
 */
export function freshnessProblem(value: unknown): string | undefined {
  if (!isRecord(value)) return "it is not an object";
  if (value.type !== FRESHNESS_TYPE) {
    return `type must be "${FRESHNESS_TYPE}" (a statement of another type is not read)`;
  }
  for (const key of Object.keys(value)) {
    if (!MEMBERS.has(key)) {
      return `it has a member "${key.slice(0, 40)}" that a v1 statement has not`;
    }
  }
  if (typeof value.checksum !== "string" || !CHECKSUM.test(value.checksum)) {
    return 'checksum must be "sha256:" followed by 64 lowercase hex characters';
  }
  const version = value.bundleVersion;
  if (!Number.isSafeInteger(version) || (version as number) < MIN_BUNDLE_VERSION) {
    return `bundleVersion must be a whole number >= ${MIN_BUNDLE_VERSION}`;
  }
  for (const field of ["orgId", "projectId"]) {
    if (value[field] !== undefined && typeof value[field] !== "string") {
      return `${field} must be a string when present`;
    }
  }
  if (typeof value.env !== "string") return "env must be a string";
  for (const field of ["issuedAt", "expiresAt"]) {
    if (statementTime(value[field]) === undefined) {
      return `${field} must be a UTC time written YYYY-MM-DDTHH:MM:SSZ (or with .mmm before the Z)`;
    }
  }
  const signature = value.signature;
  if (
    !isRecord(signature) || typeof signature.algorithm !== "string" ||
    typeof signature.keyId !== "string" || typeof signature.value !== "string" ||
    !Object.keys(signature).every((key) => SIGNATURE_MEMBERS.has(key))
  ) {
    return "signature must be an object with string algorithm, keyId and value, and nothing else";
  }
  return undefined;
}

/**
 * The bytes a statement's signature covers: the statement without its
 * `signature` member, serialised exactly as the canonical payload is (keys
 * sorted at every depth by UTF-16 code units, no whitespace,
 * `JSON.stringify` escaping and numbers, UTF-8), with the project's one
 * canonical JSON writer. They can never be a canonical payload: they have
 * `type` and `checksum` and no `policies` or `schemaVersion`.
 *
 * @example
 * ```ts
 * import { freshnessSignedBytes } from "./freshness_statement.ts";
 * import assert from "node:assert/strict";
 *
 * const bytes = freshnessSignedBytes({
 *   type: "policy-bundle-freshness/v1", checksum: "sha256:" + "0".repeat(64), bundleVersion: 2,
 *   env: "prod", issuedAt: "2026-11-26T10:00:00Z", expiresAt: "2026-12-03T10:00:00Z",
 * });
 * assert.equal(
 *   new TextDecoder().decode(bytes),
 *   '{"bundleVersion":2,"checksum":"sha256:' + "0".repeat(64) +
 *     '","env":"prod","expiresAt":"2026-12-03T10:00:00Z","issuedAt":"2026-11-26T10:00:00Z","type":"policy-bundle-freshness/v1"}',
 * );
 * ```
 */
export function freshnessSignedBytes(
  statement: Omit<FreshnessStatement, "signature"> & { signature?: unknown },
): Uint8Array<ArrayBuffer> {
  const { signature: _, ...signed } = statement;
  return canonicalJsonBytes(signed);
}
