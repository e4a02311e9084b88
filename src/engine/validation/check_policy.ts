// This module is browser compatible.
/**
 * Policies and their rules: keys and ids (unique), versions, statuses,
 * priorities, targets, and each part of the signed payload as JSON (depth,
 * finite numbers, key order); each policy and valid rule handed to the
 * builder as it is found.
 *
 * @module
 */
import {
  findNonFiniteNumber,
  isFiniteNumber,
  isNonEmptyString,
  isRecord,
  jsonProblems,
  KEYS_OUT_OF_ORDER,
  TOO_DEEP,
} from "../../_internal/guards.ts";
import { RULE_STATUSES } from "../../public/vocabulary.ts";
import { checkCondition } from "./check_condition.ts";
import { checkDefaults, checkEffect } from "./check_effect.ts";
import { FIELDS, unknownFieldsAt } from "./known_fields.ts";
import { type Collector, describe, ERROR, type Site, WARNING } from "./walk.ts";

/** Rules and defaults nest at most this deep as JSON (far beyond any real condition tree). */
const MAX_RULE_JSON_DEPTH = 256;

/** Checks one policy and its rules (`seenKeys`: the keys of the policies before it). */
export function checkPolicy(
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
