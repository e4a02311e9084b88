/**
 * The draft document (SPEC.md "Draft document"), its projection onto a
 * bundle, and its validation with the engine's own rules: a draft is
 * checked by projecting it onto a bundle and running `validateBundle`, so
 * a draft that validates builds a bundle that validates.
 *
 * @module
 */
import type {
  Env,
  Issue,
  PolicyDefault,
  Rule,
  RuntimeBundleV1,
  Target,
  ValidationResult,
} from "../engine/types.ts";
import { validateBundle } from "../engine/validate_bundle.ts";
import { CliError } from "./_errors.ts";
import { writeFileAtomic } from "./_atomic_write.ts";
import { withSchema } from "./_schema.ts";
import type { Session } from "./_session.ts";

/** `schemaVersion` of drafts. */
export const DRAFT_SCHEMA_VERSION = "1.0";

/** A policy of a draft. Fields the CLI does not know are kept as they are. */
export interface DraftPolicy {
  policyKey: string;
  activeVersion: number;
  friendlyName?: string;
  discoveredTarget?: Target;
  rules: Rule[];
  defaults?: PolicyDefault;
  [field: string]: unknown;
}

/** A draft document. Fields the CLI does not know are kept as they are. */
export interface DraftDocument {
  schemaVersion: typeof DRAFT_SCHEMA_VERSION;
  generatedAt: string;
  policies: DraftPolicy[];
  [field: string]: unknown;
}

/** The two document types the CLI reads. */
export type DocumentType = "bundle" | "draft";

/** A new draft with no policies. */
export function emptyDraft(now: Date): DraftDocument {
  return { schemaVersion: DRAFT_SCHEMA_VERSION, generatedAt: now.toISOString(), policies: [] };
}

/**
 * The type of a parsed document: `draft` when `schemaVersion` is a string
 * (drafts carry `"1.0"`), else `bundle` (bundles carry the integer 1), so a
 * wrong version is reported against the right schema.
 */
export function detectDocumentType(document: unknown): DocumentType {
  return isRecord(document) && typeof document.schemaVersion === "string" ? "draft" : "bundle";
}

/** The scope a draft is built for. */
export interface BuildScope {
  env: Env;
  orgId?: string | undefined;
  projectId?: string | undefined;
}

/**
 * Projects draft policies onto bundle policies: `policyKey`,
 * `activeVersion`, `rules` and (when set) `defaults`, in order, so that
 * validation paths (`/policies/2/rules/0`) point into the draft too.
 * Entries that are not objects are passed through for the validator to report.
 */
export function projectPolicies(policies: readonly unknown[]): unknown[] {
  return policies.map((policy) => {
    if (!isRecord(policy)) return policy;
    const projected: Record<string, unknown> = {
      policyKey: policy.policyKey,
      activeVersion: policy.activeVersion,
      rules: policy.rules,
    };
    if (Object.hasOwn(policy, "defaults") && policy.defaults !== undefined) {
      projected.defaults = policy.defaults;
    }
    return projected;
  });
}

/** The bundle a (valid) draft builds to, without build metadata. */
export function draftToBundle(draft: DraftDocument, scope: BuildScope): RuntimeBundleV1 {
  const bundle: Record<string, unknown> = { schemaVersion: 1, env: scope.env };
  if (scope.orgId !== undefined) bundle.orgId = scope.orgId;
  if (scope.projectId !== undefined) bundle.projectId = scope.projectId;
  bundle.policies = projectPolicies(draft.policies);
  return bundle as unknown as RuntimeBundleV1;
}

/**
 * Validates a draft: its own fields (`schemaVersion` "1.0", `policies`
 * array, `generatedAt`), then its policies with `validateBundle`.
 */
export function validateDraft(document: unknown): ValidationResult {
  const errors: Issue[] = [];
  if (!isRecord(document)) {
    errors.push({
      code: "DOCUMENT_NOT_OBJECT",
      path: "",
      message: "the draft must be a JSON object with schemaVersion, generatedAt and policies",
    });
    return { valid: false, errors, warnings: [] };
  }
  if (document.schemaVersion !== DRAFT_SCHEMA_VERSION) {
    errors.push({
      code: "INVALID_SCHEMA_VERSION",
      path: "/schemaVersion",
      message: `a draft's schemaVersion must be the string "1.0", found ${
        JSON.stringify(document.schemaVersion) ?? "nothing"
      }`,
    });
  }
  const generatedAt = document.generatedAt;
  if (
    generatedAt !== undefined &&
    (typeof generatedAt !== "string" || Number.isNaN(Date.parse(generatedAt)))
  ) {
    errors.push({
      code: "INVALID_FIELD",
      path: "/generatedAt",
      message: "generatedAt must be an ISO 8601 date-time string",
    });
  }
  if (!Array.isArray(document.policies)) {
    errors.push({
      code: "POLICIES_NOT_ARRAY",
      path: "/policies",
      message: "policies must be an array (it may be empty)",
    });
    return { valid: false, errors, warnings: [] };
  }
  const result = validateBundle({
    schemaVersion: 1,
    env: "prod",
    policies: projectPolicies(document.policies),
  });
  errors.push(...result.errors);
  const valid = errors.length === 0;
  return result.omitted === undefined
    ? { valid, errors, warnings: result.warnings }
    : { valid, errors, warnings: result.warnings, omitted: result.omitted };
}

/**
 * Checks that a parsed document has the shape a draft must have to be
 * edited (object, schemaVersion "1.0", policies array).
 *
 * @throws {CliError} `DRAFT_INVALID`.
 */
export function asEditableDraft(document: unknown, file: string): DraftDocument {
  if (
    !isRecord(document) || document.schemaVersion !== DRAFT_SCHEMA_VERSION ||
    !Array.isArray(document.policies)
  ) {
    throw new CliError(
      "DRAFT_INVALID",
      `${file} is not a draft (an object with schemaVersion "1.0" and a policies array)`,
      { hint: `run 'policy validate ${file}' to see what is wrong` },
    );
  }
  return document as DraftDocument;
}

/** Writes a draft atomically, formatted for people and diffs. */
export async function saveDraft(file: string, draft: DraftDocument): Promise<void> {
  await writeFileAtomic(file, draftText(draft));
}

/** The text of a draft file: formatted for people and diffs, with `$schema` for editors. */
export function draftText(draft: DraftDocument): string {
  return JSON.stringify(withSchema(draft, "draft"), null, 2) + "\n";
}

/** Number of rules of the policies that have a rules array. */
export function countRules(policies: unknown): number {
  if (!Array.isArray(policies)) return 0;
  return policies.reduce<number>(
    (n, p) => n + (isRecord(p) && Array.isArray(p.rules) ? p.rules.length : 0),
    0,
  );
}

/** True for an object that is not an array and not null. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Reads the configured draft (`draft.path`) for editing.
 *
 * @throws {CliError} `DOCUMENT_READ_ERROR` (with a hint to create one), `DRAFT_INVALID`.
 */
export async function readDraftForEdit(
  session: Session,
): Promise<{ file: string; draft: DraftDocument }> {
  const file = (await session.config()).draftPath;
  return { file, draft: asEditableDraft(await readDraftDocument(session, file), file) };
}

/**
 * Reads a draft file as JSON, with a hint to create one when it is missing.
 *
 * @throws {CliError} `DOCUMENT_READ_ERROR` and the other read errors.
 */
export async function readDraftDocument(session: Session, file: string): Promise<unknown> {
  try {
    return await session.readJson(file, "draft");
  } catch (error) {
    if (error instanceof CliError && error.code === "DOCUMENT_READ_ERROR") {
      throw new CliError(error.code, error.message, {
        hint: "create a draft with 'policy working-folder init' (or 'policy analyze')",
      });
    }
    throw error;
  }
}
