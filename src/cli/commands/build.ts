/**
 * `policy build`: builds the bundle from the draft, optionally signed.
 *
 * @module
 */
import type { Env, FreshnessStatement, RuntimeBundleV1 } from "../../engine/types.ts";
import { ENVS } from "../../public/vocabulary.ts";
import { parseBundleBytes } from "../../verify/load_bundle.ts";
import { CliError, usageError } from "../kit/errors.ts";
import { requireToolkitLicense } from "../kit/license.ts";
import { defineCommand, type Session } from "../kit/session.ts";
import type { CommandSpec } from "../kit/command_spec.ts";
import type { ProjectConfig } from "../kit/config.ts";
import type { Output } from "../kit/output.ts";
import { countRules } from "../../authoring/draft.ts";
import { bundleFromDraft, readValidDraft } from "../kit/build_bundle.ts";
import { bundleDocument, draftDocument } from "../kit/documents.ts";
import { bundleText, checkParity } from "../kit/bundle.ts";
import { exists } from "../kit/read_document.ts";
import { plural } from "../kit/describe.ts";
import { isRecord } from "../../_internal/guards.ts";
import { describeValue } from "../../_internal/check_options.ts";
import { isSignatureAlgorithm } from "../../verify/signature_algorithms.ts";
import {
  freshnessFor,
  readSigningKey,
  sign,
  SIGNING_FLAGS,
  type SigningKey,
  signingSettings,
} from "../kit/signing.ts";
import { describeStatement } from "../kit/freshness.ts";
import { describeThrown } from "../../_internal/describe_thrown.ts";

/** What the build is asked for, from the flags over `build` of the config. */
export interface BuildOptions {
  env: Env;
  orgId: string | undefined;
  projectId: string | undefined;
  /** `--bundle-version`; undefined: one more than the bundle already there. */
  requestedVersion: number | undefined;
  /** `--unsigned`: unsigned on purpose, over a signed bundle already there too. */
  unsigned: boolean;
  signed: boolean;
}

/** The declaration of `build`. */
export const BUILD_SPEC: CommandSpec = {
  name: "build",
  usage:
    "build [--env <env>] [--org-id <id>] [--project-id <id>] [--signed [signing flags] | --unsigned]",
  summary: [
    "Builds the bundle from the draft (draft.path) and writes it, compact and atomically, to",
    "the configured bundle path, holding the working folder's lock. bundleVersion is one more",
    "than the bundle already there (1 when none; --bundle-version sets it); generatedAt is",
    "now; the checksum covers the canonical payload. With --signed (or build.signed) the",
    "bundle is signed with the build.signing block or the signing flags. A bundle over",
    "limits.maxFileBytes is refused (BUNDLE_TOO_LARGE) and nothing is written; unless",
    "build.validateParity is false, the exact text must also load as a client loads it",
    "(and verify) before it is written. The draft must validate (--strict: without",
    "warnings). An unsigned build never replaces a signed bundle (SIGNATURE_DOWNGRADE)",
    "unless --unsigned says so. Needs a toolkit licence once the 30-day grace period is over",
    "(see 'policy activate --help').",
  ].join("\n"),
  flags: {
    env: {
      type: "string",
      value: "<env>",
      choices: ["prod", "staging", "dev", "test"],
      description: "prod, staging, dev or test (else build.env)",
    },
    "org-id": { type: "string", value: "<id>", description: "orgId (else build.scope.orgId)" },
    "project-id": {
      type: "string",
      value: "<id>",
      description: "projectId (else build.scope.projectId)",
    },
    signed: { type: "boolean", description: "sign the bundle (else build.signed)" },
    unsigned: {
      type: "boolean",
      description: "build unsigned, over build.signed and over a signed bundle already there",
    },
    "bundle-version": {
      type: "string",
      value: "<n>",
      description: "the bundleVersion to write (else one more than the bundle already there)",
    },
    ...SIGNING_FLAGS,
  },
  examples: [
    "policy build",
    "policy build --signed --ecdsa-private-key keys/private-key.pem --signing-key-id release-1",
    "policy build --env staging --org-id acme --project-id shop --unsigned",
  ],
};

/**
 * The build's options from the flags, then `config`.
 *
 * @throws {CliError} `USAGE_ERROR`.
 */
function buildOptions(session: Session, config: ProjectConfig): BuildOptions {
  const env: Env = session.choice("env", ENVS) ?? config.build.env;
  const orgId = session.string("org-id") ?? config.build.orgId ?? undefined;
  const projectId = session.string("project-id") ?? config.build.projectId ?? undefined;
  const requestedVersion = session.number("bundle-version");
  if (
    requestedVersion !== undefined &&
    !(Number.isSafeInteger(requestedVersion) && requestedVersion >= 1)
  ) {
    throw usageError(`--bundle-version must be a whole number >= 1, not ${requestedVersion}`);
  }
  const unsigned = session.has("unsigned");
  if (unsigned && session.has("signed")) {
    throw usageError("--signed and --unsigned cannot be combined", "keep one of them");
  }
  const signed = !unsigned && (session.has("signed") || config.build.signed);
  if (!signed) {
    const given = Object.keys(SIGNING_FLAGS).filter((f) => session.has(f));
    if (given.length > 0) {
      throw usageError(
        `--${given[0]} needs --signed (or build.signed: true)${unsigned ? ", not --unsigned" : ""}`,
        "add --signed to sign the bundle",
      );
    }
  }
  return { env, orgId, projectId, requestedVersion, unsigned, signed };
}

/**
 * The advice when the bundle's scope is not complete (`SCOPE_UNSET`),
 * naming what is unset, or null: a bundle only ever read by the local
 * client needs no scope (docs/cli.md "build").
 */
export function scopeAdvice({ orgId, projectId }: BuildOptions): string | null {
  const unset = ([
    ["orgId", orgId, "--org-id", "build.scope.orgId"],
    ["projectId", projectId, "--project-id", "build.scope.projectId"],
  ] as const).filter(([, value]) => value === undefined);
  if (unset.length === 0) return null;
  return `${unset.map(([field]) => field).join(" and ")} ${
    unset.length === 1 ? "is" : "are"
  } not set; a remote client accepts only a bundle whose orgId, projectId and env are its own, so a bundle served over HTTP needs ${
    unset.length === 1 ? "it" : "them"
  }, and one read by the local client does not (pass ${
    unset.map(([, , flag]) => flag).join(" and ")
  } or set ${unset.map(([, , , key]) => key).join(" and ")})`;
}

/**
 * The `bundleVersion` to write over the bundle already at `output`: the
 * one asked for, else the one after it. An unsigned build that is not
 * `--unsigned` never replaces a signed bundle.
 *
 * @throws {CliError} `SIGNATURE_DOWNGRADE`.
 */
export function planBuildVersion(
  options: BuildOptions,
  signing: boolean,
  previous: PreviousBundle,
  output: string,
): number {
  if (!signing && !options.unsigned && previous.signature !== null) {
    const { algorithm, keyId } = previous.signature;
    throw new CliError(
      "SIGNATURE_DOWNGRADE",
      `the bundle at ${output} is signed (${algorithm}, key id ${keyId}); this build is not, and would replace it with an unsigned bundle that clients verifying signatures refuse; nothing was written`,
      {
        hint:
          "pass --signed (or set build.signed) to sign it, or --unsigned if an unsigned bundle is what you want",
      },
    );
  }
  return options.requestedVersion ?? previous.next;
}

/** A bundle built, with what the output says of it. */
interface Built {
  bundle: RuntimeBundleV1;
  checksum: string;
  etag: string;
  freshness: FreshnessStatement | null;
  generatedAt: string;
  bundleVersion: number;
}

/**
 * The bundle of `draft`, signed with `key` (and its freshness statement,
 * written after the signature, with --expires-in or
 * build.signing.expiresIn) when there is one.
 */
async function makeBundle(
  session: Session,
  draft: Parameters<typeof bundleFromDraft>[0],
  options: BuildOptions,
  bundleVersion: number,
  key: SigningKey | null,
): Promise<Built> {
  const { env, orgId, projectId } = options;
  const generatedAt = new Date(session.io.clock.wallNow()).toISOString();
  const built = await bundleFromDraft(
    draft,
    { env, orgId, projectId },
    {
      generatedAt,
      bundleVersion,
      ...(key !== null && { sign: async (base) => (await sign(base, key)).signature }),
    },
  );
  const freshness = key === null ? null : await freshnessFor(session, built.bundle, key);
  const { policies, ...head } = built.bundle;
  const bundle = freshness === null ? built.bundle : { ...head, freshness, policies };
  return {
    bundle,
    checksum: built.checksum,
    etag: built.etag,
    freshness,
    generatedAt,
    bundleVersion,
  };
}

/** The JSON document of a build (docs/cli.md, "build"). */
function buildDocument(
  output: string,
  options: BuildOptions,
  built: Built,
  parity: "passed" | "skipped",
): Record<string, unknown> {
  const { bundle, freshness } = built;
  const signature = bundle.signature;
  return {
    path: output,
    schemaVersion: 1,
    env: options.env,
    orgId: options.orgId ?? null,
    projectId: options.projectId ?? null,
    bundleVersion: built.bundleVersion,
    generatedAt: built.generatedAt,
    checksum: built.checksum,
    etag: built.etag,
    policyCount: bundle.policies.length,
    ruleCount: countRules(bundle.policies),
    signed: signature !== undefined,
    signature: signature === undefined
      ? null
      : { algorithm: signature.algorithm, keyId: signature.keyId },
    freshness: describeStatement(freshness),
    parity,
  };
}

function render(out: Output, output: string, built: Built, parity: string): void {
  const { bundle, freshness } = built;
  const signature = bundle.signature;
  out.info(`wrote ${output}`);
  out.info(`  schema:         ${bundle.schemaVersion}`);
  out.info(`  env:            ${bundle.env}`);
  out.info(`  bundle version: ${built.bundleVersion}`);
  out.info(
    `  policies:       ${bundle.policies.length} (${plural(countRules(bundle.policies), "rule")})`,
  );
  out.info(`  checksum:       ${built.checksum}`);
  out.info(`  ETag:           ${built.etag}`);
  out.info(
    `  signature:      ${
      signature === undefined ? "unsigned" : `${signature.algorithm}, key id ${signature.keyId}`
    }`,
  );
  if (freshness !== null) {
    out.info(
      `  freshness:      expires ${freshness.expiresAt}, key id ${freshness.signature.keyId}`,
    );
  }
  out.info(`  parity:         ${parity}`);
}

/** Builds the bundle from the draft. */
export const runBuild = defineCommand(BUILD_SPEC, async (session) => {
  const out = session.out;
  const config = await session.config();
  // Every usage and configuration error first, then the licence, then the work.
  const options = buildOptions(session, config);
  const settings = options.signed
    ? await signingSettings(session, config.build.signing, "build.signing")
    : null;
  const license = await requireToolkitLicense(session, "build");
  const advice = scopeAdvice(options);
  if (advice !== null) out.advise("SCOPE_UNSET", advice);
  const signingKey = settings === null ? null : await readSigningKey(session, settings);
  const { file: draftFile } = await draftDocument(session);
  const { file: output } = await bundleDocument(session);

  return await session.exclusive(async () => {
    const draft = await readValidDraft(session, draftFile);
    const previous = await previousBundle(session, output, options.requestedVersion === undefined);
    const version = planBuildVersion(options, signingKey !== null, previous, output);
    const built = await makeBundle(session, draft, options, version, signingKey);
    const text = bundleText(built.bundle);
    let parity: "passed" | "skipped" = "skipped";
    if (config.build.validateParity) {
      await checkParity(session, output, text, signingKey);
      parity = "passed";
    } else {
      out.note("parity check skipped (build.validateParity is false)");
    }
    await session.writeDocument(output, "bundle", text, { createParents: true });
    await license.succeeded();
    out.result(
      { ...buildDocument(output, options, built, parity), warnings: out.warnings },
      () => render(out, output, built, parity),
    );
    return 0;
  });
});

/** What the build needs to know of the bundle already at its output path. */
export interface PreviousBundle {
  /** The `bundleVersion` to build after it (1 when there is none). */
  next: number;
  /** Its signature's algorithm and key id, or null when it has none (or cannot be read). */
  signature: { algorithm: string; keyId: string } | null;
}

/**
 * The bundle already at `file`: the `bundleVersion` after it and whether it
 * is signed. It is only read for those, so one that cannot be loaded (too
 * large, corrupt, invalid) never blocks the next build: with `counting` (no
 * `--bundle-version`), a warning says what it was and which version the
 * build starts from. After the highest version there is no next one.
 *
 * @throws {CliError} `BUNDLE_VERSION_EXHAUSTED` when counting from a bundle
 * at bundleVersion 2^53 - 1.
 */
async function previousBundle(
  session: Session,
  file: string,
  counting: boolean,
): Promise<PreviousBundle> {
  if (!(await exists(session.files, file))) return { next: 1, signature: null };
  let previous: unknown;
  try {
    previous = parseBundleBytes(await session.readBytes(file, "bundle"));
  } catch (error) {
    if (counting) {
      session.out.warn(
        "PREVIOUS_BUNDLE_UNREADABLE",
        `the bundle already at ${file} cannot be read for its bundleVersion (${
          describeThrown(error)
        }); this build starts the count again at 1 (pass --bundle-version <n> to continue it)`,
      );
    }
    return { next: 1, signature: null };
  }
  const fields = isRecord(previous) ? previous : {};
  const signature = isRecord(fields.signature) ? fields.signature : null;
  const described = (value: unknown) => typeof value === "string" ? value : "unknown";
  const version = fields.bundleVersion;
  if (counting && version === Number.MAX_SAFE_INTEGER) {
    throw new CliError(
      "BUNDLE_VERSION_EXHAUSTED",
      `the bundle already at ${file} has bundleVersion ${version}, the highest a bundle can have (2^53 - 1: larger numbers are not kept exactly by JSON readers), so no build can give a higher one; nothing was written`,
      {
        hint:
          `pass --bundle-version <n> to write a lower version on purpose: clients that loaded version ${version} refuse it as a rollback (BUNDLE_VERSION_ROLLBACK) unless they run with allowRollback: true (docs/operations.md "No going back")`,
      },
    );
  }
  const { next, problem } = followingVersion(version);
  if (counting && problem !== null) {
    session.out.warn(
      "PREVIOUS_BUNDLE_VERSION_INVALID",
      `the bundle already at ${file} has bundleVersion ${problem}; this build writes ${next} (pass --bundle-version <n> to choose)`,
    );
  }
  if (counting) session.out.note(`previous bundle at ${file}; building bundleVersion ${next}`);
  return {
    next,
    signature: signature === null ? null : {
      algorithm: isSignatureAlgorithm(signature.algorithm)
        ? signature.algorithm
        : describeValue(described(signature.algorithm)),
      keyId: describeValue(described(signature.keyId)),
    },
  };
}

/**
 * The version after `version` and, when `version` is not a whole number
 * >= 1, what is wrong with it: a number rounds down before the increment
 * (`2.5` → 3), a string holding a whole number counts as it (`"7"` → 8),
 * anything else restarts at 1. Absent: 1, no problem.
 */
export function followingVersion(version: unknown): { next: number; problem: string | null } {
  if (version === undefined) return { next: 1, problem: null };
  if (Number.isSafeInteger(version) && (version as number) >= 1) {
    return { next: (version as number) + 1, problem: null };
  }
  const described = JSON.stringify(version)?.slice(0, 40) ?? String(version);
  if (
    typeof version === "number" && Number.isFinite(version) && version < Number.MAX_SAFE_INTEGER
  ) {
    return {
      next: Math.max(1, Math.floor(version) + 1),
      problem: `${described}, not a whole number >= 1`,
    };
  }
  if (typeof version === "string" && /^[1-9][0-9]{0,14}$/.test(version)) {
    return { next: Number(version) + 1, problem: `${described}, a string instead of a number` };
  }
  return { next: 1, problem: `${described}, not a whole number >= 1` };
}
