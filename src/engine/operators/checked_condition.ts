// This module is browser compatible.
/**
 * The checks of the conditions whose fields are checked as typed: the
 * operators added after the specification's (`contains`, `containsAny`,
 * `containsAll`, `startsWith`, `endsWith`, `like`, `semver`, `rollout`),
 * each a kind of `bundle_format.ts` marked `checked`. Every field is
 * checked against its type in the definition, one problem per field, so
 * that `validate_bundle.ts` reports each as a `CONDITION_MALFORMED` error at
 * the field (docs/bundle-format.md "Conditions"); the JSON Schemas refuse
 * the same payloads, from the same definition. Linear in the size of the
 * condition.
 *
 * @module
 */
import { describeValue } from "../../_internal/describe_value.ts";
import { isConditionValue, isFiniteNumber } from "../../_internal/guards.ts";
import {
  BUNDLE_FORMAT,
  type FieldType,
  OBJECT_KINDS,
  type ObjectDefinition,
  type ObjectName,
  STRING_FORMATS,
  type StringFormat,
} from "../bundle_format.ts";
import { codePointLength, compileLikePattern } from "./like_pattern.ts";
import { parseSemver } from "./semver.ts";

/** The kind of each operator whose fields are checked (the `op` values of its kind). */
export const CHECKED_KINDS: ReadonlyMap<string, ObjectName> = new Map(
  OBJECT_KINDS.flatMap((name) => {
    const definition: ObjectDefinition | { union: unknown } = BUNDLE_FORMAT[name];
    if (!("fields" in definition) || !definition.checked) return [];
    const op = definition.fields.op!.type as { values: readonly string[] };
    return op.values.map((value) => [value, name] as const);
  }),
);

/** A field of a condition that does not have its type, and what it should be. */
export interface FieldProblem {
  /** The field's name (the JSON Pointer's last segment). */
  readonly field: string;
  /** For people: what the field must be, and what it is. */
  readonly message: string;
}

/** The parsers of the string formats (linear in the string, unlike a regular expression). */
const FORMAT_CHECKS: Readonly<Record<StringFormat, (text: string) => boolean>> = {
  semver: (text) => parseSemver(text) !== null,
  like: (text) => compileLikePattern(text) !== null,
};

/**
 * The problems of a condition whose operator `op` is one of
 * {@link CHECKED_KINDS}: each field missing or not of its type, in the
 * definition's order; then, for `rollout`, a `from` above `to`.
 */
export function checkedConditionProblems(
  op: string,
  node: Record<string, unknown>,
): FieldProblem[] {
  const kind = CHECKED_KINDS.get(op);
  if (kind === undefined) return [];
  const definition = BUNDLE_FORMAT[kind] as ObjectDefinition;
  const problems: FieldProblem[] = [];
  for (const [field, { type, required }] of Object.entries(definition.fields)) {
    if (field === "op") continue;
    const value = Object.hasOwn(node, field) ? node[field] : undefined;
    if (value === undefined) {
      if (required) {
        problems.push({ field, message: `${op} needs ${field}: ${expected(type)}` });
      }
      continue;
    }
    if (!hasType(type, value)) {
      problems.push({
        field,
        message: `${op} needs ${field}: ${expected(type)}; found ${found(value)}`,
      });
    }
  }
  if (op === "rollout" && problems.length === 0) {
    const from = node.from === undefined ? 0 : node.from as number;
    const to = node.to as number;
    if (from > to) {
      problems.push({
        field: "from",
        message: `rollout from (${from}) is above to (${to}); from must be at most to`,
      });
    }
  }
  return problems;
}

/** Whether `value` has type `type` (the types the checked kinds use). */
function hasType(type: FieldType, value: unknown): boolean {
  switch (type.kind) {
    case "string": {
      if (typeof value !== "string") return false;
      if (type.nonEmpty && value.length === 0) return false;
      if (
        type.maxLength !== undefined && value.length > type.maxLength &&
        codePointLength(value) > type.maxLength
      ) return false;
      if (type.pattern !== undefined && !new RegExp(type.pattern, "u").test(value)) return false;
      return type.format === undefined || FORMAT_CHECKS[type.format](value);
    }
    case "number":
      return isFiniteNumber(value) &&
        (type.minimum === undefined || value >= type.minimum) &&
        (type.exclusiveMinimum === undefined || value > type.exclusiveMinimum) &&
        (type.maximum === undefined || value <= type.maximum);
    case "enum":
      return typeof value === "string" && type.values.includes(value);
    case "primitive":
      return isConditionValue(value);
    case "primitives":
      return Array.isArray(value) && (!type.nonEmpty || value.length > 0) &&
        value.every(isConditionValue);
    default:
      throw new TypeError(`a checked condition field of kind ${type.kind}`);
  }
}

/** What a value of `type` is, for people. */
function expected(type: FieldType): string {
  switch (type.kind) {
    case "string": {
      if (type.format !== undefined) {
        const means = STRING_FORMATS[type.format].means;
        return type.maxLength === undefined
          ? means
          : `${means}, of at most ${type.maxLength} characters`;
      }
      return type.nonEmpty ? "a non-empty string" : "a string";
    }
    case "number": {
      const { minimum, maximum } = type;
      return minimum !== undefined && maximum !== undefined
        ? `a number from ${minimum} to ${maximum}`
        : "a number";
    }
    case "enum":
      return `one of ${type.values.join(", ")}`;
    case "primitive":
      return "a string, number, boolean or null";
    case "primitives":
      return `${
        type.nonEmpty ? "a non-empty array" : "an array"
      } of strings, numbers, booleans or nulls (no objects or arrays)`;
    default:
      return type.kind;
  }
}

/** The value found, for a message (the first entry that is not a primitive, for a list). */
function found(value: unknown): string {
  if (Array.isArray(value)) {
    if (value.length === 0) return "an empty array";
    const at = value.findIndex((item) => !isConditionValue(item));
    return at < 0 ? "an array" : `an array whose entry ${at} is ${describe(value[at])}`;
  }
  if (typeof value === "string" && value.length > 60) {
    return `a string of ${value.length} characters`;
  }
  return describe(value);
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (typeof value === "object") return Array.isArray(value) ? "an array" : "an object";
  if (typeof value === "boolean") return String(value);
  return describeValue(value);
}
