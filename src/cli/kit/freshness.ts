/**
 * Freshness statements in the CLI (`docs/cli.md`, "Freshness statements"):
 * how commands describe one, and the warning for one that has expired.
 *
 * @module
 */
import { statementTime } from "../../engine/freshness_statement.ts";
import type { FreshnessStatement, RuntimeBundleV1 } from "../../engine/types.ts";
import { isRecord } from "../../_internal/guards.ts";
import { describeDuration } from "./duration.ts";
import type { Session } from "./session.ts";

/** A statement as the JSON output of `build`, `sign` and `inspect` describes it. */
export interface StatementSummary {
  bundleVersion: number;
  issuedAt: string;
  expiresAt: string;
  algorithm: string;
  keyId: string;
}

/** The summary of a well-formed statement; null for none (or one that is not well-formed). */
export function describeStatement(statement: unknown): StatementSummary | null {
  if (!isRecord(statement) || !isRecord(statement.signature)) return null;
  const s = statement as unknown as FreshnessStatement;
  if (statementTime(s.expiresAt) === undefined) return null;
  return {
    bundleVersion: s.bundleVersion,
    issuedAt: s.issuedAt,
    expiresAt: s.expiresAt,
    algorithm: s.signature.algorithm,
    keyId: s.signature.keyId,
  };
}

/**
 * Milliseconds until the statement of `bundle` expires on the session's
 * clock (negative once it has), or null when the bundle has none (or its
 * `expiresAt` cannot be read).
 */
export function timeLeftMs(session: Session, bundle: RuntimeBundleV1): number | null {
  const expiresAt = statementTime(
    (bundle.freshness as { expiresAt?: unknown } | undefined)?.expiresAt,
  );
  return expiresAt === undefined ? null : expiresAt - session.io.clock.wallNow();
}

/**
 * Warns `FRESHNESS_EXPIRED` when the freshness statement of `bundle` (read
 * from `file`) has expired: clients refuse such a bundle (`BUNDLE_EXPIRED`).
 * Judged on the statement as written, verified or not.
 */
export function warnIfExpired(session: Session, bundle: RuntimeBundleV1, file: string): void {
  const message = expiredStatement(session, bundle);
  if (message !== null) session.out.warn("FRESHNESS_EXPIRED", `${file}: ${message}`);
}

/** What {@link warnIfExpired} says about `bundle`, or null when its statement has not expired. */
export function expiredStatement(session: Session, bundle: RuntimeBundleV1): string | null {
  const left = timeLeftMs(session, bundle);
  if (left === null || left > 0) return null;
  return `its freshness statement expired at ${bundle.freshness!.expiresAt} (${
    describeDuration(-left)
  } ago): clients refuse it (BUNDLE_EXPIRED, once past their clockSkewMs); issue a fresh one with 'policy sign --expires-in <duration>'`;
}
