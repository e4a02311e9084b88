// This module is browser compatible.
/**
 * Condition trees: each operator's fields, the operators added after the
 * specification's (their malformed payloads are errors), depth, and the
 * "did you mean" of an unknown operator.
 *
 * @module
 */
import {
  isConditionValue,
  isRecord,
  MAX_CONDITION_DEPTH,
  toComparableNumber,
} from "../../_internal/guards.ts";
import { suggest } from "../../_internal/suggest.ts";
import type { FieldsObjectName } from "../bundle_format.ts";
import {
  COMPARISON_OPERATORS,
  CONDITION_OPERATORS,
  ORDERING_OPERATORS,
} from "../../public/vocabulary.ts";
import { CHECKED_KINDS, checkedConditionProblems } from "../operators/checked_condition.ts";
import { FIELDS, type FieldSet, unknownFieldsAt } from "./known_fields.ts";
import { type Collector, describe, ERROR, type Site, WARNING } from "./walk.ts";

const COMPARISON_OPS: ReadonlySet<string> = new Set(COMPARISON_OPERATORS);
const ORDERING_OPS: ReadonlySet<string> = new Set(ORDERING_OPERATORS);

/** Checks a condition tree; returns false when it is too deep (an error). */
export function checkCondition(node: unknown, depth: number, site: Site, out: Collector): boolean {
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
