/**
 * The toolkit licence in the CLI (`docs/license.md`): where the licence in
 * force comes from (`POLICY_LICENSE`, `POLICY_LICENSE_FILE`, the one
 * `activate` stored in `$POLICY_HOME`), the grace-period state file, and
 * the check `build` and `sign` run before they do anything (and confirm
 * once their work succeeded: the grace period starts with the first
 * successful build or sign, and its warning is printed once a day).
 *
 * @module
 */
import { parseJson } from "../../engine/parse_json.ts";
import { isPolicyError, PolicyError } from "../../public/policy_error.ts";
import { importPublicKey } from "../../verify/import_public_key.ts";
import {
  BUILT_IN_LICENSE_PUBLIC_KEY,
  GRACE_PERIOD_DAYS,
  type GracePeriod,
  gracePeriod,
  type LicenseDocument,
  MAX_LICENSE_BYTES,
  parseLicenseText,
  type VerifiedLicense,
  verifyLicense,
} from "../../license/mod.ts";
import { CliError } from "./errors.ts";
import { exists, readTextDocument } from "./read_document.ts";
import { writeFileAtomic } from "./atomic_write.ts";
import { policyHome } from "./working_folder.ts";
import { plural } from "./describe.ts";
import type { Session } from "./session.ts";
import type { FileLayer } from "../../io/file_layer.ts";
import { describeThrown } from "../../_internal/describe_thrown.ts";

/** The licence `activate` stores, in `$POLICY_HOME`. */
export const LICENSE_FILE = "license.json";
/** The grace-period state, in `$POLICY_HOME`. */
export const GRACE_STATE_FILE = "license-state.json";
/** A licence that expires within this many days gets a warning. */
export const EXPIRY_WARNING_DAYS = 14;

/** Where the licence in force came from, in the order they are looked at. */
export type LicenseSource = "POLICY_LICENSE" | "POLICY_LICENSE_FILE" | "stored";

/** The licence in force. */
export interface FoundLicense {
  source: LicenseSource;
  /** The file it was read from; null for `POLICY_LICENSE`. */
  path: string | null;
  license: VerifiedLicense;
}

/** Where the toolkit stands: licensed, in the grace period, or neither. */
export type LicenseState =
  | { status: "licensed"; found: FoundLicense }
  | {
    status: "grace" | "unlicensed";
    /** Null when the grace period has not started (nothing recorded yet). */
    grace: GracePeriod | null;
    /** When the grace-period warning was last printed, or null. */
    lastWarnedAt: Date | null;
    /** The state file, or null when no home folder is known. */
    statePath: string | null;
  };

/** How to get a licence, for messages. */
export const HOW_TO_LICENSE =
  "get a licence with 'policy activate --key <activation key>', or set POLICY_LICENSE (the licence document) or POLICY_LICENSE_FILE (its path)";

/** `2026-11-21` */
function day(date: Date): string {
  return date.toISOString().slice(0, 10);
}

/** The issuer key that checks licences: `POLICY_LICENSE_PUBLIC_KEY` (PEM text), else the built-in one. */
async function licenseKey(session: Session): Promise<CryptoKey> {
  const override = session.env("POLICY_LICENSE_PUBLIC_KEY");
  if (override === undefined) return await importPublicKey(BUILT_IN_LICENSE_PUBLIC_KEY);
  session.out.note(
    "licences are checked with the key in POLICY_LICENSE_PUBLIC_KEY, not the built-in one",
  );
  try {
    return await importPublicKey(override);
  } catch (error) {
    if (isPolicyError(error, "INVALID_KEY")) {
      throw new PolicyError("INVALID_KEY", `POLICY_LICENSE_PUBLIC_KEY: ${error.message}`);
    }
    throw error;
  }
}

/** The stored licence file, or undefined when no home folder is known. */
export function storedLicensePath(session: Session): string | undefined {
  const home = policyHome(session.io);
  return home === undefined ? undefined : session.files.path.join(home, LICENSE_FILE);
}

/** Reads a licence file (at most 64 KiB). */
export async function readLicenseFile(
  files: FileLayer,
  file: string,
  hint: string,
): Promise<string> {
  try {
    return await readTextDocument(files, file, "license", MAX_LICENSE_BYTES);
  } catch (error) {
    if (error instanceof CliError) throw new CliError(error.code, error.message, { hint });
    throw error;
  }
}

/**
 * Parses and verifies licence text: signature with the issuer key, expiry
 * against the injected clock, the `toolkit` feature.
 *
 * @throws {PolicyError} `LICENSE_INVALID`, `LICENSE_EXPIRED`, `INVALID_KEY`.
 */
export async function verifyLicenseText(
  session: Session,
  text: string,
  description: string,
): Promise<{ document: LicenseDocument; license: VerifiedLicense }> {
  const document = parseLicenseText(text, description);
  const license = await verifyLicense(document, {
    publicKey: await licenseKey(session),
    now: new Date(session.io.clock.wallNow()),
    source: description,
  });
  return { document, license };
}

/**
 * The licence in force, verified: the first of `POLICY_LICENSE`,
 * `POLICY_LICENSE_FILE` (from the current folder) and the stored licence
 * that is set. A licence that is set but invalid or expired is an error; the
 * next source is not tried. Null when none is set.
 *
 * @throws {PolicyError} `LICENSE_INVALID`, `LICENSE_EXPIRED`, `INVALID_KEY`.
 * @throws {CliError} `DOCUMENT_READ_ERROR` when the licence file cannot be read.
 */
export async function findLicense(session: Session): Promise<FoundLicense | null> {
  const inline = session.env("POLICY_LICENSE");
  if (inline !== undefined) {
    const { license } = await verifyLicenseText(session, inline, "the licence in POLICY_LICENSE");
    return { source: "POLICY_LICENSE", path: null, license };
  }
  const fileVariable = session.env("POLICY_LICENSE_FILE");
  if (fileVariable !== undefined) {
    const file = session.files.path.resolve(session.io.cwd, fileVariable);
    const text = await readLicenseFile(
      session.files,
      file,
      "POLICY_LICENSE_FILE names the licence file, from the current folder",
    );
    const { license } = await verifyLicenseText(
      session,
      text,
      `the licence file ${file} (POLICY_LICENSE_FILE)`,
    );
    return { source: "POLICY_LICENSE_FILE", path: file, license };
  }
  const stored = storedLicensePath(session);
  if (stored !== undefined && await exists(session.files, stored)) {
    const text = await readLicenseFile(
      session.files,
      stored,
      "run 'policy activate' again to replace it",
    );
    const { license } = await verifyLicenseText(
      session,
      text,
      `the stored licence ${stored} (written by 'policy activate')`,
    );
    return { source: "stored", path: stored, license };
  }
  return null;
}

/** What the state file records. */
interface GraceState {
  /** When the grace period started (the first successful build or sign). */
  startedAt: Date;
  /** When the grace-period warning was last printed, or null. */
  lastWarnedAt: Date | null;
}

/** The grace-period state file; null when nothing usable is recorded. */
async function readGraceState(session: Session, file: string): Promise<GraceState | null> {
  let text: string;
  try {
    text = await readTextDocument(session.files, file, "document", MAX_LICENSE_BYTES);
  } catch {
    return null; // missing, not a regular file, unreadable: no usable record
  }
  const date = (value: unknown) => {
    const parsed = typeof value === "string" ? new Date(value) : new Date(NaN);
    return Number.isNaN(parsed.getTime()) ? null : parsed;
  };
  try {
    const state = parseJson(text) as { graceStartedAt?: unknown; lastWarnedAt?: unknown };
    const startedAt = date(state?.graceStartedAt);
    if (startedAt !== null) return { startedAt, lastWarnedAt: date(state?.lastWarnedAt) };
  } catch {
    // fall through
  }
  session.out.note(`${file} cannot be read as a grace-period state; the grace period restarts`);
  return null;
}

/**
 * Where the toolkit stands, without changing anything (nothing is recorded).
 *
 * @throws the errors of {@link findLicense}.
 */
export async function licenseState(session: Session): Promise<LicenseState> {
  const found = await findLicense(session);
  if (found !== null) return { status: "licensed", found };
  const home = policyHome(session.io);
  if (home === undefined) {
    return { status: "grace", grace: null, lastWarnedAt: null, statePath: null };
  }
  const statePath = session.files.path.join(home, GRACE_STATE_FILE);
  const state = await readGraceState(session, statePath);
  if (state === null) return { status: "grace", grace: null, lastWarnedAt: null, statePath };
  const grace = gracePeriod(state.startedAt, new Date(session.io.clock.wallNow()));
  return {
    status: grace.over ? "unlicensed" : "grace",
    grace,
    lastWarnedAt: state.lastWarnedAt,
    statePath,
  };
}

/** What a command confirms after the licence check, once its work succeeded. */
export interface LicenseCheck {
  /**
   * Call once the command's work succeeded (its file written). Without a
   * licence: records the start of the grace period (the first successful
   * build or sign), and prints the grace-period warning when none was
   * printed yet this (UTC) day for this state folder, recording that.
   */
  succeeded(): Promise<void>;
}

const LICENSED: LicenseCheck = { succeeded: () => Promise.resolve() };

/**
 * The check `build` and `sign` run first. With a valid licence: nothing
 * (a warning when it expires within 14 days). Without one: once the grace
 * period is over, the command is refused; else it goes on, and
 * {@link LicenseCheck.succeeded} (called when its work succeeded) records
 * the start of the grace period at the first successful use (atomically, in
 * `$POLICY_HOME/license-state.json`) and prints the days left once a day.
 * A command that fails records nothing.
 *
 * @throws {PolicyError} `LICENSE_REQUIRED` after the grace period;
 * `LICENSE_INVALID`, `LICENSE_EXPIRED`, `INVALID_KEY` for a licence that is
 * set but unusable.
 */
export async function requireToolkitLicense(
  session: Session,
  command: string,
): Promise<LicenseCheck> {
  const out = session.out;
  const state = await licenseState(session);
  if (state.status === "licensed") {
    const { source, path: file, license } = state.found;
    out.note(
      `licence ${license.licenseId} (${license.licensee}) from ${
        file === null ? source : `${file} (${source})`
      }, expires ${license.expiresAt}`,
    );
    if (license.daysLeft <= EXPIRY_WARNING_DAYS) {
      out.warn(
        "LICENSE_EXPIRING",
        `the toolkit licence ${license.licenseId} expires on ${license.expiresAt} (${
          plural(license.daysLeft, "day")
        } left); renew it and run 'policy activate' again`,
      );
    }
    return LICENSED;
  }
  const now = new Date(session.io.clock.wallNow());
  const grace = state.grace ?? gracePeriod(now, now);
  if (grace.over) {
    throw new PolicyError(
      "LICENSE_REQUIRED",
      `'policy ${command}' needs a toolkit licence: the ${GRACE_PERIOD_DAYS}-day grace period without one started on ${
        day(grace.startedAt)
      } and ended on ${day(grace.endsAt)}; ${HOW_TO_LICENSE}`,
    );
  }
  return { succeeded: () => graceSucceeded(session, state, grace, now) };
}

/** {@link LicenseCheck.succeeded} during the grace period (started or not). */
async function graceSucceeded(
  session: Session,
  state: Extract<LicenseState, { status: "grace" | "unlicensed" }>,
  grace: GracePeriod,
  now: Date,
): Promise<void> {
  const out = session.out;
  const warn = state.lastWarnedAt === null || day(state.lastWarnedAt) !== day(now);
  let unrecorded = "";
  if (state.statePath === null) {
    unrecorded =
      " (neither POLICY_HOME nor HOME is set, so the grace period cannot be recorded and counts from now)";
  } else if (state.grace === null || warn) {
    const record = {
      schemaVersion: 1,
      graceStartedAt: grace.startedAt.toISOString(),
      lastWarnedAt: (warn ? now : state.lastWarnedAt!).toISOString(),
    };
    try {
      await writeFileAtomic(state.statePath, JSON.stringify(record, null, 2) + "\n", {
        createParents: true,
      });
      if (state.grace === null) out.note(`grace period started: recorded in ${state.statePath}`);
    } catch (error) {
      unrecorded = ` (${
        state.grace === null ? "its start" : "this warning"
      } could not be recorded: ${describeThrown(error)})`;
    }
  }
  if (!warn && unrecorded === "") return;
  out.warn(
    "LICENSE_GRACE_PERIOD",
    `no toolkit licence: ${
      plural(grace.daysLeft, "day")
    } left of the ${GRACE_PERIOD_DAYS}-day grace period (ends ${
      day(grace.endsAt)
    })${unrecorded}; ${HOW_TO_LICENSE}`,
  );
}
