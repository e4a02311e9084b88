/**
 * `policy sign`: signs an existing bundle in place.
 *
 * @module
 */
import { computeDigest } from "../../engine/canonical_payload.ts";
import { requireToolkitLicense } from "../kit/license.ts";
import { defineCommand } from "../kit/session.ts";
import { bundleText, checkParity, readBundleFileUnverified } from "../kit/bundle.ts";
import { bundleDocument, explainUnbuilt } from "../kit/documents.ts";
import { describeStatement } from "../kit/freshness.ts";
import {
  freshnessFor,
  mergeSigningBlocks,
  readSigningKey,
  sign,
  SIGNING_FLAGS,
  signingSettings,
} from "../kit/signing.ts";
import type { CommandSpec } from "../kit/command_spec.ts";

/** The declaration of `sign`. */
export const SIGN_SPEC: CommandSpec = {
  name: "sign",
  usage: "sign [--bundle <path>] [signing flags]",
  summary: [
    "Signs an existing bundle in place (atomically): checksum and signature over its",
    "canonical payload, replacing any previous signature. The key comes from the signing",
    "flags, else the sign.signing block (falling back field by field to build.signing).",
    "The bundle must be valid and its checksum, when present, must match: sign never",
    "blesses a bundle altered after it was built (rebuild it instead). With --expires-in",
    "(or the block's expiresIn) it also (re-)issues the signed freshness statement: the",
    "timestamp job a CI cron runs to keep a fleet fresh, with no build and no new",
    "bundleVersion; without, a statement already there is kept (it still names the same",
    "bundle). The signed text must load and verify as a client would before it replaces",
    "the file. Needs a toolkit licence once the 30-day grace period is over (see 'policy",
    "activate --help').",
  ].join("\n"),
  flags: {
    bundle: {
      type: "string",
      value: "<path>",
      description: "bundle to sign, relative to the working folder (default: the configured one)",
    },
    ...SIGNING_FLAGS,
  },
  examples: [
    "policy sign --ecdsa-private-key keys/private-key.pem --signing-key-id release-1",
    "policy sign --signing-algorithm HMAC_SHA256 --hmac-secret-env POLICY_HMAC_SECRET --signing-key-id ci",
  ],
};

/** Signs an existing bundle. */
export const runSign = defineCommand(SIGN_SPEC, async (session) => {
  const out = session.out;
  const config = await session.config();
  const block = mergeSigningBlocks(config.build.signing, config.sign.signing);
  const settings = await signingSettings(session, block, "sign.signing");
  const license = await requireToolkitLicense(session, "sign");
  const key = await readSigningKey(session, settings);
  const document = await bundleDocument(session);
  const { file } = document;
  return await session.exclusive(async () => {
    // The library's pipeline; the old signature is being replaced, so only the checksum counts.
    const loaded = await readBundleFileUnverified(session, file).catch(async (error) => {
      throw await explainUnbuilt(session, error, document);
    });
    const bundle = loaded.document;
    const previous = bundle.signature;
    const signed = await sign(bundle, key);
    // A new statement with --expires-in; else the one there, if any, stays valid (same payload).
    const statement = await freshnessFor(session, bundle, key);
    const freshness = statement ?? bundle.freshness ?? null;
    if (statement !== null) signed.freshness = statement;
    // Keep the field order of the file; put checksum and signature where they were or at the end.
    const text = bundleText({ ...bundle, ...signed });
    await checkParity(session, file, text, key);
    await session.writeDocument(file, "bundle", text);
    await license.succeeded();
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
        freshness: describeStatement(freshness),
        freshnessIssued: statement !== null,
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
        if (freshness !== null) {
          out.info(
            `  freshness: ${
              statement === null ? "kept" : "issued"
            }, expires ${freshness.expiresAt}`,
          );
        }
      },
    );
    return 0;
  });
});
