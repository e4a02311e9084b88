/**
 * Types of the discovery core of `policy analyze`: evaluation points found in
 * source code and the warnings of the scan.
 *
 * @module
 */
import type { Target } from "../engine/types.ts";

/** The TypeScript compiler API module (`npm:typescript`, 5.x), passed in so that it loads lazily. */
export type TypeScriptApi = typeof import("typescript");

/** A place in a scanned source tree. `line` and `column` are 1-based; `column` counts UTF-16 code units. */
export interface SourceLocation {
  /** Path of the file, relative to the scanned root, with `/` separators. */
  file: string;
  /** Line, from 1. */
  line: number;
  /** Column, from 1, in UTF-16 code units. */
  column: number;
}

/**
 * A call `x.evaluate({ target, ... })` whose target was resolved statically.
 * The location is the start of the call expression (the first character of
 * `x`).
 */
export interface EvaluationPoint extends SourceLocation {
  /** The target the call evaluates. */
  target: Target;
}

/**
 * The stable codes of discovery warnings (see `docs/analyze.md`):
 *
 * - `ANALYZE_TARGET_UNRESOLVED`: an `evaluate` call whose request or target
 *   cannot be resolved statically (a parameter, a `let`, an import, a
 *   computed value, an unresolvable spread, a non-literal field).
 * - `ANALYZE_TARGET_INVALID`: the target was resolved but cannot be a valid
 *   target (a field is missing or empty, or `target` is not an object).
 * - `ANALYZE_FILE_UNREADABLE`: a file or folder could not be read; it was skipped.
 * - `ANALYZE_FILE_TOO_LARGE`: a file is larger than `maxFileBytes`; it was skipped.
 * - `ANALYZE_FILE_UNPARSABLE`: a file nests too deeply for the parser (generated
 *   code); it was skipped.
 */
export type DiscoveryWarningCode =
  | "ANALYZE_TARGET_UNRESOLVED"
  | "ANALYZE_TARGET_INVALID"
  | "ANALYZE_FILE_UNREADABLE"
  | "ANALYZE_FILE_TOO_LARGE"
  | "ANALYZE_FILE_UNPARSABLE";

/**
 * Something the scan could not turn into an evaluation point. Warnings about a
 * whole file or folder point at line 1, column 1.
 */
export interface DiscoveryWarning extends SourceLocation {
  /** The stable code of the warning. */
  code: DiscoveryWarningCode;
  /** For people: says what was found and what to do. */
  message: string;
}

/** What {@link discoverEvaluationPoints} finds in one file. */
export interface Discovery {
  /** The evaluation points, in source order. */
  points: EvaluationPoint[];
  /** What could not be resolved, in source order. */
  warnings: DiscoveryWarning[];
}
