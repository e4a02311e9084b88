// This module is browser compatible.
/**
 * The bundle's own optional fields: scope, `generatedAt`, `bundleVersion`,
 * `checksum`, `signature` and `freshness`, checked against the format's
 * definition (`bundle_format.ts`: their patterns and bounds are written
 * there once).
 *
 * @module
 */
import { isRecord } from "../../_internal/guards.ts";
import { CHECKSUM_PATTERN, GENERATED_AT_PATTERN, MIN_BUNDLE_VERSION } from "../bundle_format.ts";
import { freshnessProblem } from "../freshness_statement.ts";
import { type Collector, describe, ERROR } from "./walk.ts";

const CHECKSUM = new RegExp(CHECKSUM_PATTERN);
const ISO_8601 = new RegExp(GENERATED_AT_PATTERN);

/** Checks the bundle's optional fields. */
export function checkOptionalTopLevel(document: Record<string, unknown>, out: Collector): void {
  for (const field of ["orgId", "projectId", "etag"]) {
    if (document[field] !== undefined && typeof document[field] !== "string") {
      if (out.keep(ERROR)) {
        out.error("INVALID_FIELD", `/${field}`, `${field} must be a string when present`);
      }
    }
  }
  const generatedAt = document.generatedAt;
  if (
    generatedAt !== undefined &&
    (typeof generatedAt !== "string" || !ISO_8601.test(generatedAt) ||
      Number.isNaN(Date.parse(generatedAt)))
  ) {
    if (out.keep(ERROR)) {
      out.error(
        "INVALID_FIELD",
        "/generatedAt",
        "generatedAt must be an ISO 8601 date-time string when present",
      );
    }
  }
  const version = document.bundleVersion;
  if (
    version !== undefined &&
    !(Number.isSafeInteger(version) && (version as number) >= MIN_BUNDLE_VERSION)
  ) {
    if (out.keep(ERROR)) {
      out.error(
        "INVALID_FIELD",
        "/bundleVersion",
        `bundleVersion must be a whole number >= ${MIN_BUNDLE_VERSION} when present, found ${
          describe(version)
        }`,
      );
    }
  }
  const checksum = document.checksum;
  if (checksum !== undefined && (typeof checksum !== "string" || !CHECKSUM.test(checksum))) {
    if (out.keep(ERROR)) {
      out.error(
        "INVALID_FIELD",
        "/checksum",
        'checksum must be "sha256:" followed by 64 lowercase hex characters when present',
      );
    }
  }
  const signature = document.signature;
  if (signature !== undefined) {
    if (
      !isRecord(signature) || typeof signature.algorithm !== "string" ||
      typeof signature.keyId !== "string" || typeof signature.value !== "string"
    ) {
      if (out.keep(ERROR)) {
        out.error(
          "INVALID_FIELD",
          "/signature",
          "signature must be an object with string algorithm, keyId and value",
        );
      }
    }
  }
  // The statement's own members are checked whole here (an unknown one is an
  // error: it is signed data a v1 reader would not understand); whether it
  // names this bundle and verifies is the load pipeline's (BUNDLE_FRESHNESS_INVALID).
  const freshness = document.freshness;
  if (freshness !== undefined) {
    const problem = freshnessProblem(freshness);
    if (problem !== undefined && out.keep(ERROR)) {
      out.error(
        "INVALID_FIELD",
        "/freshness",
        `freshness must be a freshness statement (docs/bundle-format.md): ${problem}`,
      );
    }
  }
}
