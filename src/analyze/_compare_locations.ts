import type { SourceLocation } from "./types.ts";

/**
 * Orders locations by file (UTF-16 code unit order, never locale-dependent),
 * then line, then column.
 */
export function compareLocations(a: SourceLocation, b: SourceLocation): number {
  if (a.file !== b.file) return a.file < b.file ? -1 : 1;
  if (a.line !== b.line) return a.line - b.line;
  return a.column - b.column;
}
