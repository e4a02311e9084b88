// This module is browser compatible.
/**
 * Issuing a bundle's signed freshness statement (`docs/bundle-format.md`,
 * "Freshness statement").
 *
 * @module
 */
import { computeDigest } from "../engine/canonical_payload.ts";
import {
  formatStatementTime,
  FRESHNESS_TYPE,
  freshnessSignedBytes,
} from "../engine/freshness_statement.ts";
import type { FreshnessStatement, RuntimeBundleV1 } from "../engine/types.ts";
import { PolicyError } from "../public/policy_error.ts";
import { checkedByCaller, checkOptions, describeValue } from "../_internal/check_options.ts";
import { assertSignable } from "./_signable.ts";

/** The options of {@link signFreshness}, for the one option checker (each checked below). */
const SIGN_FRESHNESS_FIELDS = {
  algorithm: checkedByCaller,
  key: checkedByCaller,
  keyId: checkedByCaller,
  issuedAt: checkedByCaller,
  expiresAt: checkedByCaller,
};
import { quote, unsupported } from "./import_key.ts";
import type { SignBundleOptions } from "./sign_bundle.ts";
import { signPayload } from "./sign_payload.ts";
import { isSignatureAlgorithm } from "./signature_algorithms.ts";

/** Options of {@link signFreshness}: the signing key, and the statement's times. */
export interface SignFreshnessOptions extends SignBundleOptions {
  /** When the statement is issued, in ms since the epoch (whole ms). */
  issuedAt: number;
  /** When it stops being current, in ms since the epoch: not before `issuedAt`. */
  expiresAt: number;
}

/**
 * Issues a freshness statement for `bundle`: its canonical-payload checksum,
 * `bundleVersion`, `env`, and `orgId`/`projectId` when it has them, the two
 * times, and a signature over the statement without its `signature` member
 * (`freshnessSignedBytes`), with the same algorithms and value formats as a
 * bundle signature. Put it in the bundle's `freshness` field; the bundle's
 * checksum and signature do not change.
 *
 * @throws {PolicyError} `BUNDLE_INVALID` for a bundle that `validateBundle`
 * finds invalid (with the issues) or without a whole `bundleVersion` >= 1
 * (a statement signs one), `CHECKSUM_MISMATCH` when
 * the bundle's `checksum` is not that of its contents, `INVALID_OPTIONS` for
 * times that are not whole ms from 1970 on or in the wrong order, an empty
 * `keyId` or an unsupported algorithm, `INVALID_KEY` for an unusable key.
 *
 * @example A statement valid for a week
 * ```ts
 * import { signFreshness } from "./sign_freshness.ts";
 * import assert from "node:assert/strict";
 *
 * const bundle = { schemaVersion: 1 as const, env: "prod" as const, orgId: "acme", bundleVersion: 42, policies: [] };
 * const issuedAt = Date.parse("2026-11-26T10:00:00Z");
 * const statement = await signFreshness(bundle, {
 *   algorithm: "HMAC_SHA256", key: "22".repeat(32), keyId: "k2",
 *   issuedAt, expiresAt: issuedAt + 7 * 86_400_000,
 * });
 * assert.equal(statement.type, "policy-bundle-freshness/v1");
 * assert.equal(statement.bundleVersion, 42);
 * assert.equal(statement.orgId, "acme");
 * assert.equal("projectId" in statement, false);
 * assert.equal(statement.expiresAt, "2026-12-03T10:00:00Z");
 * assert.equal(statement.signature.keyId, "k2");
 * ```
 */
export async function signFreshness(
  bundle: RuntimeBundleV1,
  options: SignFreshnessOptions,
): Promise<FreshnessStatement> {
  checkOptions(options, SIGN_FRESHNESS_FIELDS, "signFreshness");
  const { algorithm, key, keyId, issuedAt, expiresAt } = options;
  if (!isSignatureAlgorithm(algorithm)) throw unsupported(algorithm);
  if (typeof keyId !== "string" || keyId === "") {
    throw new PolicyError(
      "INVALID_OPTIONS",
      `keyId must be a non-empty string naming the signing key; got ${quote(keyId)}`,
    );
  }
  for (const [name, value] of [["issuedAt", issuedAt], ["expiresAt", expiresAt]] as const) {
    if (!Number.isSafeInteger(value) || value < 0 || value > 253_402_300_799_999) {
      throw new PolicyError(
        "INVALID_OPTIONS",
        `${name} must be a whole number of ms since the epoch, from 1970 to 9999; got ${
          describeValue(value)
        }`,
      );
    }
  }
  if (issuedAt > expiresAt) {
    throw new PolicyError("INVALID_OPTIONS", "expiresAt must not be before issuedAt");
  }
  // A statement for what no client would load is not issued (docs/errors.md BUNDLE_INVALID).
  assertSignable(bundle);
  const version = bundle.bundleVersion;
  if (!Number.isSafeInteger(version) || version! < 1) {
    throw new PolicyError(
      "BUNDLE_INVALID",
      `a freshness statement signs the bundle's bundleVersion, and this bundle has ${
        version === undefined ? "none" : `bundleVersion ${describeValue(version)}`
      }; give it a whole number >= 1`,
    );
  }
  const { checksum } = await computeDigest(bundle);
  if (bundle.checksum !== undefined && bundle.checksum !== checksum) {
    throw new PolicyError(
      "CHECKSUM_MISMATCH",
      `the bundle's checksum ${bundle.checksum} does not match its contents (${checksum}): it was altered after it was built; no statement is issued for it`,
    );
  }
  const statement: Omit<FreshnessStatement, "signature"> = {
    type: FRESHNESS_TYPE,
    checksum,
    bundleVersion: version!,
    ...(bundle.orgId !== undefined && { orgId: bundle.orgId }),
    ...(bundle.projectId !== undefined && { projectId: bundle.projectId }),
    env: bundle.env,
    issuedAt: formatStatementTime(issuedAt),
    expiresAt: formatStatementTime(expiresAt),
  };
  const value = await signPayload(algorithm, key, freshnessSignedBytes(statement));
  return { ...statement, signature: { algorithm, keyId, value } };
}
