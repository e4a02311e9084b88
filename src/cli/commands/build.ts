/**
 * `policy build`: builds the bundle from the draft, optionally signed.
 *
 * @module
 */
import type { Env, RuntimeBundleV1 } from "../../engine/types.ts";
import { ENVS } from "../../public/vocabulary.ts";
import { parseBundleBytes } from "../../verify/load_bundle.ts";
import { CliError, usageError } from "../kit/errors.ts";
import { requireToolkitLicense } from "../kit/license.ts";
import { defineCommand, type Session } from "../kit/session.ts";
import { countRules } from "../../_authoring/draft.ts";
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
  signingSettings,
} from "../kit/signing.ts";
import { describeStatement } from "../kit/freshness.ts";
import { describeThrown } from "../../_internal/describe_thrown.ts";

/** Builds the bundle from the draft. */
export const runBuild = defineCommand(
  {
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
  },
  async (session) => {
    const out = session.out;
    const config = await session.config();
    // Every usage and configuration error first, then the licence, then the work.
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
          `--${given[0]} needs --signed (or build.signed: true)${
            unsigned ? ", not --unsigned" : ""
          }`,
          "add --signed to sign the bundle",
        );
      }
    }
    const settings = signed
      ? await signingSettings(session, config.build.signing, "build.signing")
      : null;
    const license = await requireToolkitLicense(session, "build");
    // One warning for the scope, naming what is unset.
    const unset = ([
      ["orgId", orgId, "--org-id", "build.scope.orgId"],
      ["projectId", projectId, "--project-id", "build.scope.projectId"],
    ] as const).filter(([, value]) => value === undefined);
    if (unset.length > 0) {
      // Advice: a bundle only ever read by the local client needs no scope (docs/cli.md "build").
      out.advise(
        "SCOPE_UNSET",
        `${unset.map(([field]) => field).join(" and ")} ${
          unset.length === 1 ? "is" : "are"
        } not set; a remote client accepts only a bundle whose orgId, projectId and env are its own, so a bundle served over HTTP needs ${
          unset.length === 1 ? "it" : "them"
        }, and one read by the local client does not (pass ${
          unset.map(([, , flag]) => flag).join(" and ")
        } or set ${unset.map(([, , , key]) => key).join(" and ")})`,
      );
    }
    const signingKey = settings === null ? null : await readSigningKey(session, settings);
    const { file: draftFile } = await draftDocument(session);
    const { file: output } = await bundleDocument(session);

    return await session.exclusive(async () => {
      const draft = await readValidDraft(session, draftFile);
      const previous = await previousBundle(session, output, requestedVersion === undefined);
      if (signingKey === null && !unsigned && previous.signature !== null) {
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
      const bundleVersion = requestedVersion ?? previous.next;
      const generatedAt = new Date(session.io.clock.wallNow()).toISOString();
      const built = await bundleFromDraft(
        draft,
        { env, orgId, projectId },
        {
          generatedAt,
          bundleVersion,
          ...(signingKey !== null &&
            { sign: async (base) => (await sign(base, signingKey)).signature }),
        },
      );
      const { checksum, etag } = built;
      const signature = built.bundle.signature;
      // With --expires-in (or build.signing.expiresIn): the signed freshness statement,
      // written after the signature.
      const freshness = signingKey === null
        ? null
        : await freshnessFor(session, built.bundle, signingKey);
      const { policies, ...head } = built.bundle;
      const bundle: RuntimeBundleV1 = freshness === null
        ? built.bundle
        : { ...head, freshness, policies };
      const text = bundleText(bundle);

      let parity: "passed" | "skipped" = "skipped";
      if (config.build.validateParity) {
        await checkParity(session, output, text, signingKey);
        parity = "passed";
      } else {
        out.note("parity check skipped (build.validateParity is false)");
      }

      await session.writeDocument(output, "bundle", text, { createParents: true });
      await license.succeeded();

      const policyCount = bundle.policies.length;
      const ruleCount = countRules(bundle.policies);
      out.result(
        {
          path: output,
          schemaVersion: 1,
          env,
          orgId: orgId ?? null,
          projectId: projectId ?? null,
          bundleVersion,
          generatedAt,
          checksum,
          etag,
          policyCount,
          ruleCount,
          signed: signature !== undefined,
          signature: signature === undefined
            ? null
            : { algorithm: signature.algorithm, keyId: signature.keyId },
          freshness: describeStatement(freshness),
          parity,
          warnings: out.warnings,
        },
        () => {
          out.info(`wrote ${output}`);
          out.info(`  schema:         ${bundle.schemaVersion}`);
          out.info(`  env:            ${env}`);
          out.info(`  bundle version: ${bundleVersion}`);
          out.info(`  policies:       ${policyCount} (${plural(ruleCount, "rule")})`);
          out.info(`  checksum:       ${checksum}`);
          out.info(`  ETag:           ${etag}`);
          out.info(
            `  signature:      ${
              signature === undefined
                ? "unsigned"
                : `${signature.algorithm}, key id ${signature.keyId}`
            }`,
          );
          if (freshness !== null) {
            out.info(
              `  freshness:      expires ${freshness.expiresAt}, key id ${freshness.signature.keyId}`,
            );
          }
          out.info(`  parity:         ${parity}`);
        },
      );
      return 0;
    });
  },
);

/** What the build needs to know of the bundle already at its output path. */
interface PreviousBundle {
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
