// This module is browser compatible.
import type { Issue, ValidationResult } from "./types.ts";
import { PolicyError } from "../public/policy_error.ts";
import {
  findNonFiniteNumber,
  isConditionValue,
  isEffectType,
  isFiniteNumber,
  isNonEmptyString,
  isRecord,
  jsonProblems,
  KEYS_OUT_OF_ORDER,
  MAX_CONDITION_DEPTH,
  toComparableNumber,
  TOO_DEEP,
} from "../_internal/guards.ts";
import { unknownFieldIssue } from "../_internal/unknown_field_issue.ts";
import type { BundleBuilder } from "./_bundle_builder.ts";
import { suggest } from "../_internal/suggest.ts";
import { fieldNames, type FieldsObjectName, OBJECTS_WITH_FIELDS } from "./bundle_format.ts";
import {
  COMPARISON_OPERATORS,
  CONDITION_OPERATORS,
  ENVS,
  ORDERING_OPERATORS,
  RULE_STATUSES,
} from "../public/vocabulary.ts";
import {
  checkOptions,
  describeValue,
  type Fields,
  NO_OPTIONS,
} from "../_internal/check_options.ts";
import { freshnessProblem } from "./freshness_statement.ts";
import { CHECKED_KINDS, checkedConditionProblems } from "./operators/checked_condition.ts";

/** Rules and defaults nest at most this deep as JSON (far beyond any real condition tree). */
const MAX_RULE_JSON_DEPTH = 256;

const COMPARISON_OPS: ReadonlySet<string> = new Set(COMPARISON_OPERATORS);
const ORDERING_OPS: ReadonlySet<string> = new Set(ORDERING_OPERATORS);
const CHECKSUM = /^sha256:[0-9a-f]{64}$/;
const ISO_8601 =
  /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/;

/** The fields one kind of object may have, and its bit in {@link fieldBits}. */
interface FieldSet {
  readonly names: readonly string[];
  readonly bit: number;
}

/**
 * The fields each object of a bundle may have, derived from the format's
 * definition (`bundle_format.ts`, docs/bundle-format.md), each kind with
 * its own bit. Any other field is kept and ignored by the runtime, and
 * reported as an `UNKNOWN_FIELD` warning with the closest known name: a
 * typo such as `thenEfect` would otherwise change decisions without a word.
 */
const FIELDS = {} as Record<FieldsObjectName, FieldSet>;
OBJECTS_WITH_FIELDS.forEach((name, i) => FIELDS[name] = { names: fieldNames(name), bit: 1 << i });

/** Every field name, with the bits of the kinds of object it belongs to. */
const BITS: ReadonlyMap<string, number> = (() => {
  const bits = new Map<string, number>();
  for (const set of Object.values<FieldSet>(FIELDS)) {
    for (const name of set.names) bits.set(name, (bits.get(name) ?? 0) | set.bit);
  }
  return bits;
})();

/** The bits of the field sets `key` belongs to (0 for a field of none). */
function fieldBits(key: string): number {
  return BITS.get(key) ?? 0;
}

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
 * Collects issues up to a cap per kind. A check asks {@link Collector.keep}
 * first and builds its path and message only when the issue is kept, so an
 * issue past the cap costs one counter increment.
 */
class Collector {
  readonly errors: Issue[] = [];
  readonly warnings: Issue[] = [];
  omittedErrors = 0;
  omittedWarnings = 0;
  /** Every rule and default lists its keys in canonical order (see {@link validateForLoad}). */
  keysInOrder = true;
  readonly max: number;
  /** Compiles the bundle in the same walk, while it has no error (see {@link validateAndBuild}). */
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

const ERROR = 0;
const WARNING = 1;

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

function checkOptionalTopLevel(document: Record<string, unknown>, out: Collector): void {
  for (const field of ["orgId", "projectId", "etag"]) {
    if (document[field] !== undefined && typeof document[field] !== "string") {
      if (out.keep(ERROR)) {
        out.error("INVALID_FIELD", `/${field}`, `${field} must be a string when present`);
      }
    }
  }
  const generatedAt = document.generatedAt;
  if (
    generatedAt !== undefined &&
    (typeof generatedAt !== "string" || !ISO_8601.test(generatedAt) ||
      Number.isNaN(Date.parse(generatedAt)))
  ) {
    if (out.keep(ERROR)) {
      out.error(
        "INVALID_FIELD",
        "/generatedAt",
        "generatedAt must be an ISO 8601 date-time string when present",
      );
    }
  }
  const version = document.bundleVersion;
  if (version !== undefined && !(Number.isSafeInteger(version) && (version as number) >= 1)) {
    if (out.keep(ERROR)) {
      out.error(
        "INVALID_FIELD",
        "/bundleVersion",
        `bundleVersion must be a whole number >= 1 when present, found ${describe(version)}`,
      );
    }
  }
  const checksum = document.checksum;
  if (checksum !== undefined && (typeof checksum !== "string" || !CHECKSUM.test(checksum))) {
    if (out.keep(ERROR)) {
      out.error(
        "INVALID_FIELD",
        "/checksum",
        'checksum must be "sha256:" followed by 64 lowercase hex characters when present',
      );
    }
  }
  const signature = document.signature;
  if (signature !== undefined) {
    if (
      !isRecord(signature) || typeof signature.algorithm !== "string" ||
      typeof signature.keyId !== "string" || typeof signature.value !== "string"
    ) {
      if (out.keep(ERROR)) {
        out.error(
          "INVALID_FIELD",
          "/signature",
          "signature must be an object with string algorithm, keyId and value",
        );
      }
    }
  }
  // The statement's own members are checked whole here (an unknown one is an
  // error: it is signed data a v1 reader would not understand); whether it
  // names this bundle and verifies is the load pipeline's (BUNDLE_FRESHNESS_INVALID).
  const freshness = document.freshness;
  if (freshness !== undefined) {
    const problem = freshnessProblem(freshness);
    if (problem !== undefined && out.keep(ERROR)) {
      out.error(
        "INVALID_FIELD",
        "/freshness",
        `freshness must be a freshness statement (docs/bundle-format.md): ${problem}`,
      );
    }
  }
}

/**
 * Where the walk is. Paths and names for messages are built from it only
 * when an issue is reported: the walk itself allocates no closures or strings.
 */
class Site {
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

function checkPolicy(
  policy: unknown,
  index: number,
  seenKeys: Map<string, number>,
  site: Site,
  out: Collector,
): void {
  site.policy = index;
  site.policyKey = undefined;
  site.rule = -1;
  if (!isRecord(policy)) {
    if (out.keep(ERROR)) {
      out.error("POLICY_NOT_OBJECT", site.path(), `policy ${index} must be an object`);
    }
    return;
  }
  const key = policy.policyKey;
  site.policyKey = key;
  unknownFieldsAt(policy, FIELDS.policy, site, out);
  if (!isNonEmptyString(key)) {
    if (out.keep(ERROR)) {
      out.error(
        "MISSING_POLICY_KEY",
        site.path("/policyKey"),
        `policy ${index} needs a policyKey (a non-empty string)`,
      );
    }
  } else if (seenKeys.has(key)) {
    if (out.keep(ERROR)) {
      out.error(
        "DUPLICATE_POLICY_KEY",
        site.path("/policyKey"),
        `policyKey ${describe(key)} is already used by policy ${
          seenKeys.get(key)
        }; policy keys must be unique`,
      );
    }
  } else {
    seenKeys.set(key, index);
  }
  if (!isFiniteNumber(policy.activeVersion)) {
    if (out.keep(ERROR)) {
      out.error(
        "INVALID_ACTIVE_VERSION",
        site.path("/activeVersion"),
        `${site.name()}: activeVersion must be a number, found ${describe(policy.activeVersion)}`,
      );
    }
  }
  const rules = policy.rules;
  if (Array.isArray(rules)) out.build?.policy(policy);
  if (!Array.isArray(rules)) {
    if (out.keep(ERROR)) {
      out.error(
        "RULES_NOT_ARRAY",
        site.path("/rules"),
        `${site.name()}: rules must be an array (it may be empty), found ${describe(rules)}`,
      );
    }
  } else if (rules.length > 0) {
    // A few rules are compared with each other; many, through a map.
    const seenIds = rules.length > SMALL_POLICY ? new Map<string, number>() : null;
    for (let i = 0; i < rules.length; i++) checkRule(rules[i], i, rules, seenIds, site, out);
    site.rule = -1;
  }
  if (policy.defaults !== undefined) {
    checkDefaults(policy.defaults, site, out);
    checkJsonValue(policy.defaults, "/defaults", ", defaults", site, out);
    if (Array.isArray(rules) && rules.length === 0) {
      if (out.keep(WARNING)) {
        out.warn(
          "DEFAULTS_UNREACHABLE",
          site.path("/defaults"),
          `${site.name()} has defaults but no rules, so it never applies to any target; add a rule naming the target it should cover`,
        );
      }
    }
  }
}

/** Policies of at most this many rules find duplicate ids without a map. */
const SMALL_POLICY = 8;

/** The index of the first rule before `index` with the id `id`, or -1. */
function earlierRule(
  id: string,
  index: number,
  rules: readonly unknown[],
  seenIds: Map<string, number> | null,
): number {
  if (seenIds !== null) {
    const earlier = seenIds.get(id);
    if (earlier !== undefined) return earlier;
    seenIds.set(id, index);
    return -1;
  }
  for (let i = 0; i < index; i++) {
    const rule = rules[i];
    if (isRecord(rule) && rule.id === id) return i;
  }
  return -1;
}

function checkRule(
  rule: unknown,
  index: number,
  rules: readonly unknown[],
  seenIds: Map<string, number> | null,
  site: Site,
  out: Collector,
): void {
  site.rule = index;
  site.ruleId = undefined;
  if (!isRecord(rule)) {
    if (out.keep(ERROR)) {
      out.error(
        "RULE_NOT_OBJECT",
        site.path(),
        `${site.policyName()}: rule ${index} must be an object`,
      );
    }
    return;
  }
  const id = rule.id;
  if (!isNonEmptyString(id)) {
    if (out.keep(ERROR)) {
      out.error(
        "MISSING_RULE_ID",
        site.path("/id"),
        `${site.policyName()}: rule ${index} needs an id (a non-empty string)`,
      );
    }
  } else {
    const earlier = earlierRule(id, index, rules, seenIds);
    if (earlier >= 0 && out.keep(ERROR)) {
      out.error(
        "DUPLICATE_RULE_ID",
        site.path("/id"),
        `${site.policyName()}: rule id ${
          describe(id)
        } is already used by rule ${earlier} of this policy`,
      );
    }
  }
  site.ruleId = id;
  unknownFieldsAt(rule, FIELDS.rule, site, out);
  if (!(RULE_STATUSES as readonly unknown[]).includes(rule.status)) {
    if (out.keep(ERROR)) {
      out.error(
        "INVALID_RULE_STATUS",
        site.path("/status"),
        `${site.name()}: status must be "active" or "disabled", found ${describe(rule.status)}`,
      );
    }
  }
  if (!isFiniteNumber(rule.priority)) {
    if (out.keep(ERROR)) {
      out.error(
        "INVALID_RULE_PRIORITY",
        site.path("/priority"),
        `${site.name()}: priority must be a number, found ${describe(rule.priority)}`,
      );
    }
  }
  checkTarget(rule.target, site, out);
  if (rule.effect === undefined) {
    if (out.keep(ERROR)) {
      out.error("INVALID_RULE_EFFECT", site.path("/effect"), `${site.name()}: effect is required`);
    }
  } else {
    checkEffect(rule.effect, "effect", site, out);
  }
  if (rule.thenEffect !== undefined) checkEffect(rule.thenEffect, "thenEffect", site, out);
  if (rule.elseEffect !== undefined) checkEffect(rule.elseEffect, "elseEffect", site, out);
  if (rule.when === undefined) {
    for (const branch of ["thenEffect", "elseEffect"] as const) {
      if (rule[branch] !== undefined) {
        if (out.keep(WARNING)) {
          out.warn(
            "RULE_BRANCH_UNUSED",
            site.path(`/${branch}`),
            `${site.name()}: ${branch} is never used because the rule has no when; the rule applies effect`,
          );
        }
      }
    }
  } else {
    site.below.push("when");
    out.whenCanonical = true;
    const shallowEnough = checkCondition(rule.when, 1, site, out);
    site.below.length = 0;
    if (!shallowEnough) return; // too deep: the generic depth check below would only repeat it
  }
  if (rule.description !== undefined && typeof rule.description !== "string") {
    if (out.keep(ERROR)) {
      out.error(
        "INVALID_FIELD",
        site.path("/description"),
        `${site.name()}: description must be a string`,
      );
    }
  }
  checkJsonValue(rule, "", "", site, out);
  out.build?.rule(rule, out.whenCanonical);
}

/**
 * Checks a part of the signed payload as JSON: nested at most
 * MAX_RULE_JSON_DEPTH deep (`DOCUMENT_TOO_DEEP`), and holding only finite
 * numbers (`NUMBER_NOT_FINITE`: the canonical payload would write `null` for
 * one, so a signature could not tell `1e400` from `null`). A rule's
 * priority is left to its typed check (`INVALID_RULE_PRIORITY`), so it is
 * not reported twice.
 *
 * @param at The value's path below the current place.
 * @param label Added to the current place's name in messages.
 */
function checkJsonValue(
  value: unknown,
  at: string,
  label: string,
  site: Site,
  out: Collector,
): void {
  let problems = jsonProblems(value, MAX_RULE_JSON_DEPTH);
  if (problems & KEYS_OUT_OF_ORDER) {
    out.keysInOrder = false;
    problems &= ~KEYS_OUT_OF_ORDER;
  }
  if (problems === 0) return;
  const name = site.name() + label;
  if (problems & TOO_DEEP) {
    if (out.keep(ERROR)) {
      out.error(
        "DOCUMENT_TOO_DEEP",
        site.path(at),
        `${name} nests deeper than ${MAX_RULE_JSON_DEPTH} levels; remove the deeply nested field`,
      );
    }
    return;
  }
  // Only now, since a path is wanted: where the first such number is.
  const found = at === "" ? findNonFiniteNumber(value, "priority") : findNonFiniteNumber(value);
  if (found === null) return;
  if (out.keep(ERROR)) {
    const path = site.path(at) + found;
    out.error(
      "NUMBER_NOT_FINITE",
      path,
      `${name}: ${path} is a number that is not finite (a JSON literal such as 1e400 overflows); the checksum and signature could not tell it from null, so the bundle is refused`,
    );
  }
}

function checkTarget(target: unknown, site: Site, out: Collector): void {
  if (!isRecord(target)) {
    if (out.keep(ERROR)) {
      out.error(
        "INVALID_RULE_TARGET",
        site.path("/target"),
        `${site.name()}: target must be an object with service, resource and action`,
      );
    }
    return;
  }
  checkTargetField(target, "service", site, out);
  checkTargetField(target, "resource", site, out);
  checkTargetField(target, "action", site, out);
  site.below.push("target");
  unknownFieldsAt(target, FIELDS.target, site, out);
  site.below.length -= 1;
}

function checkTargetField(
  target: Record<string, unknown>,
  field: "service" | "resource" | "action",
  site: Site,
  out: Collector,
): void {
  const value = target[field];
  if (!isNonEmptyString(value)) {
    if (out.keep(ERROR)) {
      out.error(
        "INVALID_RULE_TARGET",
        site.path(`/target/${field}`),
        `${site.name()}: target.${field} must be a non-empty string, found ${describe(value)}`,
      );
    }
  } else if (value.includes("*")) {
    if (out.keep(WARNING)) {
      out.warn(
        "TARGET_WILDCARD_LITERAL",
        site.path(`/target/${field}`),
        `${site.name()}: target.${field} ${
          describe(value)
        } contains "*", which matches only a literal "*" (there are no wildcards); name the exact ${field}`,
      );
    }
  }
}

function checkEffect(
  effect: unknown,
  field: "effect" | "thenEffect" | "elseEffect",
  site: Site,
  out: Collector,
): void {
  const problem = effectProblem(effect, "value", "effect");
  if (problem !== null) {
    if (out.keep(ERROR)) {
      out.error("INVALID_RULE_EFFECT", site.path(`/${field}`), `${site.name()}: ${problem}`);
    }
  }
  site.below.push(field);
  descriptorFields(effect, FIELDS.effect, site, out);
  site.below.length -= 1;
}

/** `UNKNOWN_FIELD` warnings of an effect or default and of its descriptors (the site is at it). */
function descriptorFields(
  effect: unknown,
  fields: FieldSet,
  site: Site,
  out: Collector,
): void {
  if (!isRecord(effect)) return;
  unknownFieldsAt(effect, fields, site, out);
  for (const key of ["killSwitch", "throttle"] as const) {
    const descriptor = effect[key];
    if (!isRecord(descriptor)) continue;
    site.below.push(key);
    unknownFieldsAt(descriptor, FIELDS[key], site, out);
    site.below.length -= 1;
  }
}

/**
 * Reports the fields of `object` that are not in `known` (`UNKNOWN_FIELD`
 * warnings, with the closest known name). Allocates nothing for an object
 * without unknown fields.
 */
function unknownFields(
  object: Record<string, unknown>,
  known: FieldSet,
  out: Collector,
  path: string,
  name: string,
): void {
  for (const key in object) {
    if ((fieldBits(key) & known.bit) !== 0 || !Object.hasOwn(object, key)) continue;
    if (!out.keep(WARNING)) continue;
    const issue = unknownFieldIssue(key, known.names, path, name);
    out.warn(issue.code, issue.path, issue.message);
  }
}

/** {@link unknownFields} of the object at the site's current place; true when it has any. */
function unknownFieldsAt(
  object: Record<string, unknown>,
  known: FieldSet,
  site: Site,
  out: Collector,
): boolean {
  for (const key in object) {
    if ((fieldBits(key) & known.bit) !== 0 || !Object.hasOwn(object, key)) continue;
    // Rare: the path and name are built only now.
    unknownFields(object, known, out, site.path(), site.name());
    return true;
  }
  return false;
}

/** Checks a policy's defaults (the site is at the policy). */
function checkDefaults(defaults: unknown, site: Site, out: Collector): void {
  site.below.push("defaults");
  descriptorFields(defaults, FIELDS.defaults, site, out);
  site.below.length -= 1;
  if (!isRecord(defaults) || !isEffectType(defaults.effect)) {
    if (out.keep(ERROR)) {
      out.error(
        "INVALID_DEFAULT_EFFECT",
        site.path("/defaults"),
        `${site.name()}: defaults must be an object whose effect is allow, deny, throttle, kill_switch or custom`,
      );
    }
    return;
  }
  const type = defaults.effect;
  if (
    (type === "kill_switch" || type === "throttle") && defaults[descriptorKey(type)] === undefined
  ) {
    if (out.keep(WARNING)) {
      out.warn(
        "DEFAULT_DESCRIPTOR_MISSING",
        site.path("/defaults"),
        `${site.name()}: a ${type} default without its ${
          descriptorKey(type)
        } descriptor is ignored; add the descriptor or change the effect`,
      );
    }
    return;
  }
  const problem = effectProblem({ ...defaults, type }, "customEffect", "default");
  if (problem !== null) {
    if (out.keep(ERROR)) {
      out.error("INVALID_DEFAULT_EFFECT", site.path("/defaults"), `${site.name()}: ${problem}`);
    }
  }
}

function descriptorKey(type: "kill_switch" | "throttle"): "killSwitch" | "throttle" {
  return type === "kill_switch" ? "killSwitch" : "throttle";
}

/**
 * What is wrong with an effect (`type` plus descriptor), or null. `noun`
 * names it in the message: a rule's `effect`, or a policy's `default`.
 */
function effectProblem(
  effect: unknown,
  customField: "value" | "customEffect",
  noun: "effect" | "default",
): string | null {
  if (!isRecord(effect)) return "an effect must be an object with a type";
  const type = effect.type;
  if (!isEffectType(type)) {
    return `effect type must be allow, deny, throttle, kill_switch or custom, found ${
      describe(type)
    }`;
  }
  if (type === "kill_switch") {
    const ks = effect.killSwitch;
    if (!isRecord(ks) || !isNonEmptyString(ks.service)) {
      return `a kill_switch ${noun} needs killSwitch: {service, reason?} with a non-empty service`;
    }
    if (ks.reason !== undefined && typeof ks.reason !== "string") {
      return "killSwitch.reason must be a string";
    }
  } else if (type === "throttle") {
    const t = effect.throttle;
    if (
      !isRecord(t) || !isFiniteNumber(t.limit) || t.limit < 0 ||
      !isFiniteNumber(t.windowSeconds) || t.windowSeconds <= 0 || typeof t.key !== "string"
    ) {
      return `a throttle ${noun} needs throttle: {limit >= 0, windowSeconds > 0, key (string)}`;
    }
  } else if (type === "custom" && typeof effect[customField] !== "string") {
    return `a custom ${noun} needs ${customField} (a string, often JSON-encoded)`;
  }
  return null;
}

/** Checks a condition tree; returns false when it is too deep (an error). */
function checkCondition(node: unknown, depth: number, site: Site, out: Collector): boolean {
  if (depth > MAX_CONDITION_DEPTH) {
    if (out.keep(ERROR)) {
      out.error(
        "CONDITION_TOO_DEEP",
        site.path(),
        `${site.name()}: conditions nest at most ${MAX_CONDITION_DEPTH} deep; flatten the condition`,
      );
    }
    return false;
  }
  if (!isRecord(node)) {
    malformed("a condition must be an object with an op", site, out);
    return true;
  }
  const op = node.op;
  if (typeof op !== "string") {
    malformed("a condition needs an op (a string)", site, out);
    return true;
  }
  const fields = conditionFields(op);
  if (fields !== undefined && unknownFieldsAt(node, fields, site, out)) out.whenCanonical = false;
  if (op === "ne") out.whenCanonical = false;
  if (CHECKED_KINDS.has(op)) {
    checkAddedOperator(op, node, site, out);
    return true;
  }
  if (COMPARISON_OPS.has(op) || op === "in" || op === "exists") {
    if (typeof node.path !== "string") malformed(`${op} needs a path (a string)`, site, out);
    if (COMPARISON_OPS.has(op)) {
      if (!isConditionValue(node.value)) {
        malformed(`${op} needs a value that is a string, number, boolean or null`, site, out);
      } else if (ORDERING_OPS.has(op) && Number.isNaN(toComparableNumber(node.value))) {
        malformed(
          `${op} compares numbers but its value ${describe(node.value)} is not numeric`,
          site,
          out,
        );
      }
    } else if (op === "in") {
      const values = node.values;
      if (!Array.isArray(values)) {
        malformed("in needs values (an array)", site, out);
      } else if (!values.every(isConditionValue)) {
        out.whenCanonical = false;
        if (out.keep(WARNING)) {
          out.warn(
            "CONDITION_MALFORMED",
            site.path("/values"),
            `${site.name()}: in values that are objects or arrays never match`,
          );
        }
      }
    }
    return true;
  }
  if (op === "and" || op === "or") {
    const listKey = node.conditions !== undefined ? "conditions" : "args";
    if (node.args !== undefined) out.whenCanonical = false;
    const list = node[listKey];
    if (!Array.isArray(list) || list.length === 0) {
      malformed(`${op} needs conditions (a non-empty array)`, site, out);
      return true;
    }
    // One condition compiles to its own test (compile_condition.ts): shared with that condition
    // written alone, which reads differently in a trace.
    if (list.length === 1) out.whenCanonical = false;
    for (let i = 0; i < list.length; i++) {
      site.below.push(listKey, i);
      const shallowEnough = checkCondition(list[i], depth + 1, site, out);
      site.below.length -= 2;
      if (!shallowEnough) return false;
    }
    return true;
  }
  if (op === "not") {
    const childKey = node.condition !== undefined ? "condition" : "arg";
    if (node.arg !== undefined) out.whenCanonical = false;
    const child = node[childKey];
    if (!isRecord(child)) {
      malformed("not needs condition (one condition object)", site, out);
      return true;
    }
    site.below.push(childKey);
    const shallowEnough = checkCondition(child, depth + 1, site, out);
    site.below.length -= 1;
    return shallowEnough;
  }
  out.whenCanonical = false;
  if (out.keep(WARNING)) {
    out.warn(
      "CONDITION_UNKNOWN_OPERATOR",
      site.path("/op"),
      `${site.name()}: unknown operator ${
        describe(op)
      } always evaluates to false (is the runtime older than the bundle?)${didYouMeanOperator(op)}`,
    );
  }
  return true;
}

/** The condition operators to suggest: every one but the legacy spelling `ne`. */
const OPERATORS: readonly string[] = CONDITION_OPERATORS.filter((op) => op !== "ne");

/**
 * How people spell the operators elsewhere (other policy languages, query
 * builders, programming languages), lower case without `_`, `-` or spaces:
 * `equals` is far from `eq` by edit distance, and is the likely meaning.
 */
const OPERATOR_SPELLINGS: ReadonlyMap<string, string> = new Map(
  Object.entries({
    eq: ["equals", "equal", "eql", "is", "=", "==", "==="],
    neq: ["ne", "notequals", "notequal", "noteq", "isnot", "!=", "!==", "<>"],
    gt: ["greaterthan", "greater", "above", ">"],
    gte: ["greaterthanorequal", "greaterthanorequals", "greaterorequal", "ge", ">="],
    lt: ["lessthan", "less", "below", "<"],
    lte: ["lessthanorequal", "lessthanorequals", "lessorequal", "le", "<="],
    in: ["oneof", "isin", "inlist", "within"],
    exists: ["exist", "present", "defined", "isset", "has"],
    and: ["all", "allof", "&&"],
    or: ["any", "anyof", "||"],
    not: ["!", "negate"],
    contains: ["includes", "arraycontains", "hasvalue"],
    containsAny: ["includesany", "hasany", "overlaps", "intersects"],
    containsAll: ["includesall", "hasall", "superset"],
    startsWith: ["beginswith", "prefix", "hasprefix"],
    endsWith: ["suffix", "hassuffix"],
    like: ["glob", "wildcard", "ilike"],
    semver: ["version", "versioncompare"],
    rollout: ["fractional", "percentage", "percent", "gradualrollout", "flexiblerollout"],
  }).flatMap(([op, spellings]) => [
    ...spellings.map((spelling) => [spelling, op] as const),
    // The operator itself, however it is cased or separated (`starts_with`, `StartsWith`).
    [op.toLowerCase(), op] as const,
  ]),
);

/** `; did you mean "eq"?` for an unknown operator close to a known one, else "". */
function didYouMeanOperator(op: unknown): string {
  if (typeof op !== "string" || op.length > 40) return "";
  const trimmed = op.trim();
  const normal = trimmed.toLowerCase().replace(/[\s_-]/g, "");
  const meant = OPERATOR_SPELLINGS.get(normal) ??
    (OPERATORS.includes(normal) ? normal : suggest(trimmed, OPERATORS));
  return meant === undefined ? "" : `; did you mean "${meant}"?`;
}

/**
 * Checks a condition of an operator added after the specification's: a
 * malformed one (its `path` included) is an error, `CONDITION_MALFORMED` at
 * the field, not a warning: no bundle written before the operator existed
 * can hold it, so refusing one breaks nothing (docs/bundle-format.md
 * "Conditions").
 */
function checkAddedOperator(
  op: string,
  node: Record<string, unknown>,
  site: Site,
  out: Collector,
): void {
  for (const { field, message } of checkedConditionProblems(op, node)) {
    if (!out.keep(ERROR)) continue;
    out.error("CONDITION_MALFORMED", site.path(`/${field}`), `${site.name()}: ${message}`);
  }
}

/** The fields a condition with operator `op` may have; undefined for an unknown operator. */
function conditionFields(op: string): FieldSet | undefined {
  if (COMPARISON_OPS.has(op)) return FIELDS.comparison;
  const checked = CHECKED_KINDS.get(op);
  if (checked !== undefined) return FIELDS[checked as FieldsObjectName];
  switch (op) {
    case "in":
      return FIELDS.in;
    case "exists":
      return FIELDS.exists;
    case "and":
    case "or":
      return FIELDS.list;
    case "not":
      return FIELDS.not;
    default:
      return undefined;
  }
}

function malformed(detail: string, site: Site, out: Collector): void {
  out.whenCanonical = false;
  if (out.keep(WARNING)) {
    out.warn(
      "CONDITION_MALFORMED",
      site.path(),
      `${site.name()}: ${detail}; this condition is always false`,
    );
  }
}

function describe(value: unknown): string {
  if (value === undefined) return "nothing";
  if (Array.isArray(value)) return "an array";
  if (value === null) return "null";
  if (typeof value === "object") return "an object";
  if (typeof value === "string") {
    return JSON.stringify(value.length > 40 ? value.slice(0, 40) + "…" : value);
  }
  return String(value);
}
