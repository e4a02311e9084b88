/**
 * The draft as the CLI reads, edits and saves it. The document itself, its
 * projection onto a bundle and its validation are `src/authoring/draft.ts`;
 * reading it for an edit and saving it go through the session (the working
 * folder's lock and guarded write).
 *
 * @module
 */
import type { Rule } from "../../engine/types.ts";
import { isRecord } from "../../_internal/guards.ts";
import {
  DRAFT_SCHEMA_VERSION,
  type DraftDocument,
  type DraftPolicy,
} from "../../authoring/draft.ts";
import { CliError } from "./errors.ts";
import { describeValue } from "../../_internal/check_options.ts";
import { didYouMean } from "../../_internal/suggest.ts";
import { withSchema } from "./schema.ts";
import type { Session } from "./session.ts";
import { draftDocument } from "./documents.ts";

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

/**
 * The policy of `draft` whose key is `policyKey`, or undefined.
 */
export function findPolicy(draft: DraftDocument, policyKey: string): DraftPolicy | undefined {
  return draft.policies.find((p) => isRecord(p) && p.policyKey === policyKey);
}

/**
 * The policy of `draft` whose key is `policyKey`, for the commands that
 * edit one policy (`update-policy`, `add-rule`, `remove-rule`, `set-status`,
 * `remove`, `rename`).
 *
 * @throws {CliError} `POLICY_NOT_FOUND`, naming the closest key the draft
 * has (a typo must not go unnoticed), with `hint` (what to do instead).
 */
export function requirePolicy(draft: DraftDocument, policyKey: string, hint: string): DraftPolicy {
  const policy = findPolicy(draft, policyKey);
  if (policy !== undefined) return policy;
  const keys = policyKeys(draft);
  throw new CliError(
    "POLICY_NOT_FOUND",
    `the draft has no policy ${describeValue(policyKey)}${didYouMean(policyKey, keys)}`,
    { hint },
  );
}

/** The keys of the draft's policies, in order (for "did you mean"). */
export function policyKeys(draft: DraftDocument): string[] {
  return draft.policies.flatMap((p) =>
    isRecord(p) && typeof p.policyKey === "string" ? [p.policyKey] : []
  );
}

/** The hint of a command that names a policy or a rule: where to see them. */
export const LIST_HINT = "run 'policy policies list' for the draft's policies and their rules";

/**
 * The rule of `policy` whose id is `ruleId`, and its index, for the commands
 * that edit one rule (`remove-rule`, `set-status`, `add-rule --replace`).
 *
 * @throws {CliError} `RULE_NOT_FOUND`, naming the closest id the policy has
 * (a typo must not go unnoticed), with `hint`.
 */
export function requireRule(
  policy: DraftPolicy,
  ruleId: string,
  hint: string = LIST_HINT,
): { rule: Rule; index: number } {
  const rules: unknown[] = Array.isArray(policy.rules) ? policy.rules : [];
  const index = rules.findIndex((r) => isRecord(r) && r.id === ruleId);
  if (index >= 0) return { rule: rules[index] as Rule, index };
  const ids = rules.flatMap((r) => isRecord(r) && typeof r.id === "string" ? [r.id] : []);
  throw new CliError(
    "RULE_NOT_FOUND",
    `policy ${describeValue(policy.policyKey)} has no rule ${describeValue(ruleId)}${
      ids.length === 0 ? " (it has no rules)" : didYouMean(ruleId, ids)
    }`,
    { hint },
  );
}

/** A draft read for an edit. */
export interface EditableDraft {
  file: string;
  draft: DraftDocument;
  /** The file had comments, which saving it drops. */
  commented: boolean;
}

/**
 * Writes a draft back (within the session's lock, the guarded way),
 * formatted for people and diffs. Comments of the file read are not kept:
 * a warning says so.
 */
export async function saveDraft(session: Session, edit: EditableDraft): Promise<void> {
  if (edit.commented) {
    session.out.warn(
      "DRAFT_COMMENTS_DROPPED",
      `${edit.file} had comments or trailing commas, which rewriting it does not keep`,
    );
  }
  await session.writeDocument(edit.file, "draft", draftText(edit.draft), { createParents: true });
}

/** The text of a draft file: formatted for people and diffs, with `$schema` for editors. */
export function draftText(draft: DraftDocument): string {
  return JSON.stringify(withSchema(draft, "draft"), null, 2) + "\n";
}

/**
 * Reads the configured draft (`draft.path`) for editing. Call it within
 * `session.exclusive()`, so that nothing changes it until it is saved.
 *
 * @throws {CliError} `DOCUMENT_READ_ERROR` (with a hint to create one), `DRAFT_INVALID`.
 */
export async function readDraftForEdit(session: Session): Promise<EditableDraft> {
  const { file } = await draftDocument(session);
  const { value, commented } = await readDraftDocument(session, file);
  return { file, draft: asEditableDraft(value, file), commented };
}

/**
 * Reads a draft file as JSON (with comments), with a hint to create one
 * when it is missing.
 *
 * @throws {CliError} `DOCUMENT_READ_ERROR` and the other read errors.
 */
export async function readDraftDocument(
  session: Session,
  file: string,
): Promise<{ value: unknown; commented: boolean }> {
  try {
    return await session.readDocument(file, "draft");
  } catch (error) {
    if (error instanceof CliError && error.code === "DOCUMENT_READ_ERROR") {
      throw new CliError(error.code, error.message, {
        hint: "create a draft with 'policy working-folder init' (or 'policy analyze')",
      });
    }
    throw error;
  }
}
