/**
 * `policy activate`: obtains a toolkit licence from the activation endpoint
 * (`--key`), or installs a licence file (`--license-file`), verifies it and
 * stores it in `$POLICY_HOME/license.json`; `--status` shows where the
 * toolkit stands. See `docs/license.md`.
 *
 * @module
 */
import {
  DEFAULT_LICENSE_API_URL,
  GRACE_PERIOD_DAYS,
  type GracePeriod,
  requestLicense,
  type VerifiedLicense,
} from "../../license/mod.ts";
import { CliError, exitCodeFor, usageError } from "../kit/errors.ts";
import { defineCommand, type Session } from "../kit/session.ts";
import { exists } from "../kit/read_document.ts";
import { writeFileAtomic } from "../kit/atomic_write.ts";
import {
  HOW_TO_LICENSE,
  type LicenseSource,
  type LicenseState,
  licenseState,
  readLicenseFile,
  storedLicensePath,
  verifyLicenseText,
} from "../kit/license.ts";
import { plural } from "../kit/describe.ts";
import type { CommandSpec } from "../kit/command_spec.ts";
import type { Output } from "../kit/output.ts";

/** The declaration of `activate`. */
export const ACTIVATE_SPEC: CommandSpec = {
  name: "activate",
  usage: "activate --key <activation key> | --license-file <path> | --status",
  summary: [
    "Activates the toolkit licence that build and sign need once the 30-day grace period",
    "is over.",
    "  --key <activation key>  sends the key to the activation endpoint",
    "                          (POST <POLICY_API_URL>/v1/licenses/activate), verifies the",
    "                          licence it answers and stores it in $POLICY_HOME/license.json.",
    "                          Needs network access to the endpoint: run the policy:activate",
    "                          task, or add --allow-net=<host> to deno run.",
    "  --license-file <path>   verifies a licence document you were given (path from the",
    "                          current folder) and stores it the same way; no network.",
    "  --status                shows the licence in force, or the days left of the grace",
    "                          period; changes nothing. Exits 3 when build and sign are refused.",
    "POLICY_LICENSE (the document) and POLICY_LICENSE_FILE (its path) take precedence over the",
    "stored licence.",
  ].join("\n"),
  flags: {
    key: {
      type: "string",
      value: "<activation key>",
      description: "activation key from your account (never printed)",
    },
    "license-file": {
      type: "string",
      value: "<path>",
      description: "install this licence document instead (from the current folder)",
    },
    status: { type: "boolean", description: "show the licence or grace period; write nothing" },
  },
  examples: [
    "policy activate --status",
    "policy activate --key ACT-7F3K-99QX",
    "policy activate --license-file license.json",
  ],
};

/** Activates the toolkit licence. */
export const runActivate = defineCommand(ACTIVATE_SPEC, async (session) => {
  const mode = activateMode(ACTIVATE_MODES.filter((f) => session.has(f)));
  if (mode === "status") return await status(session);
  const key = mode === "key" ? session.requireString("key") : undefined;
  const licenseFile = mode === "license-file" ? session.requireString("license-file") : undefined;
  return await install(session, key, licenseFile);
});

/** The flags that choose what `activate` does, one of them. */
const ACTIVATE_MODES = ["key", "license-file", "status"] as const;

/**
 * What `activate` does, from the mode flags given.
 *
 * @throws {CliError} `USAGE_ERROR` when none of them, or more than one, is given.
 */
export function activateMode(given: readonly string[]): typeof ACTIVATE_MODES[number] {
  const modes = ACTIVATE_MODES.filter((f) => given.includes(f));
  if (modes.length !== 1) {
    throw usageError(
      modes.length === 0
        ? "'policy activate' needs --key <activation key>, --license-file <path> or --status"
        : `--${modes[0]} and --${modes[1]} cannot be combined`,
      "run 'policy activate --help'",
    );
  }
  return modes[0]!;
}

/** A licence as the JSON document shows it. */
function licenseView(license: VerifiedLicense) {
  return {
    licenseId: license.licenseId,
    licensee: license.licensee,
    issuedAt: license.issuedAt,
    expiresAt: license.expiresAt,
    features: license.features,
    keyId: license.keyId,
    daysLeft: license.daysLeft,
  };
}

function graceView(grace: GracePeriod | null) {
  return {
    days: GRACE_PERIOD_DAYS,
    startedAt: grace?.startedAt.toISOString() ?? null,
    endsAt: grace?.endsAt.toISOString() ?? null,
    daysLeft: grace?.daysLeft ?? GRACE_PERIOD_DAYS,
  };
}

/** The JSON document of `activate` (but `warnings`). */
export interface ActivateDocument {
  action: "activate" | "install" | "status";
  status: "licensed" | "grace" | "unlicensed";
  source: LicenseSource | null;
  path: string | null;
  replaced: boolean;
  license: ReturnType<typeof licenseView> | null;
  grace: ReturnType<typeof graceView> | null;
}

/** What installing a verified licence does: the file to store, the document, a warning. */
export interface InstallPlan {
  /** The text of `$POLICY_HOME/license.json`: the licence document, laid out. */
  text: string;
  document: ActivateDocument;
  /** `LICENSE_OVERRIDDEN` when the environment's licence takes precedence, or null. */
  warning: string | null;
}

/**
 * What storing `verified` in `target` does (`replaced`: a licence was
 * there): the file's text, the document, and a warning when a variable of
 * `overriding` (`POLICY_LICENSE`, `POLICY_LICENSE_FILE`, the set ones, in
 * that order) takes precedence over the stored licence.
 */
export function planInstall(
  verified: { document: unknown; license: VerifiedLicense },
  { action, target, replaced, overriding }: {
    action: "activate" | "install";
    target: string;
    replaced: boolean;
    overriding: readonly string[];
  },
): InstallPlan {
  const variable = overriding[0];
  return {
    text: JSON.stringify(verified.document, null, 2) + "\n",
    document: {
      action,
      status: "licensed",
      source: "stored",
      path: target,
      replaced,
      license: licenseView(verified.license),
      grace: null,
    },
    warning: variable === undefined
      ? null
      : `${variable} is set and takes precedence over the licence stored in ${target}`,
  };
}

/** What `activate --status` reports of `state`, and its exit code (3 when build is refused). */
export function planLicenseStatus(state: LicenseState): {
  document: ActivateDocument;
  exitCode: number;
} {
  if (state.status === "licensed") {
    const { source, path, license } = state.found;
    return {
      document: {
        action: "status",
        status: "licensed",
        source,
        path,
        replaced: false,
        license: licenseView(license),
        grace: null,
      },
      exitCode: 0,
    };
  }
  return {
    document: {
      action: "status",
      status: state.status,
      source: null,
      path: null,
      replaced: false,
      license: null,
      grace: graceView(state.grace),
    },
    exitCode: state.status === "unlicensed" ? exitCodeFor("LICENSE_REQUIRED") : 0,
  };
}

function requireHome(session: Session): string {
  const file = storedLicensePath(session);
  if (file === undefined) {
    throw new CliError(
      "CONFIG_INVALID",
      "cannot store the licence: neither POLICY_HOME nor HOME is set",
      {
        hint: "set POLICY_HOME to a folder for the policy CLI's user state, or use POLICY_LICENSE",
      },
    );
  }
  return file;
}

async function install(
  session: Session,
  key: string | undefined,
  licenseFile: string | undefined,
): Promise<number> {
  const out = session.out;
  const target = requireHome(session);
  let text: string;
  let description: string;
  if (key !== undefined) {
    const apiUrl = session.env("POLICY_API_URL") ?? DEFAULT_LICENSE_API_URL;
    out.note(`activation endpoint: ${apiUrl}`);
    const answer = await requestLicense({ apiUrl, activationKey: key, clock: session.io.clock });
    text = JSON.stringify(answer);
    description = `the licence from the activation endpoint ${apiUrl}`;
  } else {
    const file = session.files.path.resolve(session.io.cwd, licenseFile!);
    text = await readLicenseFile(
      session.files,
      file,
      "--license-file resolves from the current folder",
    );
    out.note(`read ${file} (license)`);
    description = `the licence file ${file}`;
  }
  const verified = await verifyLicenseText(session, text, description);
  const plan = planInstall(verified, {
    action: key !== undefined ? "activate" : "install",
    target,
    replaced: await exists(session.files, target),
    overriding: ["POLICY_LICENSE", "POLICY_LICENSE_FILE"].filter((v) =>
      session.env(v) !== undefined
    ),
  });
  await writeFileAtomic(target, plan.text, { mode: 0o600, createParents: true });
  out.note(`wrote ${target} (license)`);
  if (plan.warning !== null) out.warn("LICENSE_OVERRIDDEN", plan.warning);
  out.result({ ...plan.document, warnings: out.warnings }, () => {
    const { license, replaced } = plan.document;
    out.line(
      `licence ${license!.licenseId} for ${license!.licensee} ${
        key !== undefined ? "activated" : "installed"
      }`,
    );
    out.info(`  features: ${license!.features.join(", ")}`);
    out.info(`  expires:  ${license!.expiresAt} (${plural(license!.daysLeft, "day")} left)`);
    out.info(`  stored:   ${target}${replaced ? " (replacing the previous licence)" : ""}`);
  });
  return 0;
}

async function status(session: Session): Promise<number> {
  const out = session.out;
  const state = await licenseState(session);
  const plan = planLicenseStatus(state);
  out.result({ ...plan.document, warnings: out.warnings }, () => renderStatus(out, state));
  return plan.exitCode;
}

function renderStatus(out: Output, state: LicenseState): void {
  if (state.status === "licensed") {
    const { source, path: file, license } = state.found;
    out.line(
      `licensed: ${license.licenseId} for ${license.licensee} (from ${
        file === null ? source : `${file}, ${source}`
      })`,
    );
    out.info(`  features: ${license.features.join(", ")}`);
    out.info(`  expires:  ${license.expiresAt} (${plural(license.daysLeft, "day")} left)`);
    return;
  }
  const grace = state.grace;
  if (grace === null) {
    out.line(
      `no licence; the ${GRACE_PERIOD_DAYS}-day grace period starts with the first successful 'policy build' or 'policy sign'${
        state.statePath === null ? "" : ` (recorded in ${state.statePath})`
      }`,
    );
  } else if (state.status === "grace") {
    out.line(
      `no licence: grace period, ${
        plural(grace.daysLeft, "day")
      } left (started ${grace.startedAt.toISOString()}, ends ${grace.endsAt.toISOString()})`,
    );
  } else {
    out.line(
      `no licence, and the grace period ended ${grace.endsAt.toISOString()}: build and sign are refused`,
    );
  }
  out.info(HOW_TO_LICENSE);
}
