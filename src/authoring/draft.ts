// This module is browser compatible.
/**
 * The draft document (docs/cli.md, "The draft"), its projection onto a
 * bundle, and its validation with the engine's own rules: a draft is
 * checked by projecting it onto a bundle and running `validateBundle`, so a
 * draft that validates builds a bundle that validates. No I/O: the CLI
 * reads and saves drafts (`src/cli/kit/draft.ts`), the playground checks
 * them in the browser (docs/playground.md).
 *
 * @module
 */
import type {
  Env,
  PolicyDefault,
  Rule,
  RuntimeBundleV1,
  Target,
  ValidationResult,
} from "../engine/types.ts";
import { validateBundle } from "../engine/validate_bundle.ts";
import { isRecord } from "../_internal/guards.ts";
import { suggest } from "../_internal/suggest.ts";
import { describeValue } from "../_internal/describe_value.ts";
import { CappedIssues } from "./capped_issues.ts";
import { cutText } from "../_internal/cut_text.ts";

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

/** A new draft with no policies. */
export function emptyDraft(now: Date): DraftDocument {
  return { schemaVersion: DRAFT_SCHEMA_VERSION, generatedAt: now.toISOString(), policies: [] };
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
  const issues = new CappedIssues();
  if (!isRecord(document)) {
    issues.error({
      code: "DOCUMENT_NOT_OBJECT",
      path: "",
      message: "the draft must be a JSON object with schemaVersion, generatedAt and policies",
    });
    return issues.result();
  }
  if (document.schemaVersion !== DRAFT_SCHEMA_VERSION) {
    issues.error({
      code: "INVALID_SCHEMA_VERSION",
      path: "/schemaVersion",
      message: `a draft's schemaVersion must be the string "1.0", found ${
        document.schemaVersion === undefined ? "nothing" : describeValue(document.schemaVersion)
      }`,
    });
  }
  const generatedAt = document.generatedAt;
  if (
    generatedAt !== undefined &&
    (typeof generatedAt !== "string" || Number.isNaN(Date.parse(generatedAt)))
  ) {
    issues.error({
      code: "INVALID_FIELD",
      path: "/generatedAt",
      message: "generatedAt must be an ISO 8601 date-time string",
    });
  }
  if (!Array.isArray(document.policies)) {
    issues.error({
      code: "POLICIES_NOT_ARRAY",
      path: "/policies",
      message: "policies must be an array (it may be empty)",
    });
    return issues.result();
  }
  issues.unknownFields(document, DRAFT_FIELDS, "", "the draft", "the CLI");
  document.policies.forEach((policy, i) => checkDraftPolicy(policy, i, issues));
  issues.addResult(validateBundle({
    schemaVersion: 1,
    env: "prod",
    policies: projectPolicies(document.policies),
  }));
  return issues.result();
}

/** The fields of a draft; its rules and defaults have the bundle's (`validateBundle` checks them). */
const DRAFT_FIELDS: ReadonlySet<string> = new Set([
  "$schema",
  "schemaVersion",
  "generatedAt",
  "policies",
]);
const DRAFT_POLICY_FIELDS: ReadonlySet<string> = new Set([
  "policyKey",
  "activeVersion",
  "friendlyName",
  "discoveredTarget",
  "rules",
  "defaults",
]);
const TARGET_FIELDS: ReadonlySet<string> = new Set(["service", "resource", "action"]);

/**
 * The draft-only fields of a policy: `friendlyName` (a string),
 * `discoveredTarget` (a target), unknown fields (`UNKNOWN_FIELD`), and rules
 * whose target is neither the discovered target nor another rule's
 * (`RULE_TARGET_UNMATCHED`: `invoices` written for `invoice` would make a
 * rule no evaluation point ever reaches).
 */
function checkDraftPolicy(policy: unknown, index: number, issues: CappedIssues) {
  if (!isRecord(policy)) return; // validateBundle reports it
  const at = `/policies/${index}`;
  const name = typeof policy.policyKey === "string"
    ? `policy ${describeValue(policy.policyKey)}`
    : `policy ${index}`;
  issues.unknownFields(policy, DRAFT_POLICY_FIELDS, at, name, "the CLI");
  if (policy.friendlyName !== undefined && typeof policy.friendlyName !== "string") {
    issues.error({
      code: "INVALID_FIELD",
      path: `${at}/friendlyName`,
      message: `${name}: friendlyName must be a string`,
    });
  }
  const discovered = policy.discoveredTarget;
  if (discovered === undefined) return;
  if (!isTarget(discovered)) {
    issues.error({
      code: "INVALID_FIELD",
      path: `${at}/discoveredTarget`,
      message: `${name}: discoveredTarget must be {service, resource, action} (non-empty strings)`,
    });
    return;
  }
  issues.unknownFields(discovered, TARGET_FIELDS, `${at}/discoveredTarget`, name, "the CLI");
  if (!Array.isArray(policy.rules)) return;
  const targets = policy.rules.map((rule) =>
    isRecord(rule) && isTarget(rule.target) ? targetText(rule.target) : null
  );
  const counts = new Map<string, number>();
  for (const t of targets) if (t !== null) counts.set(t, (counts.get(t) ?? 0) + 1);
  const expected = targetText(discovered);
  targets.forEach((target, i) => {
    if (target === null || target === expected || counts.get(target)! > 1) return;
    const rule = policy.rules as unknown[];
    const id = (rule[i] as Record<string, unknown>).id;
    const close = suggest(target, [expected]);
    issues.warn({
      code: "RULE_TARGET_UNMATCHED",
      path: `${at}/rules/${i}/target`,
      message: `${name}, rule ${describeValue(id)}: target ${
        cutText(target, 120)
      } is neither the policy's discoveredTarget (${
        cutText(expected, 120)
      }) nor the target of another of its rules, so no evaluation point found in the code reaches it${
        close === undefined ? "" : `; did you mean ${cutText(close, 120)}?`
      }`,
    });
  });
}

/** True for `{service, resource, action}` with non-empty strings. */
export function isTarget(value: unknown): value is Target {
  return isRecord(value) &&
    [value.service, value.resource, value.action].every((v) => typeof v === "string" && v !== "");
}

/** `service/resource/action`. */
function targetText(target: Target): string {
  return `${target.service}/${target.resource}/${target.action}`;
}

/** Number of rules of the policies that have a rules array. */
export function countRules(policies: unknown): number {
  if (!Array.isArray(policies)) return 0;
  return policies.reduce<number>(
    (n, p) => n + (isRecord(p) && Array.isArray(p.rules) ? p.rules.length : 0),
    0,
  );
}
