// This module is browser compatible.
/**
 * Whether a parsed document is a draft or a bundle (docs/cli.md, "Which
 * document a command works on"), told from its fields alone.
 *
 * @module
 */

/** The two document types. */
export type DocumentType = "draft" | "bundle";

/** Fields only a bundle has. */
const BUNDLE_ONLY = ["env", "checksum", "signature", "bundleVersion", "etag", "orgId", "projectId"];

/**
 * The type of a parsed document named on the command line, and why: a
 * string `schemaVersion` (drafts carry `"1.0"`) is a draft; a field only
 * bundles have (`env`, `checksum`, `signature`, …) makes a bundle; an object
 * with neither is a draft (every bundle has `env`, so `"schemaVersion": 1.0`
 * written as a number does not turn a draft into a bundle). Anything that is
 * not an object is reported against the bundle schema.
 */
export function detectDocumentType(document: unknown): { type: DocumentType; why: string } {
  if (typeof document !== "object" || document === null || Array.isArray(document)) {
    return { type: "bundle", why: "it is not an object" };
  }
  const record = document as Record<string, unknown>;
  if (typeof record.schemaVersion === "string") {
    return { type: "draft", why: "its schemaVersion is a string" };
  }
  const field = BUNDLE_ONLY.find((f) => Object.hasOwn(record, f));
  if (field !== undefined) {
    return { type: "bundle", why: `it has ${field}, which only bundles have` };
  }
  return { type: "draft", why: "it has no env or other field only bundles have" };
}
