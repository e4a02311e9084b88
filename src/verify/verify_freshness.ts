// This module is browser compatible.
/**
 * Verifying a bundle's signed freshness statement (`docs/bundle-format.md`,
 * "Freshness statement"; `docs/operations.md`, "Signed freshness"): it must
 * name the bundle (checksum, `bundleVersion`, scope), verify with a trusted
 * key, and not have expired.
 *
 * @module
 */
import { computeDigest } from "../engine/canonical_payload.ts";
import {
  FRESHNESS_TYPE,
  freshnessProblem,
  freshnessSignedBytes,
  statementTime,
} from "../engine/freshness_statement.ts";
import type { FreshnessStatement, RuntimeBundleV1 } from "../engine/types.ts";
import { isPolicyError, PolicyError } from "../public/policy_error.ts";
import {
  booleanField,
  checkedByCaller,
  checkOptions,
  describeValue,
  type Field,
  type Fields,
} from "../_internal/check_options.ts";
import type { Clock } from "../public/clock.ts";
import { SYSTEM_CLOCK } from "../public/clock.ts";
import { isSignatureAlgorithm, SIGNATURE_ALGORITHMS } from "./signature_algorithms.ts";
import {
  keysToTry,
  namesNoConfiguredKey,
  reportedKeyIds,
  verifyField,
  verifyKeyList,
  type VerifyKeySet,
} from "./verify_keys.ts";
import { firstVerifyingKey } from "./verify_bundle_signature.ts";

/** Default `clockSkewMs`: one minute. */
export const DEFAULT_CLOCK_SKEW_MS = 60_000;

/** The largest `clockSkewMs` accepted: one day (more would make expiry meaningless). */
export const MAX_CLOCK_SKEW_MS = 86_400_000;

/**
 * A verified freshness statement, as `status().freshness` reports it
 * (`docs/local-client.md`, "`status()`").
 */
export interface FreshnessStatus {
  /** The signed `bundleVersion` (equal to the bundle's). */
  bundleVersion: number;
  /** When it was issued, as signed. */
  issuedAt: string;
  /** When it stops being current, as signed. */
  expiresAt: string;
  /**
   * The `keyId` of the configured key that verified it; when that key has
   * none, the id its signature records.
   */
  keyId: string;
  /**
   * The key id the statement's signature records, present only when the
   * configured key that verified it has another one.
   */
  claimedKeyId?: string;
  /** Always true: a statement that does not verify is refused. */
  verified: true;
}

/** Options of {@link verifyFreshness} (and of the load pipeline, which checks them the same way). */
export interface VerifyFreshnessOptions {
  /** The trusted keys: the same set as for the bundle's signature. */
  verify?: VerifyKeySet;
  /** Refuse a bundle without a statement (`BUNDLE_FRESHNESS_MISSING`). Default `false`. */
  requireFreshness?: boolean;
  /**
   * How far past `expiresAt` a statement is still accepted, for clocks that
   * disagree a little: 0 to {@link MAX_CLOCK_SKEW_MS}. Default
   * {@link DEFAULT_CLOCK_SKEW_MS} (60,000).
   */
  clockSkewMs?: number;
  /** Where the time comes from: its `wallNow()`. Default: the system clock. */
  clock?: Pick<Clock, "wallNow">;
}

/** `clockSkewMs`: 0 to one day. */
const clockSkewField: Field = {
  check: (value) =>
    typeof value === "number" && Number.isFinite(value) && value >= 0 &&
      value <= MAX_CLOCK_SKEW_MS
      ? undefined
      : `must be a number of milliseconds from 0 to ${MAX_CLOCK_SKEW_MS}; got ${
        describeValue(value)
      }`,
};

/** The freshness options, for the clients' one option checker. */
export const FRESHNESS_FIELDS: Fields = {
  requireFreshness: booleanField,
  clockSkewMs: clockSkewField,
};

/** The options of {@link verifyFreshness}, for the one option checker. */
const VERIFY_FRESHNESS_FIELDS: Fields = {
  verify: verifyField,
  ...FRESHNESS_FIELDS,
  clock: checkedByCaller,
};

/**
 * Checks a bundle's statement and returns its status (null when it has none
 * and none is required), then refuses it when it has expired. Computes the
 * bundle's checksum itself; the load pipeline (`loadBundle`) runs the same
 * checks with the checksum it has, after the signature's. In order:
 *
 * 1. `requireFreshness` that is not a boolean, or `clockSkewMs` out of
 *    range: `INVALID_OPTIONS`.
 * 2. No `freshness`: `BUNDLE_FRESHNESS_MISSING` with `requireFreshness`,
 *    else null.
 * 3. `BUNDLE_FRESHNESS_INVALID`, with the reason: a malformed statement; a
 *    `checksum`, `bundleVersion`, `env`, `orgId` or `projectId` that is not
 *    the bundle's; `issuedAt` after `expiresAt`; no configured key, none of
 *    its algorithm, or none that verifies its signature.
 * 4. `BUNDLE_EXPIRED` once `clock.wallNow()` reaches `expiresAt` plus
 *    `clockSkewMs`.
 *
 * @throws {PolicyError} The codes above, `INVALID_KEY` for an unusable key.
 *
 * @example A statement that names another bundle is refused
 * ```ts
 * import { signBundle, signFreshness, verifyFreshness } from "./mod.ts";
 * import assert from "node:assert/strict";
 *
 * const secret = "11".repeat(32);
 * const key = { algorithm: "HMAC_SHA256" as const, key: secret, keyId: "k1" };
 * const bundle = await signBundle({ schemaVersion: 1 as const, env: "prod" as const, bundleVersion: 4, policies: [] }, key);
 * const now = Date.parse("2026-11-26T10:00:00Z");
 * const freshness = await signFreshness(bundle, { ...key, issuedAt: now, expiresAt: now + 86_400_000 });
 * const verify = { algorithm: "HMAC_SHA256" as const, publicKey: secret, keyId: "k1" };
 * const clock = { wallNow: () => now + 60_000 };
 *
 * const status = await verifyFreshness({ ...bundle, freshness }, { verify, clock });
 * assert.equal(status?.expiresAt, "2026-11-27T10:00:00Z");
 * await assert.rejects(verifyFreshness({ ...bundle, bundleVersion: 99, freshness }, { verify, clock }), {
 *   code: "BUNDLE_FRESHNESS_INVALID",
 * });
 * await assert.rejects(verifyFreshness({ ...bundle, freshness }, { verify, clock: { wallNow: () => now + 2 * 86_400_000 } }), {
 *   code: "BUNDLE_EXPIRED",
 * });
 * ```
 */
export async function verifyFreshness(
  bundle: RuntimeBundleV1,
  options: VerifyFreshnessOptions = {},
): Promise<FreshnessStatus | null> {
  checkOptions(options, VERIFY_FRESHNESS_FIELDS, "verifyFreshness");
  const { checksum } = await computeDigest(bundle);
  const status = await checkFreshness(bundle, checksum, options);
  if (status !== null) {
    const expired = expiryError(status, options, "the bundle");
    if (expired !== null) throw expired;
  }
  return status;
}

/**
 * {@link verifyFreshness} without the expiry check, for a bundle whose
 * canonical-payload checksum the caller computed (`sha256:<hex>`). Internal:
 * not re-exported.
 *
 * @throws {PolicyError} As {@link verifyFreshness}, but `BUNDLE_EXPIRED`.
 */
export async function checkFreshness(
  bundle: RuntimeBundleV1,
  checksum: string,
  options: VerifyFreshnessOptions,
): Promise<FreshnessStatus | null> {
  checkFreshnessOptions(options);
  const statement: unknown = bundle.freshness;
  if (statement === undefined) {
    if (options.requireFreshness !== true) return null;
    throw new PolicyError(
      "BUNDLE_FRESHNESS_MISSING",
      "the bundle carries no freshness statement, and requireFreshness is set: it cannot be told from an old bundle replayed, relabelled or frozen; issue one when signing (signFreshness, or policy build/sign --expires-in)",
    );
  }
  const problem = freshnessProblem(statement);
  if (problem !== undefined) throw invalid(`it is malformed: ${problem}`);
  const s = statement as FreshnessStatement;
  if (s.checksum !== checksum) {
    throw invalid(
      `it names the bundle ${s.checksum}, not this one (${checksum}): a statement copied from another bundle, or a bundle changed under it`,
    );
  }
  if (s.bundleVersion !== bundle.bundleVersion) {
    throw invalid(
      `it signs bundleVersion ${s.bundleVersion}, but the bundle says ${
        bundle.bundleVersion ?? "none"
      }: the bundle was relabelled after the statement was issued`,
    );
  }
  for (const field of ["env", "orgId", "projectId"] as const) {
    if (s[field] !== bundle[field]) {
      throw invalid(
        `its ${field} ${describeValue(s[field] ?? null)} is not the bundle's (${
          describeValue(bundle[field] ?? null)
        })`,
      );
    }
  }
  if (statementTime(s.issuedAt)! > statementTime(s.expiresAt)!) {
    throw invalid(`it was issued at ${s.issuedAt}, after it expires (${s.expiresAt})`);
  }
  const { algorithm, keyId, value } = s.signature;
  const signedWith = `${describeValue(algorithm)}, key id ${describeValue(keyId)}`;
  if (!isSignatureAlgorithm(algorithm)) {
    throw invalid(
      `its signature algorithm ${describeValue(algorithm)} is not supported (${
        SIGNATURE_ALGORITHMS.join(", ")
      })`,
    );
  }
  const keys = options.verify === undefined ? [] : verifyKeyList(options.verify);
  if (keys.length === 0) {
    throw invalid(`it is signed (${signedWith}) but no key is configured to verify it`);
  }
  const candidates = keysToTry(keys, algorithm, keyId);
  if (candidates.length === 0) {
    throw invalid(`it is signed with ${algorithm}, and no configured key is of that algorithm`);
  }
  let key;
  try {
    key = await firstVerifyingKey(candidates, algorithm, freshnessSignedBytes(s), value);
  } catch (error) {
    if (!isPolicyError(error, "BUNDLE_SIGNATURE_INVALID")) throw error;
    throw invalid(`its signature is malformed: ${error.message}`);
  }
  if (key === null) {
    throw invalid(
      namesNoConfiguredKey(candidates, keyId)
        ? `it is signed with key id ${
          describeValue(keyId)
        }, which is not among the trusted keys, and no trusted key verifies it`
        : `its signature (${signedWith}) does not verify with the trusted key${
          candidates.length === 1 ? "" : "s"
        }: it was altered after signing, or signed with another key`,
    );
  }
  return {
    bundleVersion: s.bundleVersion,
    issuedAt: s.issuedAt,
    expiresAt: s.expiresAt,
    ...reportedKeyIds(key, keyId),
    verified: true,
  };
}

/**
 * The wall-clock time (ms since the epoch) from which the statement of
 * `status` counts as expired: its `expiresAt` plus `clockSkewMs`.
 */
export function expiryDeadline(status: FreshnessStatus, clockSkewMs: number): number {
  return statementTime(status.expiresAt)! + clockSkewMs;
}

/**
 * `BUNDLE_EXPIRED` for `what` (in messages) when its statement has expired
 * by `options.clock.wallNow()`, else null.
 */
export function expiryError(
  status: FreshnessStatus,
  options: VerifyFreshnessOptions,
  what: string,
): PolicyError | null {
  const skew = options.clockSkewMs ?? DEFAULT_CLOCK_SKEW_MS;
  const now = (options.clock ?? SYSTEM_CLOCK).wallNow();
  return now < expiryDeadline(status, skew) ? null : expiredError(status, skew, what);
}

/** The `BUNDLE_EXPIRED` error of `what`, whose statement is `status`. */
export function expiredError(
  status: FreshnessStatus,
  clockSkewMs: number,
  what: string,
): PolicyError {
  return new PolicyError(
    "BUNDLE_EXPIRED",
    `${what} (bundleVersion ${status.bundleVersion}) has a freshness statement that expired at ${status.expiresAt} (clockSkewMs ${clockSkewMs}): it is no longer known to be current; a fresh statement (policy sign --expires-in) or a newer bundle must be published`,
  );
}

function checkFreshnessOptions(options: VerifyFreshnessOptions): void {
  for (const [name, field] of Object.entries(FRESHNESS_FIELDS)) {
    const value = (options as Record<string, unknown>)[name];
    const problem = value === undefined ? undefined : field.check(value, name);
    if (problem !== undefined) throw new PolicyError("INVALID_OPTIONS", `${name} ${problem}`);
  }
}

function invalid(reason: string): PolicyError {
  return new PolicyError(
    "BUNDLE_FRESHNESS_INVALID",
    `the bundle's freshness statement is refused: ${reason}`,
  );
}

/** Re-exported for callers that check the type. */
export { FRESHNESS_TYPE };
