/**
 * What the runtime's own checks say about a document of each kind that has a
 * schema, and the documented differences with the schemas
 * (docs/schemas.md "Where the schemas and the runtime differ").
 */
import type { Issue } from "../../mod.ts";
import { validateBundle } from "../../src/engine/validate_bundle.ts";
import { validateDraft } from "../../src/authoring/draft.ts";
import { parseSuite } from "../../src/cli/kit/suite.ts";
import { posix } from "node:path";
import { resolveConfig } from "../../src/cli/kit/config.ts";
import { analyzeSettings } from "../../src/cli/commands/analyze.ts";
import { parseRequests } from "../../src/cli/commands/diff/requests.ts";
import type { SchemaName } from "../../tools/build_schemas.ts";

/**
 * The runtime's verdict: the errors that refuse the document, and the codes
 * of the warnings of a document it accepts (which a schema must accept too:
 * warnings are `policy validate`'s, not the schema's).
 */
export interface Verdict {
  /** `CODE at /pointer` of each error ("CODE" alone for documents checked by a parser). */
  errors: Issue[];
  /** The code of each warning (validation only). */
  warnings: string[];
}

/** What the runtime says about `document` read as a document of kind `kind`. */
export function runtimeVerdict(kind: SchemaName, document: unknown): Verdict {
  switch (kind) {
    case "bundle":
      return fromValidation(validateBundle(document));
    case "draft":
      return fromValidation(validateDraft(document));
    case "rule": {
      // As `policies add-rule` checks it: the rule of a policy of a bundle.
      const result = validateBundle({
        schemaVersion: 1,
        env: "prod",
        policies: [{ policyKey: "p", activeVersion: 1, rules: [document] }],
      });
      return fromValidation(result);
    }
    case "suite":
      return thrown(() => parseSuite(document, "suite.json"));
    case "config":
      return thrown(() => {
        if (typeof document !== "object" || document === null || Array.isArray(document)) {
          throw Object.assign(new Error("not an object"), { code: "CONFIG_INVALID" });
        }
        const config = resolveConfig("/wf", "/wf/policy.config.json", document as never, posix);
        analyzeSettings(config.analyze, config.file);
      });
    case "requests-line":
      return thrown(() => parseRequests(JSON.stringify(document), "requests.jsonl"));
  }
}

function fromValidation(result: { errors: Issue[]; warnings: Issue[] }): Verdict {
  return {
    errors: result.errors,
    warnings: result.warnings.map((w) => w.code),
  };
}

function thrown(check: () => unknown): Verdict {
  try {
    check();
    return { errors: [], warnings: [] };
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (typeof code !== "string") throw error;
    return {
      errors: [{ code, message: (error as Error).message, path: "" }],
      warnings: [],
    };
  }
}

/**
 * Errors of the runtime that the schemas do not express, on purpose: a JSON
 * Schema cannot say that keys are unique across a list, bound the depth of
 * a recursive structure, see numbers JSON cannot hold, parse a date, or
 * compare two fields (a rollout's `from` and `to`).
 */
export function isDeliberateDifference(issue: Issue): boolean {
  switch (issue.code) {
    case "DUPLICATE_POLICY_KEY":
    case "DUPLICATE_RULE_ID":
    case "CONDITION_TOO_DEEP":
    case "DOCUMENT_TOO_DEEP":
    case "NUMBER_NOT_FINITE":
      return true;
    case "INVALID_FIELD":
      // A date of the right form that does not exist (docs/schemas.md lists both).
      return issue.path === "/generatedAt" || issue.path === "/freshness";
    case "CONDITION_MALFORMED":
      // A rollout's `from` above its `to`: a schema cannot compare two fields.
      return issue.path.endsWith("/from") && issue.message.includes(" is above to ");
    default:
      return false;
  }
}
