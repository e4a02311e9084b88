// This module is browser compatible.
/**
 * The state of one walk of validation: the issues it collects, capped per
 * kind ({@link Collector}), where it is ({@link Site}), and how values are
 * named in messages ({@link describe}).
 *
 * @module
 */
import type { Issue } from "../types.ts";
import type { BundleBuilder } from "../_bundle_builder.ts";
import { isNonEmptyString } from "../../_internal/guards.ts";

/** An error: makes the bundle unloadable. */
export const ERROR = 0;
/** A warning: the bundle loads. */
export const WARNING = 1;

/**
 * Collects issues up to a cap per kind. A check asks {@link Collector.keep}
 * first and builds its path and message only when the issue is kept, so an
 * issue past the cap costs one counter increment.
 */
export class Collector {
  readonly errors: Issue[] = [];
  readonly warnings: Issue[] = [];
  omittedErrors = 0;
  omittedWarnings = 0;
  /** Every rule and default lists its keys in canonical order (see `validateForLoad`). */
  keysInOrder = true;
  readonly max: number;
  /** Compiles the bundle in the same walk, while it has no error (see `validateAndBuild`). */
  build: BundleBuilder | null;
  /**
   * The `when` being checked is written the one way its compiled test
   * identifies it: no legacy spelling (`ne`, `args`, `arg`), no unknown
   * field, nothing malformed; identical such conditions can be kept once.
   */
  whenCanonical = true;

  constructor(max: number, build: BundleBuilder | null = null) {
    this.max = Math.max(1, Math.floor(max));
    this.build = build;
  }

  /** True when the next issue of this kind is listed; otherwise it is counted as omitted. */
  keep(kind: typeof ERROR | typeof WARNING): boolean {
    if (kind === ERROR) {
      this.build = null; // the bundle is invalid: nothing will be compiled
      if (this.errors.length < this.max) return true;
      this.omittedErrors++;
    } else {
      if (this.warnings.length < this.max) return true;
      this.omittedWarnings++;
    }
    return false;
  }

  /** Lists an error; call only after `keep(ERROR)` said true. */
  error(code: string, path: string, message: string): void {
    this.errors.push({ code, message, path });
  }

  /** Lists a warning; call only after `keep(WARNING)` said true. */
  warn(code: string, path: string, message: string): void {
    this.warnings.push({ code, message, path });
  }
}

/**
 * Where the walk is. Paths and names for messages are built from it only
 * when an issue is reported: the walk itself allocates no closures or strings.
 */
export class Site {
  policy = 0;
  policyKey: unknown = undefined;
  /** -1 while at the policy itself (its fields and defaults). */
  rule = -1;
  ruleId: unknown = undefined;
  /** Field names and indexes below the policy or rule, as a stack. */
  readonly below: (string | number)[] = [];

  /** The JSON Pointer of the current place, plus `suffix`. */
  path(suffix = ""): string {
    let path = `/policies/${this.policy}`;
    if (this.rule >= 0) path += `/rules/${this.rule}`;
    for (const segment of this.below) path += `/${segment}`;
    return path + suffix;
  }

  policyName(): string {
    return isNonEmptyString(this.policyKey)
      ? `policy ${describe(this.policyKey)}`
      : `policy ${this.policy}`;
  }

  /** The policy, and the rule when inside one, for messages. */
  name(): string {
    if (this.rule < 0) return this.policyName();
    const rule = isNonEmptyString(this.ruleId) ? describe(this.ruleId) : this.rule;
    return `${this.policyName()}, rule ${rule}`;
  }
}

/** A value as messages name it: its kind, or a short quoted string. */
export function describe(value: unknown): string {
  if (value === undefined) return "nothing";
  if (Array.isArray(value)) return "an array";
  if (value === null) return "null";
  if (typeof value === "object") return "an object";
  if (typeof value === "string") {
    return JSON.stringify(value.length > 40 ? value.slice(0, 40) + "…" : value);
  }
  return String(value);
}
