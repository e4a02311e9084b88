/**
 * The one way a draft becomes a bundle: `build` writes it, and
 * `simulate --draft` evaluates it without writing anything (no
 * `bundleVersion`, `generatedAt` or signature, none of which changes a
 * decision). Both read the draft, check it with the engine's rules, project
 * it, put rules and defaults in canonical key order and give it a checksum;
 * the text then goes through the library's load pipeline.
 *
 * @module
 */
import type { RuntimeBundleV1, Signature } from "../../engine/types.ts";
import { computeDigest, sortBundleKeys } from "../../engine/canonical_payload.ts";
import { CliError } from "./errors.ts";
import type { Session } from "./session.ts";
import { readDraftDocument } from "./draft.ts";
import {
  type BuildScope,
  type DraftDocument,
  draftToBundle,
  validateDraft,
} from "../../authoring/draft.ts";

/**
 * Reads the draft and checks it with the engine's rules; its warnings are
 * printed, and `--strict` makes them failures.
 *
 * @throws {CliError} `DRAFT_INVALID`; read errors.
 */
export async function readValidDraft(session: Session, file: string): Promise<DraftDocument> {
  const { value: document } = await readDraftDocument(session, file);
  const result = validateDraft(document);
  if (!result.valid) {
    const first = result.errors[0]!;
    throw new CliError(
      "DRAFT_INVALID",
      `the draft ${file} is invalid: ${first.message} (${first.code} at ${first.path || "/"})${
        result.errors.length > 1 ? ` and ${result.errors.length - 1} more error(s)` : ""
      }`,
      { hint: `run 'policy validate' for the list` },
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

/** What {@link bundleFromDraft} adds besides the draft's policies. */
export interface BundleMetadata {
  generatedAt?: string;
  bundleVersion?: number;
  /** Signs the bundle without its metadata (the canonical payload is what is signed). */
  sign?: (base: RuntimeBundleV1) => Promise<Signature>;
}

/**
 * The bundle a valid draft builds to: scope, the metadata given, the
 * checksum, the signature when `sign` is given, and the policies with rules
 * and defaults in canonical key order (such a bundle loads on the faster
 * path).
 */
export async function bundleFromDraft(
  draft: DraftDocument,
  scope: BuildScope,
  metadata: BundleMetadata = {},
): Promise<{ bundle: RuntimeBundleV1; checksum: string; etag: string }> {
  const { env, orgId, projectId } = scope;
  const base = draftToBundle(draft, scope);
  const { checksum, etag } = await computeDigest(base);
  const signature = metadata.sign === undefined ? undefined : await metadata.sign(base);
  const bundle: RuntimeBundleV1 = {
    schemaVersion: 1,
    env,
    ...(orgId === undefined ? {} : { orgId }),
    ...(projectId === undefined ? {} : { projectId }),
    ...(metadata.generatedAt === undefined ? {} : { generatedAt: metadata.generatedAt }),
    ...(metadata.bundleVersion === undefined ? {} : { bundleVersion: metadata.bundleVersion }),
    checksum,
    ...(signature === undefined ? {} : { signature }),
    policies: sortBundleKeys(base).policies,
  };
  return { bundle, checksum, etag };
}
