/**
 * The JSON Schemas of the documents the CLI reads and writes (`schemas/`,
 * docs/schemas.md): where they are published, and the `$schema` field that
 * points editors to them in the files the CLI writes.
 *
 * @module
 */
import { PACKAGE_NAME, PACKAGE_VERSION } from "../../_internal/version.ts";

/** The documents that have a schema, by the stem of their file name in `schemas/`. */
export const SCHEMA_NAMES = [
  "bundle",
  "draft",
  "rule",
  "suite",
  "config",
  "requests-line",
] as const;

/** A schema's name. */
export type SchemaName = typeof SCHEMA_NAMES[number];

/** The URL a schema is published at (its `$id`): the package's file on JSR, for this version. */
export function schemaUrl(name: SchemaName, version = PACKAGE_VERSION): string {
  return `https://jsr.io/${PACKAGE_NAME}/${version}/schemas/${name}.schema.json`;
}

/**
 * The document with `$schema` pointing to its schema, first; a document that
 * already names a schema keeps its own (an editor set-up may point elsewhere).
 */
export function withSchema<T extends object>(document: T, name: SchemaName): T {
  if (Object.hasOwn(document, "$schema")) return document;
  return { $schema: schemaUrl(name), ...document };
}

/** A document read without its `$schema` field (for a document that becomes part of another). */
export function withoutSchema(document: unknown): unknown {
  if (typeof document !== "object" || document === null || !Object.hasOwn(document, "$schema")) {
    return document;
  }
  const { $schema: _schema, ...rest } = document as Record<string, unknown>;
  return rest;
}
