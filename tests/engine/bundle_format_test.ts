/**
 * The one definition of the bundle format (src/engine/bundle_format.ts)
 * against what is derived from it or written beside it: the hand-written
 * TypeScript types of src/engine/types.ts declare exactly its fields, with
 * its types, required or not (checked by the type checker: this file does
 * not compile when they differ), and the definition is whole (every kind it
 * names exists).
 */
import assert from "node:assert/strict";
import {
  BUNDLE_FORMAT,
  type FieldDefinition,
  fieldNames,
  type FieldType,
  OBJECT_KINDS,
  type ObjectName,
  OBJECTS_WITH_FIELDS,
} from "../../src/engine/bundle_format.ts";
import type {
  AffixCondition,
  ComparisonCondition,
  Condition,
  ConditionValue,
  ContainsCondition,
  ContainsListCondition,
  Effect,
  ExistsCondition,
  FreshnessStatement,
  InCondition,
  KillSwitchDescriptor,
  LikeCondition,
  LogicalCondition,
  NotCondition,
  Policy,
  PolicyDefault,
  RolloutCondition,
  Rule,
  RuntimeBundleV1,
  SemverCondition,
  Signature,
  Target,
  ThrottleDescriptor,
} from "../../src/engine/types.ts";

/** The hand-written type of each kind of object. */
interface Declared {
  bundle: RuntimeBundleV1;
  signature: Signature;
  freshness: FreshnessStatement;
  statementSignature: Signature;
  policy: Policy;
  rule: Rule;
  target: Target;
  effect: Effect;
  defaults: PolicyDefault;
  killSwitch: KillSwitchDescriptor;
  throttle: ThrottleDescriptor;
  condition: Condition;
  comparison: ComparisonCondition;
  in: InCondition;
  exists: ExistsCondition;
  list: LogicalCondition;
  not: NotCondition;
  contains: ContainsCondition;
  containsList: ContainsListCondition;
  affix: AffixCondition;
  like: LikeCondition;
  semver: SemverCondition;
  rollout: RolloutCondition;
}

type Format = typeof BUNDLE_FORMAT;

/** The TypeScript type of a value of `T` (a nested object is its declared type). */
type ValueOf<T extends FieldType> = T extends { kind: "string" } ? string
  : T extends { kind: "number" | "integer" } ? number
  : T extends { kind: "const"; value: infer V } ? V
  : T extends { kind: "enum"; values: readonly (infer E)[]; open: true } ? E | string
  // refusedAtLoad: the type names the values a usable document has.
  : T extends { kind: "enum"; values: readonly (infer E)[] } ? E
  : T extends { kind: "object"; of: infer N extends ObjectName } ? Declared[N]
  : T extends { kind: "array"; of: infer N extends ObjectName } ? Declared[N][]
  : T extends { kind: "primitive" } ? ConditionValue
  : T extends { kind: "primitives" } ? ConditionValue[]
  : unknown;

type Fields<N extends ObjectName> = Format[N] extends
  { fields: infer F extends Record<string, FieldDefinition> } ? F : never;

/** The typed fields of kind `N` (every one but `$schema`), required or not. */
type TypedKeys<N extends ObjectName> = {
  [K in keyof Fields<N>]: Fields<N>[K] extends { untyped: true } ? never : K;
}[keyof Fields<N>];
type RequiredKeys<N extends ObjectName> = {
  [K in TypedKeys<N>]: Fields<N>[K] extends { required: true } ? K : never;
}[TypedKeys<N>];

/** The type the definition gives an object of kind `N`. */
type Defined<N extends ObjectName> =
  & { [K in RequiredKeys<N>]: ValueOf<Fields<N>[K]["type"]> }
  & { [K in Exclude<TypedKeys<N>, RequiredKeys<N>>]?: ValueOf<Fields<N>[K]["type"]> };

/** The keys of `T` that are required. */
type RequiredOf<T> = { [K in keyof T]-?: object extends Pick<T, K> ? never : K }[keyof T];

/** Exactly the same set of types (no distribution: `Same<string, "a">` is false). */
type Same<A, B> = [A] extends [B] ? [B] extends [A] ? true : false : false;

/**
 * The declared type of kind `N` agrees with its definition: the same fields,
 * the same ones required, and each field's type the same both ways.
 */
type AgreesWith<T, N extends ObjectName> = Same<keyof T, TypedKeys<N>> extends false ? false
  : Same<RequiredOf<T>, RequiredKeys<N>> extends false ? false
  : Same<T, Defined<N>>;
type Agrees<N extends ObjectName> = AgreesWith<Declared[N], N>;

/** A condition is any of the kinds of its union. */
type UnionAgrees = Format["condition"]["union"] extends readonly (infer K extends ObjectName)[]
  ? Same<Condition, Declared[K]>
  : false;

// Each line fails to compile when a type and the definition differ.
const agree: { [N in Exclude<ObjectName, "condition">]: Agrees<N> } & { condition: UnionAgrees } = {
  bundle: true,
  signature: true,
  freshness: true,
  statementSignature: true,
  policy: true,
  rule: true,
  target: true,
  effect: true,
  defaults: true,
  killSwitch: true,
  throttle: true,
  condition: true,
  comparison: true,
  in: true,
  exists: true,
  list: true,
  not: true,
  contains: true,
  containsList: true,
  affix: true,
  like: true,
  semver: true,
  rollout: true,
};

// And the checker is not vacuous: a type with a field more, less, optional or of another type differs.
const differs: [
  Agrees<"target">,
  AgreesWith<Target & { extra?: string }, "target">,
  AgreesWith<Omit<Target, "action">, "target">,
  AgreesWith<Omit<Target, "action"> & { action?: string }, "target">,
  AgreesWith<Omit<Rule, "priority"> & { priority: string }, "rule">,
] = [true, false, false, false, false];

Deno.test("the TypeScript types of src/engine/types.ts declare the format's fields (type-checked)", () => {
  assert.ok(Object.values(agree).every((ok) => ok));
  assert.deepEqual(differs, [true, false, false, false, false]);
  assert.deepEqual(Object.keys(agree).sort(), [...OBJECT_KINDS].sort());
});

Deno.test("the format names only kinds it defines, and each field set once", () => {
  const kinds = new Set<string>(OBJECT_KINDS);
  assert.deepEqual(Object.keys(BUNDLE_FORMAT), [...OBJECT_KINDS]);
  for (const name of OBJECT_KINDS) {
    const definition = BUNDLE_FORMAT[name];
    if ("union" in definition) {
      for (const kind of definition.union) assert.ok(kinds.has(kind), `${name}: ${kind}`);
      continue;
    }
    const fields: Record<string, FieldDefinition> = definition.fields;
    for (const [field, { type }] of Object.entries(fields)) {
      if (type.kind === "object" || type.kind === "array") {
        assert.ok(kinds.has(type.of), `${name}.${field}: ${type.of}`);
      }
    }
    const variants = "variants" in definition ? definition.variants : undefined;
    for (const variant of variants?.cases ?? []) {
      assert.ok(variant.field in fields, `${name}: variant ${variant.field}`);
    }
  }
  assert.deepEqual(OBJECTS_WITH_FIELDS, OBJECT_KINDS.filter((n) => n !== "condition"));
  assert.deepEqual(fieldNames("target"), ["service", "resource", "action"]);
});
