/**
 * `policy validate [file]`: validates a draft or a bundle with the rules the
 * runtime applies (which document: `src/cli/kit/documents.ts`).
 *
 * @module
 */
import type { Issue, RuntimeBundleV1, ValidationResult } from "../../engine/types.ts";
import { DEFAULT_MAX_ISSUES, validateBundle } from "../../engine/validate_bundle.ts";
import { inspectBundle } from "../../verify/load_bundle.ts";
import { exitCodeFor } from "../kit/errors.ts";
import { defineCommand } from "../kit/session.ts";
import {
  countRules,
  type DraftDocument,
  draftToBundle,
  validateDraft,
} from "../../authoring/draft.ts";
import { lintBundle } from "../../lint/lint_bundle.ts";
import { type ChosenDocument, describeDocument, validateDocument } from "../kit/documents.ts";
import type { Output } from "../kit/output.ts";
import { detectDocumentType } from "../../authoring/document_type.ts";
import { parseDocumentText } from "../kit/read_document.ts";
import { plural } from "../kit/describe.ts";
import { expiredStatement } from "../kit/freshness.ts";
import type { CommandSpec } from "../kit/command_spec.ts";

/** The declaration of `validate`. */
export const VALIDATE_SPEC: CommandSpec = {
  name: "validate",
  usage: "validate [file] [--type draft|bundle] [--strict]",
  summary: [
    "Validates a draft or a bundle with the same rules the runtime applies, and prints which",
    "document it checked, its type, policy count, rule count, schema version, errors and",
    "warnings. Without [file] it checks the draft (draft.path), or the bundle when there is",
    "no draft; [file] resolves from the working folder and its type is detected (a string",
    "schemaVersion, or no field only bundles have such as env, is a draft), or given with",
    "--type. A bundle must also load as a client loads it: strict JSON, and its checksum,",
    "when present, must match. A valid document is also analysed for rules that can never",
    "be selected, branches that never apply, conditions that are never true or never false,",
    "duplicated rules and defaults that never decide (warnings). Errors exit 1; with",
    "--strict, warnings do too.",
  ].join("\n"),
  flags: {
    type: {
      type: "string",
      value: "draft|bundle",
      choices: ["draft", "bundle"],
      description: "read [file] as this type instead of detecting it",
    },
  },
  maxPositionals: 1,
  positionals: "files",
  examples: [
    "policy validate",
    "policy validate --strict",
    "policy validate policy-bundle.json --format json",
  ],
};

/** What `validate` found (the JSON document, but the document's path and source). */
export interface ValidateReport {
  type: "draft" | "bundle";
  valid: boolean;
  strict: boolean;
  schemaVersion: string | null;
  policyCount: number;
  ruleCount: number;
  errors: Issue[];
  warnings: Issue[];
  omitted: { errors: number; warnings: number };
}

/**
 * What `validate` reports of `document`, a `type` that validated with
 * `result` (the runtime's rules): when it is valid, also its dead and
 * shadowed rules (docs/errors.md); `integrity` (a bundle's checksum) and
 * `expired` (its freshness statement) are what the load pipeline and the
 * clock found beyond its structure.
 */
export function planValidate(
  document: unknown,
  type: "draft" | "bundle",
  result: ValidationResult,
  { strict, integrity = [], expired = [] }: {
    strict: boolean;
    integrity?: readonly Issue[];
    expired?: readonly Issue[];
  },
): ValidateReport {
  const errors = [...result.errors, ...integrity];
  // Dead and shadowed rules: only a valid document is analysed, and its findings share the cap
  // on the warnings listed.
  const omitted = { ...(result.omitted ?? { errors: 0, warnings: 0 }) };
  const found = !result.valid ? [] : lintBundle(
    type === "draft"
      ? draftToBundle(document as DraftDocument, { env: "prod" })
      : document as RuntimeBundleV1,
  );
  const room = Math.max(0, DEFAULT_MAX_ISSUES - result.warnings.length - expired.length);
  const warnings = [...expired, ...result.warnings, ...found.slice(0, room)];
  omitted.warnings += found.length - Math.min(found.length, room);
  const valid = errors.length === 0 && !(strict && warnings.length > 0);
  const record = document as Record<string, unknown> | null;
  const policies = typeof record === "object" && record !== null ? record.policies : undefined;
  const schemaVersion = typeof record === "object" && record !== null &&
      (typeof record.schemaVersion === "string" || typeof record.schemaVersion === "number")
    ? String(record.schemaVersion)
    : null;
  return {
    type,
    valid,
    strict,
    schemaVersion,
    policyCount: Array.isArray(policies) ? policies.length : 0,
    ruleCount: countRules(policies),
    errors,
    warnings,
    omitted,
  };
}

function render(out: Output, report: ValidateReport, chosen: ChosenDocument): void {
  const { valid, errors, warnings, omitted, strict } = report;
  // Which document was checked: also with --quiet when there is something to fix.
  (valid ? out.info : out.line).call(
    out,
    `${describeDocument(chosen, report.type)}: schema ${report.schemaVersion ?? "(none)"}, ${
      plural(report.policyCount, "policy", "policies")
    }, ${plural(report.ruleCount, "rule")}`,
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
}

/** Validates a draft or a bundle. */
export const runValidate = defineCommand(VALIDATE_SPEC, async (session) => {
  const out = session.out;
  const forced = session.choice("type", ["draft", "bundle"] as const);
  const chosen = await validateDocument(session);
  const text = await session.readText(chosen.file, chosen.type ?? "document");
  // Drafts may have comments; bundles are strict JSON. The text is parsed strictly first, so a
  // bundle is parsed once (a second tree of an 8 MiB bundle would double the memory it takes);
  // only a text with comments is parsed again, and refused if it is a bundle.
  const parsed = parseDocumentText(text, chosen.type ?? "document", chosen.file);
  const document = parsed.value;
  const detected = forced ?? chosen.type ?? detectDocumentType(document).type;
  out.note(
    `type: ${detected} (${
      forced !== undefined
        ? "--type"
        : chosen.type !== null
        ? chosen.source
        : detectDocumentType(document).why
    })`,
  );
  if (detected === "bundle" && parsed.commented) parseDocumentText(text, "bundle", chosen.file);
  const result = detected === "draft" ? validateDraft(document) : validateBundle(document);
  // A valid bundle is also checked as a client loads it (checksum), and for its expiry.
  let integrity: Issue[] = [];
  const expired: Issue[] = [];
  if (detected === "bundle" && result.valid) {
    integrity = await integrityIssues(text, (await session.config()).maxFileBytes);
    const message = expiredStatement(session, document as RuntimeBundleV1);
    if (message !== null) {
      expired.push({ code: "FRESHNESS_EXPIRED", path: "/freshness/expiresAt", message });
    }
  }
  const strict = session.global.strict;
  const report = planValidate(document, detected, result, { strict, integrity, expired });
  out.result(
    { path: chosen.file, source: chosen.source, ...report },
    () => render(out, report, chosen),
  );
  return report.valid ? 0 : exitCodeFor("VALIDATION_FAILED");
});

/**
 * What the runtime's own load pipeline (`loadBundle`) finds wrong with a
 * structurally valid bundle beyond its structure: the checksum. The
 * signature is `inspect --signature`'s business.
 */
async function integrityIssues(text: string, maxFileBytes: number): Promise<Issue[]> {
  const loaded = await inspectBundle(text, { allowUnsigned: true, maxFileBytes });
  return loaded.integrity?.code === "CHECKSUM_MISMATCH"
    ? [{ code: "CHECKSUM_MISMATCH", path: "/checksum", message: loaded.integrity.message }]
    : [];
}
