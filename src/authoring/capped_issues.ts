/**
 * Issues of the documents the CLI checks (drafts, imports), listed as
 * validation lists them: at most {@link DEFAULT_MAX_ISSUES} errors and as
 * many warnings, the rest only counted. A document of a million unknown
 * fields costs a counter per field, not a million messages (nor a spread
 * of a million arguments, which overflows the stack).
 *
 * @module
 */
import type { Issue, ValidationResult } from "../engine/types.ts";
import { DEFAULT_MAX_ISSUES } from "../engine/validate_bundle.ts";
import { unknownFieldIssue } from "../_internal/unknown_field_issue.ts";
import { isRecord } from "../_internal/guards.ts";

/** Errors and warnings up to a cap each, and how many more there were. */
export class CappedIssues {
  readonly errors: Issue[] = [];
  readonly warnings: Issue[] = [];
  omittedErrors = 0;
  omittedWarnings = 0;
  readonly max: number;

  constructor(max = DEFAULT_MAX_ISSUES) {
    this.max = max;
  }

  /** Lists an error, or counts it past the cap. */
  error(issue: Issue): void {
    if (this.errors.length < this.max) this.errors.push(issue);
    else this.omittedErrors++;
  }

  /** Lists a warning, or counts it past the cap. */
  warn(issue: Issue): void {
    if (this.warnings.length < this.max) this.warnings.push(issue);
    else this.omittedWarnings++;
  }

  /**
   * The `UNKNOWN_FIELD` warnings of the fields of `object` (a plain object)
   * that are not in `known`; past the cap they are counted without being
   * described.
   */
  unknownFields(
    object: unknown,
    known: readonly string[] | ReadonlySet<string>,
    parentPath: string,
    name: string,
    ignoredBy: string,
  ): void {
    if (!isRecord(object)) return;
    const has = Array.isArray(known)
      ? (key: string) => known.includes(key)
      : (key: string) => (known as ReadonlySet<string>).has(key);
    for (const key of Object.keys(object)) {
      if (has(key)) continue;
      if (this.warnings.length < this.max) {
        this.warnings.push(unknownFieldIssue(key, known, parentPath, name, ignoredBy));
      } else {
        this.omittedWarnings++;
      }
    }
  }

  /** Adds what `validateBundle` (or another capped check) found, with its omitted counts. */
  addResult(result: ValidationResult): void {
    for (const issue of result.errors) this.error(issue);
    for (const issue of result.warnings) this.warn(issue);
    this.omittedErrors += result.omitted?.errors ?? 0;
    this.omittedWarnings += result.omitted?.warnings ?? 0;
  }

  /** The result: valid when no error was found; `omitted` only when something was. */
  result(): ValidationResult {
    const valid = this.errors.length === 0;
    const { errors, warnings } = this;
    return this.omittedErrors + this.omittedWarnings === 0 ? { valid, errors, warnings } : {
      valid,
      errors,
      warnings,
      omitted: { errors: this.omittedErrors, warnings: this.omittedWarnings },
    };
  }
}
