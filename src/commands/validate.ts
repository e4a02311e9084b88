/**
 * `policy validate [file]`: validates a draft or a bundle with the rules the
 * runtime applies.
 *
 * @module
 */
import type { Issue, RuntimeBundleV1 } from "../engine/types.ts";
import { DEFAULT_MAX_ISSUES, validateBundle } from "../engine/validate_bundle.ts";
import { computeDigest } from "../engine/canonical_payload.ts";
import { CliError, exitCodeFor } from "./_errors.ts";
import { defineCommand, type Session } from "./_session.ts";
import {
  countRules,
  detectDocumentType,
  type DraftDocument,
  draftToBundle,
  validateDraft,
} from "./_draft.ts";
import { lintBundle } from "../lint/lint_bundle.ts";
import { type DocumentKind, exists } from "./_read_document.ts";
import { plural } from "./_describe.ts";

/** Validates a draft or a bundle. */
export const runValidate = defineCommand(
  {
    name: "validate",
    usage: "validate [file] [--strict]",
    summary: [
      "Validates a draft or a bundle with the same rules the runtime applies, and prints its",
      "type, policy count, rule count, schema version, errors and warnings. [file] resolves",
      "from the working folder; without it, the configured bundle is validated if it exists,",
      'else the draft. The type is detected: schemaVersion 1 is a bundle, "1.0" a draft.',
      "A bundle's checksum, when present, must match its contents. A valid document is also",
      "analysed for rules that can never be selected, branches that never apply, conditions",
      "that are never true or never false, duplicated rules and defaults that never decide",
      "(warnings). Errors exit 1; with --strict, warnings do too.",
    ].join("\n"),
    flags: {},
    maxPositionals: 1,
  },
  async (session) => {
    const out = session.out;
    const { file, kind } = await pickDocument(session);
    const document = await session.readJson(file, kind);
    const type = detectDocumentType(document);
    out.note(`detected type: ${type}`);
    const result = type === "draft" ? validateDraft(document) : validateBundle(document);
    const errors = [...result.errors];
    if (type === "bundle" && result.valid) errors.push(...await checksumIssues(document));
    // Dead and shadowed rules (docs/errors.md): only a valid document is analysed, and its
    // findings share the cap on the warnings listed.
    const omitted = { ...(result.omitted ?? { errors: 0, warnings: 0 }) };
    const found = !result.valid ? [] : lintBundle(
      type === "draft"
        ? draftToBundle(document as DraftDocument, { env: "prod" })
        : document as RuntimeBundleV1,
    );
    const room = Math.max(0, DEFAULT_MAX_ISSUES - result.warnings.length);
    const warnings = [...result.warnings, ...found.slice(0, room)];
    omitted.warnings += found.length - Math.min(found.length, room);
    const strict = session.global.strict;
    const valid = errors.length === 0 && !(strict && warnings.length > 0);
    const record = document as Record<string, unknown> | null;
    const policies = typeof record === "object" && record !== null ? record.policies : undefined;
    const schemaVersion = typeof record === "object" && record !== null &&
        (typeof record.schemaVersion === "string" || typeof record.schemaVersion === "number")
      ? String(record.schemaVersion)
      : null;
    const policyCount = Array.isArray(policies) ? policies.length : 0;
    const ruleCount = countRules(policies);

    out.result(
      {
        path: file,
        type,
        valid,
        strict,
        schemaVersion,
        policyCount,
        ruleCount,
        errors,
        warnings,
        omitted,
      },
      () => {
        out.info(
          `${file}: ${type}, schema ${schemaVersion ?? "(none)"}, ${
            plural(policyCount, "policy", "policies")
          }, ${plural(ruleCount, "rule")}`,
        );
        for (const e of errors) out.line(`error ${e.code} at ${e.path || "/"}: ${e.message}`);
        for (const w of warnings) out.line(`warning ${w.code} at ${w.path || "/"}: ${w.message}`);
        if (omitted.errors + omitted.warnings > 0) {
          out.line(
            `… and ${plural(omitted.errors, "more error")} and ${
              plural(omitted.warnings, "more warning")
            }, not listed (at most ${DEFAULT_MAX_ISSUES} of each are)`,
          );
        }
        const counts = `${plural(errors.length + omitted.errors, "error")}, ${
          plural(warnings.length + omitted.warnings, "warning")
        }`;
        if (valid) {
          out.info(`valid (${counts})`);
        } else {
          out.line(`invalid (${counts}${strict && errors.length === 0 ? "; --strict" : ""})`);
        }
      },
    );
    return valid ? 0 : exitCodeFor("VALIDATION_FAILED");
  },
);

/** The file to validate: the argument, else the bundle if it exists, else the draft. */
async function pickDocument(session: Session): Promise<{ file: string; kind: DocumentKind }> {
  const [argument] = session.positionals;
  if (argument !== undefined) {
    return { file: await session.fromWorkingFolder(argument), kind: "document" };
  }
  const config = await session.config();
  if (await exists(config.bundlePath)) return { file: config.bundlePath, kind: "bundle" };
  if (await exists(config.draftPath)) return { file: config.draftPath, kind: "draft" };
  throw new CliError(
    "DOCUMENT_READ_ERROR",
    `nothing to validate: no bundle at ${config.bundlePath} and no draft at ${config.draftPath}`,
    { hint: "pass a file, or create a draft with 'policy working-folder init'" },
  );
}

/** A `CHECKSUM_MISMATCH` error when the bundle's checksum does not match its contents. */
async function checksumIssues(document: unknown): Promise<Issue[]> {
  const bundle = document as RuntimeBundleV1;
  if (bundle.checksum === undefined) return [];
  const { checksum } = await computeDigest(bundle);
  return checksum === bundle.checksum ? [] : [{
    code: "CHECKSUM_MISMATCH",
    path: "/checksum",
    message:
      `the checksum does not match the contents (expected ${checksum}); the bundle was changed after it was built`,
  }];
}
