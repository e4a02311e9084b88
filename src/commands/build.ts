/**
 * `policy build`: builds the bundle from the draft, optionally signed.
 *
 * @module
 */
import { parseJson } from "../engine/parse_json.ts";
import type { Env, RuntimeBundleV1, Signature } from "../engine/types.ts";
import { ENVS } from "../engine/types.ts";
import { computeDigest, sortBundleKeys } from "../engine/canonical_payload.ts";
import { compileBundle } from "../engine/compile_bundle.ts";
import { isPolicyError } from "../engine/policy_error.ts";
import { validateBundle } from "../engine/validate_bundle.ts";
import { CliError, usageError } from "./_errors.ts";
import { requireToolkitLicense } from "./_license.ts";
import { defineCommand, type Session } from "./_session.ts";
import {
  countRules,
  type DraftDocument,
  draftToBundle,
  readDraftDocument,
  validateDraft,
} from "./_draft.ts";
import { exists } from "./_read_document.ts";
import { writeFileAtomic } from "./_atomic_write.ts";
import { schemaUrl } from "./_schema.ts";
import { plural } from "./_describe.ts";
import { resolveSigningKey, sign, SIGNING_FLAGS, verifyOwnSignature } from "./_signing.ts";

/** Builds the bundle from the draft. */
export const runBuild = defineCommand(
  {
    name: "build",
    usage: "build [--env <env>] [--org-id <id>] [--project-id <id>] [--signed [signing flags]]",
    summary: [
      "Builds the bundle from the draft and writes it (atomically) to the configured bundle",
      "path. bundleVersion is one more than the bundle already there (1 when none);",
      "generatedAt is now; the checksum covers the canonical payload. With --signed (or",
      "build.signed) the bundle is signed with the build.signing block or the signing flags.",
      "Unless build.validateParity is false, the built bundle must validate, compile, match",
      "its checksum and verify before it is written. The draft must validate (--strict:",
      "without warnings). Needs a toolkit licence once the 30-day grace period is over",
      "(see 'policy activate --help').",
    ].join("\n"),
    flags: {
      env: {
        type: "string",
        value: "<env>",
        description: "prod, staging, dev or test (else build.env)",
      },
      "org-id": { type: "string", value: "<id>", description: "orgId (else build.scope.orgId)" },
      "project-id": {
        type: "string",
        value: "<id>",
        description: "projectId (else build.scope.projectId)",
      },
      signed: { type: "boolean", description: "sign the bundle (else build.signed)" },
      ...SIGNING_FLAGS,
    },
  },
  async (session) => {
    const out = session.out;
    const config = await session.config();
    await requireToolkitLicense(session, "build");
    const draft = await readValidDraft(session, config.draftPath);

    const env: Env = session.choice("env", ENVS) ?? config.build.env;
    const orgId = session.string("org-id") ?? config.build.orgId ?? undefined;
    const projectId = session.string("project-id") ?? config.build.projectId ?? undefined;
    for (
      const [field, value, flag, key] of [
        ["orgId", orgId, "--org-id", "build.scope.orgId"],
        ["projectId", projectId, "--project-id", "build.scope.projectId"],
      ] as const
    ) {
      if (value === undefined) {
        out.warn(
          "SCOPE_UNSET",
          `${field} is not set; bundles delivered by the cloud control plane need it (pass ${flag} or set ${key})`,
        );
      }
    }
    const signed = session.has("signed") || config.build.signed;
    if (!signed) {
      const given = Object.keys(SIGNING_FLAGS).filter((f) => session.has(f));
      if (given.length > 0) {
        throw usageError(
          `--${given[0]} needs --signed (or build.signed: true)`,
          "add --signed to sign the bundle",
        );
      }
    }
    const signingKey = signed
      ? await resolveSigningKey(session, config.build.signing, "build.signing")
      : null;
    if (signingKey !== null) {
      out.note(
        `signing with ${signingKey.algorithm}, key id ${signingKey.keyId}, key from ${signingKey.source}`,
      );
    }

    const output = config.bundlePath;
    const bundleVersion = await nextBundleVersion(session, output);
    const base = draftToBundle(draft, { env, orgId, projectId });
    const generatedAt = session.io.now().toISOString();
    const { checksum, etag } = await computeDigest(base);
    let signature: Signature | undefined;
    if (signingKey !== null) signature = (await sign(base, signingKey)).signature;
    const bundle: RuntimeBundleV1 & { $schema: string } = {
      $schema: schemaUrl("bundle"),
      schemaVersion: 1,
      env,
      ...(orgId === undefined ? {} : { orgId }),
      ...(projectId === undefined ? {} : { projectId }),
      generatedAt,
      bundleVersion,
      checksum,
      ...(signature === undefined ? {} : { signature }),
      // Rules and defaults in canonical key order: such a bundle loads on the faster path.
      policies: sortBundleKeys(base).policies,
    };
    const text = JSON.stringify(bundle, null, 2) + "\n";

    let parity: "passed" | "skipped" = "skipped";
    let signatureCheck: "verified" | "skipped" | "unsigned" = "unsigned";
    if (config.build.validateParity) {
      signatureCheck = await checkParity(session, text, checksum, signingKey);
      parity = "passed";
    } else {
      out.note("parity check skipped (build.validateParity is false)");
    }
    if (signatureCheck === "skipped") {
      out.warn(
        "PARITY_SIGNATURE_SKIPPED",
        "the new signature was not checked: the private key is not PKCS#8 and no public key is configured (signature.publicKeyPath)",
      );
    }

    await writeFileAtomic(output, text, { createParents: true });
    out.note(`wrote ${output} (bundle)`);

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
        out.info(`  parity:         ${parity}`);
      },
    );
    return 0;
  },
);

/**
 * Reads the draft and checks it with the engine's rules.
 *
 * @throws {CliError} `DRAFT_INVALID`; read errors.
 */
async function readValidDraft(session: Session, file: string): Promise<DraftDocument> {
  const document = await readDraftDocument(session, file);
  const result = validateDraft(document);
  if (!result.valid) {
    const first = result.errors[0]!;
    throw new CliError(
      "DRAFT_INVALID",
      `the draft ${file} is invalid: ${first.message} (${first.code} at ${first.path || "/"})${
        result.errors.length > 1 ? ` and ${result.errors.length - 1} more error(s)` : ""
      }`,
      { hint: `run 'policy validate ${file}' for the list` },
    );
  }
  for (const w of result.warnings) session.out.warn(w.code, `${w.message} (at ${w.path || "/"})`);
  if (session.global.strict && result.warnings.length > 0) {
    throw new CliError(
      "DRAFT_INVALID",
      `the draft has ${result.warnings.length} warning(s), which --strict treats as failures`,
    );
  }
  return document as DraftDocument;
}

/** One more than the bundleVersion of the bundle already at `file`; 1 when there is none. */
async function nextBundleVersion(session: Session, file: string): Promise<number> {
  if (!(await exists(file))) return 1;
  const previous = await session.readJson(file, "bundle");
  const version = (previous as { bundleVersion?: unknown } | null)?.bundleVersion;
  const next = Number.isSafeInteger(version) && (version as number) >= 1
    ? (version as number) + 1
    : 1;
  session.out.note(
    `previous bundleVersion at ${file}: ${String(version ?? "(none)")}; building ${next}`,
  );
  return next;
}

/**
 * The built bundle, read back from the exact text to be written, must
 * validate, compile with the runtime's compiler, match its checksum, and
 * (when signed) verify.
 *
 * @throws {CliError} `PARITY_FAILED`.
 */
async function checkParity(
  session: Session,
  text: string,
  checksum: string,
  signingKey: Awaited<ReturnType<typeof resolveSigningKey>> | null,
): Promise<"verified" | "skipped" | "unsigned"> {
  const fail = (why: string) =>
    new CliError(
      "PARITY_FAILED",
      `the built bundle failed the parity check: ${why}; it was not written`,
    );
  const reread = parseJson(text) as RuntimeBundleV1;
  const result = validateBundle(reread);
  if (!result.valid) throw fail(`${result.errors[0]!.message} (${result.errors[0]!.code})`);
  try {
    compileBundle(reread, { skipValidation: true });
  } catch (error) {
    throw fail(`the runtime cannot compile it (${(error as Error).message})`);
  }
  if ((await computeDigest(reread)).checksum !== checksum) throw fail("the checksum differs");
  if (signingKey === null) return "unsigned";
  try {
    return await verifyOwnSignature(session, reread, signingKey);
  } catch (error) {
    if (isPolicyError(error)) {
      throw fail(`the signature does not verify (${error.code}: ${error.message})`);
    }
    throw error;
  }
}
