// This module is browser compatible.
/**
 * Validation of a bundle document against the runtime's rules: the entry
 * points (`validateBundle`, `assertValidBundle`, and for the load pipeline
 * and the compiler `validateForLoad` and `validateAndBuild`) and the one
 * walk they share. Its parts are in `validation/`: the walk's state and
 * issue cap (`walk.ts`), the fields each object may have (`known_fields.ts`),
 * the bundle's own fields (`check_top_level.ts`), policies and rules
 * (`check_policy.ts`), effects and defaults (`check_effect.ts`) and
 * conditions (`check_condition.ts`). The format itself, its patterns and
 * bounds included, is `bundle_format.ts`.
 *
 * @module
 */
import type { Issue, ValidationResult } from "./types.ts";
import { PolicyError } from "../public/policy_error.ts";
import { isRecord } from "../_internal/guards.ts";
import type { BundleBuilder } from "./_bundle_builder.ts";
import { ENVS } from "../public/vocabulary.ts";
import {
  checkOptions,
  describeValue,
  type Fields,
  NO_OPTIONS,
} from "../_internal/check_options.ts";
import { Collector, describe, ERROR, Site } from "./validation/walk.ts";
import { FIELDS, unknownFields } from "./validation/known_fields.ts";
import { checkOptionalTopLevel } from "./validation/check_top_level.ts";
import { checkPolicy } from "./validation/check_policy.ts";

/** Issues of each kind {@link validateBundle} lists by default; the rest are counted. */
export const DEFAULT_MAX_ISSUES = 1000;

/** Issues of each kind the load pipeline lists in a `BUNDLE_INVALID` error. */
export const LOAD_MAX_ISSUES = 100;

/** Options of {@link validateBundle}. */
export interface ValidateBundleOptions {
  /**
   * At most this many errors, and this many warnings, are listed (each at
   * least 1); the others are only counted in `omitted`. Default
   * {@link DEFAULT_MAX_ISSUES}. Bounds the memory a hostile document can
   * make validation use.
   */
  maxIssues?: number;
}

/**
 * Validates a parsed bundle document against the runtime's rules and
 * collects every issue (not only the first), up to `maxIssues` errors and
 * `maxIssues` warnings; beyond that, issues are only counted, in `omitted`
 * (present only then). Errors make the bundle unloadable; warnings point at
 * things that load but are probably not what the author meant (see
 * `docs/errors.md` for every code). Time is linear in the document's size
 * and memory is bounded by the cap, whatever the document holds.
 *
 * @example A valid bundle, and one with two errors
 * ```ts
 * import { validateBundle } from "./validate_bundle.ts";
 * import assert from "node:assert/strict";
 *
 * assert.deepEqual(validateBundle({ schemaVersion: 1, env: "prod", policies: [] }), {
 *   valid: true,
 *   errors: [],
 *   warnings: [],
 * });
 * const result = validateBundle({ schemaVersion: 2, env: "qa", policies: [] });
 * assert.equal(result.valid, false);
 * assert.deepEqual(result.errors.map((e) => e.code), ["INVALID_SCHEMA_VERSION", "INVALID_ENV"]);
 * ```
 */
export function validateBundle(
  document: unknown,
  options: ValidateBundleOptions = NO_OPTIONS,
): ValidationResult {
  if (options !== NO_OPTIONS) checkOptions(options, VALIDATE_FIELDS, "validateBundle");
  return result(collect(document, options.maxIssues ?? DEFAULT_MAX_ISSUES));
}

/** The options of `validateBundle`, for the library's one option checker. */
const VALIDATE_FIELDS: Fields = {
  maxIssues: {
    check: (value) =>
      typeof value === "number" && (Number.isSafeInteger(value) || value === Infinity) &&
        value >= 0
        ? undefined
        : `must be a whole number of issues, 0 or more (or Infinity); got ${describeValue(value)}`,
  },
};

/** Walks the document once, collecting its issues (and building with `build`, when given). */
function collect(
  document: unknown,
  maxIssues: number,
  build: BundleBuilder | null = null,
): Collector {
  const out = new Collector(maxIssues, build);
  if (!isRecord(document)) {
    if (out.keep(ERROR)) {
      out.error(
        "DOCUMENT_NOT_OBJECT",
        "",
        "the document must be a JSON object with schemaVersion, env and policies",
      );
    }
    return out;
  }
  if (document.schemaVersion !== 1) {
    if (out.keep(ERROR)) {
      out.error(
        "INVALID_SCHEMA_VERSION",
        "/schemaVersion",
        `schemaVersion must be the integer 1, found ${describe(document.schemaVersion)}`,
      );
    }
  }
  if (!(ENVS as readonly unknown[]).includes(document.env)) {
    if (out.keep(ERROR)) {
      out.error(
        "INVALID_ENV",
        "/env",
        `env must be one of ${ENVS.join(", ")}, found ${describe(document.env)}`,
      );
    }
  }
  checkOptionalTopLevel(document, out);
  unknownFields(document, FIELDS.bundle, out, "", "the bundle");
  if (isRecord(document.signature)) {
    unknownFields(document.signature, FIELDS.signature, out, "/signature", "the signature");
  }
  const policies = document.policies;
  if (!Array.isArray(policies)) {
    if (out.keep(ERROR)) {
      out.error(
        "POLICIES_NOT_ARRAY",
        "/policies",
        `policies must be an array (it may be empty), found ${describe(policies)}`,
      );
    }
    return out;
  }
  const seenKeys = new Map<string, number>();
  const site = new Site();
  for (let i = 0; i < policies.length; i++) checkPolicy(policies[i], i, seenKeys, site, out);
  return out;
}

/**
 * Validates and throws when the bundle is invalid; returns the warnings.
 *
 * @throws {PolicyError} `BUNDLE_INVALID`, carrying every error in `issues`.
 *
 * @example
 * ```ts
 * import { assertValidBundle } from "./validate_bundle.ts";
 * import assert from "node:assert/strict";
 *
 * assert.deepEqual(assertValidBundle({ schemaVersion: 1, env: "dev", policies: [] }), []);
 * assert.throws(() => assertValidBundle({ env: "dev" }), { code: "BUNDLE_INVALID" });
 * ```
 */
export function assertValidBundle(
  document: unknown,
  options: ValidateBundleOptions = NO_OPTIONS,
): Issue[] {
  if (options !== NO_OPTIONS) checkOptions(options, VALIDATE_FIELDS, "assertValidBundle");
  return checked(collect(document, options.maxIssues ?? DEFAULT_MAX_ISSUES)).warnings;
}

/**
 * {@link assertValidBundle} for the load pipeline (`loadBundle`), with its
 * issue cap, also saying whether every rule and default lists its keys in
 * canonical order at every depth: the walk that checks their depth and
 * numbers sees every key anyway, and the canonical payload can then skip a
 * walk of its own (`canonicalPayloadBytesOfParsed`). Not exported by
 * `mod.ts`.
 *
 * @throws {PolicyError} `BUNDLE_INVALID`, carrying every error in `issues`.
 */
export function validateForLoad(document: unknown): { warnings: Issue[]; keysInOrder: boolean } {
  const out = checked(collect(document, LOAD_MAX_ISSUES));
  return { warnings: out.warnings, keysInOrder: out.keysInOrder };
}

/**
 * {@link validateForLoad} that also compiles, in the same walk: `build`
 * gets each policy and each rule as it is found valid, and its programs are
 * made (`build.finish()`) only when the whole bundle is. Not exported by
 * `mod.ts` (`compileBundle` and the load pipeline call it).
 *
 * @param maxIssues {@link LOAD_MAX_ISSUES} for the load pipeline, else {@link DEFAULT_MAX_ISSUES}.
 * @throws {PolicyError} `BUNDLE_INVALID`, carrying every error in `issues`.
 */
export function validateAndBuild(
  document: unknown,
  maxIssues: number,
  build: BundleBuilder,
): { warnings: Issue[]; keysInOrder: boolean } {
  const out = checked(collect(document, maxIssues, build));
  return { warnings: out.warnings, keysInOrder: out.keysInOrder };
}

/** `out` when it holds no error; otherwise `BUNDLE_INVALID` with its errors. */
function checked(out: Collector): Collector {
  const validation = result(out);
  if (!validation.valid) {
    const first = validation.errors[0]!;
    const more = validation.errors.length - 1 + (validation.omitted?.errors ?? 0);
    throw new PolicyError(
      "BUNDLE_INVALID",
      `the bundle is invalid: ${first.message} (at ${first.path || "/"})` +
        (more > 0 ? ` and ${more} more issue(s)` : ""),
      { issues: validation.errors },
    );
  }
  return out;
}

function result(out: Collector): ValidationResult {
  const valid = out.errors.length === 0;
  if (out.omittedErrors === 0 && out.omittedWarnings === 0) {
    return { valid, errors: out.errors, warnings: out.warnings };
  }
  return {
    valid,
    errors: out.errors,
    warnings: out.warnings,
    omitted: { errors: out.omittedErrors, warnings: out.omittedWarnings },
  };
}
