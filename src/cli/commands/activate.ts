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
  licenseState,
  readLicenseFile,
  storedLicensePath,
  verifyLicenseText,
} from "../kit/license.ts";
import { plural } from "../kit/describe.ts";
import type { CommandSpec } from "../kit/command_spec.ts";

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
  const modes = ["key", "license-file", "status"].filter((f) => session.has(f));
  if (modes.length !== 1) {
    throw usageError(
      modes.length === 0
        ? "'policy activate' needs --key <activation key>, --license-file <path> or --status"
        : `--${modes[0]} and --${modes[1]} cannot be combined`,
      "run 'policy activate --help'",
    );
  }
  if (session.has("status")) return await status(session);
  const key = session.has("key") ? session.requireString("key") : undefined;
  const licenseFile = session.has("license-file")
    ? session.requireString("license-file")
    : undefined;
  return await install(session, key, licenseFile);
});

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
  const { document, license } = await verifyLicenseText(session, text, description);
  const replaced = await exists(session.files, target);
  await writeFileAtomic(target, JSON.stringify(document, null, 2) + "\n", {
    mode: 0o600,
    createParents: true,
  });
  out.note(`wrote ${target} (license)`);
  for (const variable of ["POLICY_LICENSE", "POLICY_LICENSE_FILE"]) {
    if (session.env(variable) !== undefined) {
      out.warn(
        "LICENSE_OVERRIDDEN",
        `${variable} is set and takes precedence over the licence stored in ${target}`,
      );
      break;
    }
  }
  out.result(
    {
      action: key !== undefined ? "activate" : "install",
      status: "licensed",
      source: "stored" satisfies LicenseSource,
      path: target,
      replaced,
      license: licenseView(license),
      grace: null,
      warnings: out.warnings,
    },
    () => {
      out.line(
        `licence ${license.licenseId} for ${license.licensee} ${
          key !== undefined ? "activated" : "installed"
        }`,
      );
      out.info(`  features: ${license.features.join(", ")}`);
      out.info(`  expires:  ${license.expiresAt} (${plural(license.daysLeft, "day")} left)`);
      out.info(`  stored:   ${target}${replaced ? " (replacing the previous licence)" : ""}`);
    },
  );
  return 0;
}

async function status(session: Session): Promise<number> {
  const out = session.out;
  const state = await licenseState(session);
  if (state.status === "licensed") {
    const { source, path: file, license } = state.found;
    out.result(
      {
        action: "status",
        status: "licensed",
        source,
        path: file,
        replaced: false,
        license: licenseView(license),
        grace: null,
        warnings: out.warnings,
      },
      () => {
        out.line(
          `licensed: ${license.licenseId} for ${license.licensee} (from ${
            file === null ? source : `${file}, ${source}`
          })`,
        );
        out.info(`  features: ${license.features.join(", ")}`);
        out.info(`  expires:  ${license.expiresAt} (${plural(license.daysLeft, "day")} left)`);
      },
    );
    return 0;
  }
  const grace = state.grace;
  out.result(
    {
      action: "status",
      status: state.status,
      source: null,
      path: null,
      replaced: false,
      license: null,
      grace: graceView(grace),
      warnings: out.warnings,
    },
    () => {
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
    },
  );
  return state.status === "unlicensed" ? exitCodeFor("LICENSE_REQUIRED") : 0;
}
