/**
 * The two shapes policies are also exchanged in, and how each maps onto
 * draft policies (`policy policies import`). Every decision is in
 * `docs/import.md`; this file implements it and refuses, naming the field,
 * whatever it cannot map.
 *
 * - **Wrapper**: `{policyKey, env, friendlyName, status, activeVersion,
 *   snapshot: {defaults, rules}}`, one object or an array of them. The
 *   snapshot's rules and defaults are already in the bundle's vocabulary.
 * - **Older file form**: `{version, policies: [{policyKey, rules: [{id,
 *   all: [{equals|in|present: {path, value|values}}], effect?, throttle?}]}]}`,
 *   whose rules name their target and their conditions in one list.
 *
 * @module
 */
import type { Condition, Effect, PolicyDefault, Target } from "../../../engine/types.ts";
import { ENVS } from "../../../public/vocabulary.ts";
import type { Issue } from "../../../engine/types.ts";
import { CappedIssues } from "../../../authoring/capped_issues.ts";
import { describeValue } from "../../../_internal/describe_value.ts";
import { CliError } from "../../kit/errors.ts";
import { isConditionValue, isRecord } from "../../../_internal/guards.ts";
import type { DraftPolicy } from "../../../authoring/draft.ts";

/** Which of the two shapes a document is. */
export type ImportForm = "wrapper" | "older";

/** What a document maps to. */
export interface ImportedPolicies {
  form: ImportForm;
  policies: DraftPolicy[];
  /** The environment each wrapper names, by policy key (wrappers only). */
  envs: Map<string, string>;
  /**
   * Fields that were not imported (`UNKNOWN_FIELD`), with their place in the
   * file: as many as validation lists (`DEFAULT_MAX_ISSUES`).
   */
  dropped: Issue[];
  /** Fields not imported beyond those listed in `dropped`: counted, not described. */
  droppedOmitted: number;
}

/**
 * A policy key as messages and text output show it: as it is when it is a
 * short plain name, else JSON-quoted and cut at 60 characters, so that a
 * hostile key never floods a terminal.
 */
export function keyText(key: string): string {
  return /^[\w.:\/@-]{1,60}$/.test(key) ? key : describeValue(key);
}

/** The fields of each object the two shapes have. */
const WRAPPER_FIELDS = [
  "policyKey",
  "env",
  "friendlyName",
  "status",
  "activeVersion",
  "snapshot",
] as const;
const SNAPSHOT_FIELDS = ["defaults", "rules"] as const;
const OLDER_FIELDS = ["version", "policies"] as const;
const OLDER_POLICY_FIELDS = [
  "policyKey",
  "friendlyName",
  "activeVersion",
  "defaults",
  "rules",
] as const;
const OLDER_RULE_FIELDS = [
  "id",
  "status",
  "priority",
  "description",
  "all",
  "effect",
  "throttle",
] as const;
const OLDER_OPERATORS = ["equals", "in", "present"] as const;
const TARGET_FIELDS = ["service", "resource", "action"] as const;

/** `IMPORT_UNMAPPABLE`, naming the field (`where`) of `file`. */
function unmappable(file: string, where: string, why: string): CliError {
  return new CliError(
    "IMPORT_UNMAPPABLE",
    `${file}: ${where === "" ? "the document" : where} ${why}; nothing was imported`,
    { hint: "see docs/import.md for what each shape maps to" },
  );
}

/**
 * Recognises the shape of `document` and maps it to draft policies.
 *
 * @throws {CliError} `IMPORT_UNMAPPABLE`, naming the field that cannot be mapped.
 */
export function importPolicies(document: unknown, file: string): ImportedPolicies {
  const wrappers = Array.isArray(document) ? document : [document];
  if (wrappers.length > 0 && wrappers.every((w) => isRecord(w) && Object.hasOwn(w, "snapshot"))) {
    return mapWrappers(wrappers as Record<string, unknown>[], Array.isArray(document), file);
  }
  if (
    isRecord(document) && Object.hasOwn(document, "version") && Array.isArray(document.policies)
  ) {
    return mapOlderForm(document, file);
  }
  const looksLike = isRecord(document) && typeof document.schemaVersion === "string"
    ? " (it is a draft: its policies are in the draft format already)"
    : isRecord(document) && document.schemaVersion === 1
    ? " (it is a bundle: build bundles from a draft instead)"
    : "";
  throw unmappable(
    file,
    "",
    `is neither a policy wrapper (an object, or an array of objects, with snapshot) nor the older file form (an object with version and policies)${looksLike}`,
  );
}

function mapWrappers(
  wrappers: Record<string, unknown>[],
  listed: boolean,
  file: string,
): ImportedPolicies {
  const policies: DraftPolicy[] = [];
  const envs = new Map<string, string>();
  const dropped = new CappedIssues();
  wrappers.forEach((wrapper, i) => {
    const at = listed ? `[${i}]` : "";
    const field = (name: string) => (at === "" ? name : `${at}.${name}`);
    const pointer = listed ? `/${i}` : "";
    const policyKey = requireKey(wrapper.policyKey, file, field("policyKey"));
    const name = `policy ${keyText(policyKey)}`;
    dropped.unknownFields(wrapper, WRAPPER_FIELDS, pointer, name, "import");
    const status = wrapper.status;
    if (status !== undefined && status !== "active") {
      throw unmappable(
        file,
        field("status"),
        `is ${
          describeValue(status)
        }: only active policies can be imported, since a bundle has no policy status (a policy applies wherever its rules name the target); import it when it is active, or disable its rules`,
      );
    }
    const env = wrapper.env;
    if (env !== undefined) {
      if (!(ENVS as readonly unknown[]).includes(env)) {
        throw unmappable(file, field("env"), `must be one of ${ENVS.join(", ")}`);
      }
      envs.set(policyKey, env as string);
    }
    const snapshot = wrapper.snapshot;
    if (!isRecord(snapshot)) {
      throw unmappable(file, field("snapshot"), "must be an object with rules and defaults");
    }
    dropped.unknownFields(snapshot, SNAPSHOT_FIELDS, `${pointer}/snapshot`, name, "import");
    const rules = snapshot.rules ?? [];
    if (!Array.isArray(rules)) throw unmappable(file, field("snapshot.rules"), "must be an array");
    const policy: DraftPolicy = {
      policyKey,
      activeVersion: activeVersion(wrapper.activeVersion, file, field("activeVersion")),
      friendlyName: friendlyName(wrapper.friendlyName, policyKey, file, field("friendlyName")),
      rules: rules as DraftPolicy["rules"],
    };
    if (snapshot.defaults !== undefined) {
      policy.defaults = snapshot.defaults as PolicyDefault;
    }
    policies.push(policy);
  });
  return {
    form: "wrapper",
    policies,
    envs,
    dropped: dropped.warnings,
    droppedOmitted: dropped.omittedWarnings,
  };
}

function mapOlderForm(document: Record<string, unknown>, file: string): ImportedPolicies {
  const dropped = new CappedIssues();
  dropped.unknownFields(document, OLDER_FIELDS, "", "the file", "import");
  const policies = (document.policies as unknown[]).map((policy, p) => {
    const at = `policies[${p}]`;
    if (!isRecord(policy)) throw unmappable(file, at, "must be an object");
    const policyKey = requireKey(policy.policyKey, file, `${at}.policyKey`);
    const name = `policy ${keyText(policyKey)}`;
    dropped.unknownFields(policy, OLDER_POLICY_FIELDS, `/policies/${p}`, name, "import");
    if (!Array.isArray(policy.rules)) throw unmappable(file, `${at}.rules`, "must be an array");
    const mapped: DraftPolicy = {
      policyKey,
      activeVersion: activeVersion(policy.activeVersion, file, `${at}.activeVersion`),
      friendlyName: friendlyName(policy.friendlyName, policyKey, file, `${at}.friendlyName`),
      rules: policy.rules.map((rule, r) => {
        const place = `${at}.rules[${r}]`;
        if (!isRecord(rule)) throw unmappable(file, place, "must be an object");
        dropped.unknownFields(rule, OLDER_RULE_FIELDS, `/policies/${p}/rules/${r}`, name, "import");
        return mapOlderRule(rule, file, place) as unknown as DraftPolicy["rules"][number];
      }),
    };
    if (policy.defaults !== undefined) mapped.defaults = policy.defaults as PolicyDefault;
    return mapped;
  });
  return {
    form: "older",
    policies,
    envs: new Map(),
    dropped: dropped.warnings,
    droppedOmitted: dropped.omittedWarnings,
  };
}

/**
 * One rule of the older form: the `target.*` conditions become the target,
 * the `context.*` conditions the `when`, and a rule-level `throttle` the
 * effect.
 */
function mapOlderRule(
  rule: Record<string, unknown>,
  file: string,
  at: string,
): Record<string, unknown> {
  const id = rule.id;
  if (typeof id !== "string" || id === "") {
    throw unmappable(file, `${at}.id`, "must be a non-empty string (the rule's id)");
  }
  const all = rule.all;
  if (!Array.isArray(all) || all.length === 0) {
    throw unmappable(
      file,
      `${at}.all`,
      "must be a non-empty array: it holds the rule's target (equals over target.service, target.resource and target.action)",
    );
  }
  const target: Partial<Record<keyof Target, string>> = {};
  const conditions: Condition[] = [];
  all.forEach((item, i) => {
    const place = `${at}.all[${i}]`;
    const { operator, path, operand } = olderCondition(item, file, place);
    if (path.startsWith("target.")) {
      targetCondition(target, operator, path, operand, file, place);
      return;
    }
    if (!path.startsWith("context.") || path.length === "context.".length) {
      throw unmappable(
        file,
        `${place}.${operator}.path`,
        `names ${
          describeValue(path)
        }: only target.service, target.resource, target.action and context.<field> paths can be mapped`,
      );
    }
    conditions.push(
      contextCondition(operator, path.slice("context.".length), operand, file, place),
    );
  });
  for (const field of TARGET_FIELDS) {
    if (target[field] === undefined) {
      throw unmappable(
        file,
        `${at}.all`,
        `has no equals over target.${field}: a rule needs its service, resource and action`,
      );
    }
  }
  const mapped: Record<string, unknown> = {
    id,
    status: rule.status ?? "active",
    priority: rule.priority ?? 0,
    target: { service: target.service, resource: target.resource, action: target.action },
    effect: olderEffect(rule, file, at),
  };
  if (conditions.length === 1) mapped.when = conditions[0];
  if (conditions.length > 1) mapped.when = { op: "and", conditions };
  if (rule.description !== undefined) mapped.description = rule.description;
  return mapped;
}

/**
 * One `target.*` entry of an older rule's `all`, added to `target`: one
 * exact, non-empty string per field.
 */
function targetCondition(
  target: Partial<Record<keyof Target, string>>,
  operator: string,
  path: string,
  operand: unknown,
  file: string,
  place: string,
): void {
  const field = path.slice("target.".length);
  if (!(TARGET_FIELDS as readonly string[]).includes(field)) {
    throw unmappable(
      file,
      `${place}.${operator}.path`,
      `names ${describeValue(path)}: a target has only service, resource and action`,
    );
  }
  const value = operator === "equals"
    ? operand
    : operator === "in" && Array.isArray(operand) && operand.length === 1
    ? operand[0]
    : undefined;
  if (typeof value !== "string" || value === "") {
    throw unmappable(
      file,
      `${place}.${operator}`,
      `over ${path} cannot be a target: a rule's target is one exact, non-empty string per field (equals, or in with one value); write one rule per value`,
    );
  }
  const key = field as keyof Target;
  if (target[key] !== undefined && target[key] !== value) {
    throw unmappable(
      file,
      place,
      `asks ${path} to be both ${describeValue(target[key])} and ${
        describeValue(value)
      }, which never holds`,
    );
  }
  target[key] = value;
}

/** The operator, path and operand of one `all` entry: `{"equals": {"path", "value"}}` and the like. */
function olderCondition(
  item: unknown,
  file: string,
  at: string,
): { operator: typeof OLDER_OPERATORS[number]; path: string; operand: unknown } {
  const keys = isRecord(item) ? Object.keys(item) : [];
  const operator = keys[0] as typeof OLDER_OPERATORS[number];
  if (keys.length !== 1 || !(OLDER_OPERATORS as readonly string[]).includes(operator)) {
    throw unmappable(
      file,
      at,
      `must be one of {"equals": {path, value}}, {"in": {path, values}}, {"present": {path}}`,
    );
  }
  const body = (item as Record<string, unknown>)[operator];
  if (!isRecord(body) || typeof body.path !== "string") {
    throw unmappable(file, `${at}.${operator}`, "must be an object with a path (a string)");
  }
  const operandField = operator === "equals" ? "value" : operator === "in" ? "values" : null;
  const known = operandField === null ? ["path"] : ["path", operandField];
  const extra = Object.keys(body).find((k) => !known.includes(k));
  if (extra !== undefined) {
    throw unmappable(
      file,
      `${at}.${operator}`,
      `has the field ${describeValue(extra)}, which is not part of ${operator} (${
        known.join(", ")
      })`,
    );
  }
  if (operandField !== null && !Object.hasOwn(body, operandField)) {
    throw unmappable(file, `${at}.${operator}`, `needs ${operandField}`);
  }
  return {
    operator,
    path: body.path,
    operand: operandField === null ? undefined : body[operandField],
  };
}

/** A `context.<path>` condition as a `when` condition over `<path>`. */
function contextCondition(
  operator: typeof OLDER_OPERATORS[number],
  path: string,
  operand: unknown,
  file: string,
  at: string,
): Condition {
  if (operator === "present") return { op: "exists", path };
  if (operator === "equals") {
    if (!isConditionValue(operand)) {
      throw unmappable(file, `${at}.equals.value`, "must be a string, number, boolean or null");
    }
    return { op: "eq", path, value: operand };
  }
  if (!Array.isArray(operand) || !operand.every(isConditionValue)) {
    throw unmappable(
      file,
      `${at}.in.values`,
      "must be an array of strings, numbers, booleans or null",
    );
  }
  return { op: "in", path, values: operand };
}

/** The effect of an older rule: `effect` (a type name or an effect object), or its `throttle`. */
function olderEffect(rule: Record<string, unknown>, file: string, at: string): Effect {
  const throttle = rule.throttle;
  const effect = rule.effect;
  const type = typeof effect === "string" ? effect : isRecord(effect) ? effect.type : undefined;
  if (throttle !== undefined) {
    if (effect !== undefined && type !== "throttle") {
      throw unmappable(
        file,
        `${at}.throttle`,
        `and effect ${describeValue(type ?? effect)} cannot both apply: a rule has one effect`,
      );
    }
    if (!isRecord(throttle)) {
      throw unmappable(file, `${at}.throttle`, "must be {limit, windowSeconds, key}");
    }
    return { type: "throttle", throttle: throttle as never };
  }
  if (typeof effect === "string") {
    if (effect !== "allow" && effect !== "deny") {
      throw unmappable(
        file,
        `${at}.effect`,
        `is ${
          describeValue(effect)
        }: as a name only allow and deny can be mapped (any other effect needs its descriptor: give effect as an object)`,
      );
    }
    return { type: effect };
  }
  if (isRecord(effect)) return effect as unknown as Effect;
  throw unmappable(file, `${at}.effect`, "is missing: a rule needs an effect, or a throttle");
}

function requireKey(value: unknown, file: string, where: string): string {
  if (typeof value !== "string" || value === "") {
    throw unmappable(file, where, "must be a non-empty string (the policy's key)");
  }
  return value;
}

function activeVersion(value: unknown, file: string, where: string): number {
  if (value === undefined) return 1;
  if (typeof value !== "number" || !Number.isFinite(value)) {
    throw unmappable(file, where, "must be a number");
  }
  return value;
}

function friendlyName(value: unknown, policyKey: string, file: string, where: string): string {
  if (value === undefined) return policyKey;
  if (typeof value !== "string") throw unmappable(file, where, "must be a string");
  return value;
}
