/**
 * What the playground knows about the document in its editor: a bundle (read
 * by the library's load pipeline, `inspectBundle`) or a draft (checked as
 * `policy validate` checks one), its issues and dead-rule findings with their
 * JSON Pointer, and, when it is valid, the compiled bundle every panel
 * evaluates with. No DOM: the page and the tests use it alike.
 *
 * @module
 */
import {
  compileBundle,
  type CompiledBundle,
  type Issue,
  JsonParseError,
  parseJson,
  type Rule,
  type RuntimeBundleV1,
  type Target,
} from "../src/engine/mod.ts";
import { inspectBundle } from "../src/verify/mod.ts";
import { lintBundle } from "../src/lint/mod.ts";
import { isPolicyError } from "../src/engine/mod.ts";
import { detectDocumentType } from "../src/authoring/document_type.ts";
import { type DraftDocument, draftToBundle, validateDraft } from "../src/authoring/draft.ts";

/** One issue of the document, as the Bundle panel lists it. */
export interface DocumentIssue extends Issue {
  /** `error`: the document cannot be evaluated; `warning`: it can, but look. */
  severity: "error" | "warning";
  /** `validation` (validateBundle, the draft's checks), `lint` (lintBundle) or `integrity`. */
  source: "validation" | "lint" | "integrity" | "parse";
  /** For a parse error: the offset of the problem in the text. */
  offset?: number;
}

/** The document in the editor, read. */
export interface DocumentModel {
  /** What the text is. */
  kind: "empty" | "bundle" | "draft" | "unreadable";
  /** Errors first, then warnings, each in the order found. */
  issues: DocumentIssue[];
  /** The compiled bundle when the document is valid (a draft: the bundle it builds), else null. */
  compiled: CompiledBundle | null;
  /**
   * The bundle that was compiled, as a document (a draft: the bundle it
   * builds); null exactly when `compiled` is. The compiled form does not keep
   * it (`policiesOf` gives its policies as compiled, without descriptions).
   */
  bundle: RuntimeBundleV1 | null;
  /** Every target a rule names, sorted. */
  targets: Target[];
  /** For a bundle that loaded: its computed checksum (`sha256:…`). */
  checksum: string | null;
}

/** The environment a draft's bundle is built for in the playground (a draft has none). */
export const DRAFT_ENV = "dev";

/**
 * Reads the text of a bundle or a draft (JSON; a draft may have comments).
 * Never throws for bad input: what is wrong is in `issues`.
 */
export async function readDocument(text: string): Promise<DocumentModel> {
  if (text.trim() === "") {
    return { kind: "empty", issues: [], compiled: null, bundle: null, targets: [], checksum: null };
  }
  let document: unknown;
  try {
    document = parseJson(text, { comments: true });
  } catch (error) {
    return unreadable(error);
  }
  return detectDocumentType(document).type === "draft"
    ? readDraft(document)
    : await readBundle(text);
}

async function readBundle(text: string): Promise<DocumentModel> {
  try {
    // The pipeline of the clients, with integrity failures reported rather than thrown: an edited
    // bundle no longer matches its checksum or signature, and is still worth evaluating here.
    const seen = await inspectBundle(text, { allowUnsigned: true });
    const issues: DocumentIssue[] = [];
    const integrity = seen.integrity;
    if (integrity !== null && integrity.code === "CHECKSUM_MISMATCH") {
      issues.push({
        severity: "warning",
        source: "integrity",
        code: integrity.code,
        message: `${integrity.message} (a client would refuse it)`,
        path: "/checksum",
      });
    }
    issues.push(...warnings(seen.warnings, "validation"));
    issues.push(...warnings(lintBundle(seen.document), "lint"));
    return {
      kind: "bundle",
      issues,
      compiled: seen.compiled,
      bundle: seen.document,
      targets: targetsOf(seen.document),
      checksum: seen.status.checksum,
    };
  } catch (error) {
    if (isPolicyError(error, "BUNDLE_INVALID")) {
      return {
        kind: "bundle",
        issues: error.issues.map((i) => ({ ...i, severity: "error", source: "validation" })),
        compiled: null,
        bundle: null,
        targets: [],
        checksum: null,
      };
    }
    if (isPolicyError(error, "BUNDLE_PARSE_ERROR")) return unreadable(error.cause ?? error);
    if (isPolicyError(error)) {
      return {
        kind: "bundle",
        issues: [{
          severity: "error",
          source: "parse",
          code: error.code,
          message: error.message,
          path: "",
        }],
        compiled: null,
        bundle: null,
        targets: [],
        checksum: null,
      };
    }
    throw error;
  }
}

function readDraft(document: unknown): DocumentModel {
  const result = validateDraft(document);
  const issues: DocumentIssue[] = [
    ...result.errors.map((i): DocumentIssue => ({ ...i, severity: "error", source: "validation" })),
    ...warnings(result.warnings, "validation"),
  ];
  if (!result.valid) {
    return { kind: "draft", issues, compiled: null, bundle: null, targets: [], checksum: null };
  }
  const bundle = draftToBundle(document as DraftDocument, { env: DRAFT_ENV });
  const compiled = compileBundle(bundle);
  // The projection keeps the policies' and rules' indexes: the findings' pointers hold in the draft.
  issues.push(...warnings(lintBundle(bundle), "lint"));
  return { kind: "draft", issues, compiled, bundle, targets: targetsOf(bundle), checksum: null };
}

function warnings(issues: readonly Issue[], source: DocumentIssue["source"]): DocumentIssue[] {
  return issues.map((i) => ({ ...i, severity: "warning", source }));
}

function unreadable(error: unknown): DocumentModel {
  const parse = error instanceof JsonParseError ? error : null;
  return {
    kind: "unreadable",
    issues: [{
      severity: "error",
      source: "parse",
      code: "NOT_JSON",
      message: parse === null
        ? `the text is not JSON: ${(error as Error).message}`
        : `the text is not JSON: ${parse.message}`,
      path: "",
      ...(parse === null ? {} : { offset: parse.offset }),
    }],
    compiled: null,
    bundle: null,
    targets: [],
    checksum: null,
  };
}

/** The distinct targets the rules of a bundle name, sorted by service, resource, action. */
export function targetsOf(bundle: RuntimeBundleV1): Target[] {
  const seen = new Map<string, Target>();
  for (const policy of bundle.policies) {
    for (const rule of policy.rules) {
      const { service, resource, action } = rule.target;
      seen.set(JSON.stringify([service, resource, action]), { service, resource, action });
    }
  }
  return [...seen.entries()].sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0).map(([, t]) => t);
}

/** Where a rule is in the document, and the rule: by policy key and rule id. */
export interface RuleSite {
  rule: Rule;
  /** Its JSON Pointer (`/policies/0/rules/2`). */
  pointer: string;
}

/** Every rule of a bundle by `[policyKey, ruleId]` (the first of duplicates). */
export function ruleSites(bundle: RuntimeBundleV1): Map<string, RuleSite> {
  const sites = new Map<string, RuleSite>();
  bundle.policies.forEach((policy, p) =>
    policy.rules.forEach((rule, r) => {
      const key = ruleKey(policy.policyKey, rule.id);
      if (!sites.has(key)) sites.set(key, { rule, pointer: `/policies/${p}/rules/${r}` });
    })
  );
  return sites;
}

/** The key of a rule in {@link ruleSites}. */
export function ruleKey(policyKey: string, ruleId: string): string {
  return JSON.stringify([policyKey, ruleId]);
}
