/**
 * `policy sign`: signs an existing bundle in place.
 *
 * @module
 */
import { computeDigest } from "../engine/canonical_payload.ts";
import { isPolicyError } from "../engine/policy_error.ts";
import { CliError } from "./_errors.ts";
import { requireToolkitLicense } from "./_license.ts";
import { defineCommand } from "./_session.ts";
import { bundleFile, loadBundle } from "./_bundle.ts";
import { writeFileAtomic } from "./_atomic_write.ts";
import { withSchema } from "./_schema.ts";
import {
  mergeSigningBlocks,
  resolveSigningKey,
  sign,
  SIGNING_FLAGS,
  verifyOwnSignature,
} from "./_signing.ts";

/** Signs an existing bundle. */
export const runSign = defineCommand(
  {
    name: "sign",
    usage: "sign [--bundle <path>] [signing flags]",
    summary: [
      "Signs an existing bundle in place (atomically): checksum and signature over its",
      "canonical payload, replacing any previous signature. The key comes from the signing",
      "flags, else the sign.signing block (falling back field by field to build.signing).",
      "The bundle must be valid and its checksum, when present, must match: sign never",
      "blesses a bundle altered after it was built (rebuild it instead). Needs a toolkit",
      "licence once the 30-day grace period is over (see 'policy activate --help').",
    ].join("\n"),
    flags: {
      bundle: {
        type: "string",
        value: "<path>",
        description: "bundle to sign, relative to the working folder (default: the configured one)",
      },
      ...SIGNING_FLAGS,
    },
  },
  async (session) => {
    const out = session.out;
    const config = await session.config();
    await requireToolkitLicense(session, "sign");
    const file = await bundleFile(session);
    const bundle = await loadBundle(session, file);
    const block = mergeSigningBlocks(config.build.signing, config.sign.signing);
    const key = await resolveSigningKey(session, block, "sign.signing");
    out.note(`signing with ${key.algorithm}, key id ${key.keyId}, key from ${key.source}`);
    const previous = bundle.signature;
    const signed = await sign(bundle, key);
    try {
      await verifyOwnSignature(session, signed, key);
    } catch (error) {
      if (!isPolicyError(error)) throw error;
      throw new CliError(
        "PARITY_FAILED",
        `the new signature does not verify (${error.code}: ${error.message}); the bundle was not changed`,
      );
    }
    // Keep the field order of the file; put checksum and signature where they were or at the end.
    await writeFileAtomic(
      file,
      JSON.stringify(withSchema({ ...bundle, ...signed }, "bundle"), null, 2) + "\n",
    );
    out.note(`wrote ${file} (bundle)`);
    const { etag } = await computeDigest(signed);
    out.result(
      {
        path: file,
        schemaVersion: 1,
        env: signed.env,
        bundleVersion: signed.bundleVersion ?? null,
        checksum: signed.checksum,
        etag,
        signature: { algorithm: signed.signature.algorithm, keyId: signed.signature.keyId },
        replacedSignature: previous === undefined
          ? null
          : { algorithm: previous.algorithm, keyId: previous.keyId },
        warnings: out.warnings,
      },
      () => {
        out.info(`signed ${file}`);
        out.info(`  algorithm: ${signed.signature.algorithm}`);
        out.info(`  key id:    ${signed.signature.keyId}`);
        out.info(`  checksum:  ${signed.checksum}`);
        if (previous !== undefined) {
          out.info(`  replaced:  ${previous.algorithm} signature, key id ${previous.keyId}`);
        }
      },
    );
    return 0;
  },
);
