/**
 * fast-check generators for bundles, conditions and contexts. Names come from
 * small alphabets so that targets collide and conditions meet their paths;
 * generated conditions include unknown operators, legacy spellings and
 * malformed nodes on purpose.
 */
import fc from "../_fast_check.ts";
import type { RuntimeBundleV1 } from "../../mod.ts";

export { fc };

const PATHS = [
  "plan",
  "ctx.plan",
  "seats",
  "region",
  "user.tier",
  "ctx.user.tier",
  "user.org.plan",
  "ctx.user.org.plan",
  "user.org.seats",
  "user.org",
  "ctx.ctx.plan",
  "user.constructor",
  "user.__proto__.plan",
  "user.org.toString",
  "flag",
  "constructor",
  "__proto__",
  "toString",
];
const STRINGS = ["free", "pro", "eu", "us", "5", "6", "", "gold", "1e1", "x"];

export const primitive = fc.oneof(
  fc.constantFrom(...STRINGS),
  fc.integer({ min: -10, max: 10 }),
  fc.double({ min: -10, max: 10, noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.constant(null),
);

export const target = fc.record({
  service: fc.constantFrom("billing", "search"),
  resource: fc.constantFrom("invoice", "catalog", "*"),
  action: fc.constantFrom("read", "write"),
});

/** One condition node: each operator, legacy `ne`, unknown operators and malformed nodes. */
export const conditionLeaf: fc.Arbitrary<unknown> = fc.oneof(
  fc.record({
    op: fc.constantFrom("eq", "neq", "ne"),
    path: fc.constantFrom(...PATHS),
    value: primitive,
  }),
  fc.record({
    op: fc.constantFrom("gt", "gte", "lt", "lte"),
    path: fc.constantFrom(...PATHS),
    value: primitive,
  }),
  fc.record({
    op: fc.constant("in"),
    path: fc.constantFrom(...PATHS),
    values: fc.array(primitive, { maxLength: 12 }),
  }),
  fc.record({ op: fc.constant("exists"), path: fc.constantFrom(...PATHS) }),
  fc.record({
    op: fc.constantFrom("regex", "matches"),
    path: fc.constantFrom(...PATHS),
    value: primitive,
  }),
  fc.constantFrom({ op: "eq", path: "plan" }, { op: "in", path: "plan", values: "free" }, {
    path: "plan",
  }),
);

/** Paths the operators added after the spec's read: arrays, strings, versions, user ids. */
const ADDED_PATHS = [
  "roles",
  "ctx.roles",
  "user.roles",
  "email",
  "version",
  "ctx.version",
  "user.version",
  "userId",
  "user.id",
  "plan",
  "seats",
  "user.constructor",
  "__proto__",
];
const ROLES = ["admin", "editor", "viewer", "", "5", 5, 0, -0, true, false, null];
const role = fc.constantFrom(...ROLES);
const AFFIXES = [
  "",
  "a",
  "ad",
  "admin",
  "@acme.com",
  "acme.com",
  "x",
  "1.",
  "v1",
  "é",
  "😀",
  "\ud83d",
];
const VERSIONS = [
  "1.2.3",
  "v1.2.3",
  "1.2.3-rc.1",
  "1.2.3-rc.10",
  "1.2.3-rc.2",
  "1.2.3-alpha",
  "1.2.3-alpha.1",
  "1.2.3-0",
  "1.2.3+build.5",
  "1.10.0",
  "2.0.0",
  "0.0.0",
  "10.0.0-beta",
  "18446744073709551616.0.0",
];
/** Strings that are not versions, beside versions. */
const NOT_VERSIONS = [
  "01.2.3",
  "1.2",
  "1.2.3-",
  "1.2.3-01",
  "V1.2.3",
  " 1.2.3",
  "1.2.3+",
  "vv1.2.3",
];
const PATTERN_PARTS = ["a", "d", "*", "\\*", "\\\\", "\\a", "@acme.com", "min", "é", "😀", "1."];
/** Salts, among them one that is not ASCII. */
const SALTS = ["checkout", "s", "é", "group:1"];
const percent = fc.oneof(
  fc.integer({ min: 0, max: 100 }),
  fc.double({ min: 0, max: 100, noNaN: true }),
  fc.constantFrom(0, 100, 50, 99.5),
);

/** One condition of each operator added after the spec's, always well formed. */
export const addedLeaf: fc.Arbitrary<unknown> = fc.oneof(
  fc.record({
    op: fc.constant("contains"),
    path: fc.constantFrom(...ADDED_PATHS),
    value: fc.oneof(role, primitive),
  }),
  fc.record({
    op: fc.constantFrom("containsAny", "containsAll"),
    path: fc.constantFrom(...ADDED_PATHS),
    values: fc.array(fc.oneof(role, primitive), { minLength: 1, maxLength: 12 }),
  }),
  fc.record({
    op: fc.constantFrom("startsWith", "endsWith"),
    path: fc.constantFrom(...ADDED_PATHS),
    value: fc.constantFrom(...AFFIXES),
  }),
  fc.record({
    op: fc.constant("like"),
    path: fc.constantFrom(...ADDED_PATHS),
    pattern: fc.array(fc.constantFrom(...PATTERN_PARTS), { maxLength: 6 }).map((p) => p.join("")),
  }),
  fc.record({
    op: fc.constant("semver"),
    path: fc.constantFrom(...ADDED_PATHS),
    cmp: fc.constantFrom("eq", "neq", "gt", "gte", "lt", "lte"),
    value: fc.constantFrom(...VERSIONS),
  }),
  fc.tuple(
    fc.constantFrom(...ADDED_PATHS),
    fc.constantFrom(...SALTS),
    percent,
    percent,
    fc.constantFrom(undefined, "fraction", "mod100"),
    fc.boolean(),
  ).map(([path, salt, a, b, bucketing, withFrom]) => {
    const [from, to] = a <= b ? [a, b] : [b, a];
    return {
      op: "rollout",
      path,
      salt,
      ...(withFrom || from !== 0 ? { from } : {}),
      to,
      ...(bucketing === undefined ? {} : { bucketing }),
    };
  }),
);

export const condition: fc.Arbitrary<unknown> = conditionFrom(
  fc.oneof({ weight: 2, arbitrary: conditionLeaf }, { weight: 1, arbitrary: addedLeaf }),
);

/**
 * Condition trees over `leaf`: and/or with `conditions` (of the given
 * lengths) or legacy `args`, not with `condition` or legacy `arg`.
 */
export function conditionFrom(
  leaf: fc.Arbitrary<unknown>,
  options: { leafWeight?: number; conditions?: { minLength?: number; maxLength: number } } = {},
): fc.Arbitrary<unknown> {
  return fc.letrec<{ node: unknown }>((tie) => ({
    node: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      { weight: options.leafWeight ?? 1, arbitrary: leaf },
      fc.record({
        op: fc.constantFrom("and", "or"),
        conditions: fc.array(tie("node"), options.conditions ?? { maxLength: 3 }),
      }),
      fc.record({
        op: fc.constantFrom("and", "or"),
        args: fc.array(tie("node"), { minLength: 1, maxLength: 3 }),
      }),
      fc.record({ op: fc.constant("not"), condition: tie("node") }),
      fc.record({ op: fc.constant("not"), arg: tie("node") }),
    ),
  })).node;
}

export const effect = fc.oneof(
  fc.constant({ type: "allow" }),
  fc.constant({ type: "deny" }),
  fc.record(
    {
      type: fc.constant("kill_switch"),
      killSwitch: fc.record({
        service: fc.constantFrom("billing", "search"),
        reason: fc.constantFrom("incident", "maintenance"),
      }, { requiredKeys: ["service"] }),
    },
  ),
  fc.record({
    type: fc.constant("throttle"),
    throttle: fc.record({
      limit: fc.integer({ min: 0, max: 100 }),
      windowSeconds: fc.constantFrom(1, 10, 60),
      key: fc.constantFrom("ip", "user", "tenant"),
    }),
  }),
  fc.record({
    type: fc.constant("custom"),
    value: fc.constantFrom('{"a":1}', "plain", "[1,2]", ""),
  }),
);

const policyDefault = fc.oneof(
  fc.constant({ effect: "allow" }),
  fc.constant({ effect: "deny" }),
  fc.constant({ effect: "throttle" }),
  fc.constant({ effect: "kill_switch" }),
  fc.record({
    effect: fc.constant("throttle"),
    throttle: fc.record({
      limit: fc.integer({ min: 0, max: 50 }),
      windowSeconds: fc.constantFrom(1, 60),
      key: fc.constant("ip"),
    }),
  }),
  fc.record({
    effect: fc.constant("kill_switch"),
    killSwitch: fc.record({ service: fc.constant("billing") }),
  }),
  fc.record({ effect: fc.constant("custom"), customEffect: fc.constantFrom('{"d":true}', "text") }),
);

const ruleBody = fc.record(
  {
    status: fc.constantFrom("active", "active", "active", "disabled"),
    priority: fc.integer({ min: -3, max: 3 }),
    target,
    effect,
    when: condition,
    thenEffect: effect,
    elseEffect: effect,
    description: fc.constantFrom("a rule", "ünïcødé ✓"),
  },
  { requiredKeys: ["status", "priority", "target", "effect"] },
);

/** A valid bundle: unique policy keys and rule ids, every field well-typed. */
export const bundle = fc.record({
  env: fc.constantFrom("prod", "staging", "dev", "test"),
  orgId: fc.constantFrom("acme", "globex"),
  policies: fc.array(
    fc.record(
      {
        activeVersion: fc.integer({ min: 1, max: 9 }),
        rules: fc.array(ruleBody, { maxLength: 5 }),
        defaults: policyDefault,
      },
      { requiredKeys: ["activeVersion", "rules"] },
    ),
    { maxLength: 5 },
  ),
}).map(({ env, orgId, policies }): RuntimeBundleV1 => ({
  schemaVersion: 1 as const,
  env,
  orgId,
  policies: policies.map((p, i) => ({
    policyKey: `policy-${i}`,
    ...p,
    rules: p.rules.map((r, j) => ({ id: `rule-${j}`, ...r })),
  })),
} as unknown as RuntimeBundleV1));

/**
 * An object a path goes through: plain, with a null prototype, inheriting
 * `inherited` for the keys it lacks, or an array holding it.
 */
export function holder(
  fields: Record<string, fc.Arbitrary<unknown>>,
  inherited: Record<string, unknown> = { plan: "free", tier: 1, seats: 6 },
): fc.Arbitrary<unknown> {
  return fc.tuple(fc.record(fields, { requiredKeys: [] }), fc.nat(4)).map(([own, kind]) => {
    switch (kind) {
      case 0:
        return Object.assign(Object.create(null), own);
      case 1:
        return Object.assign(Object.create(inherited), own);
      case 2:
        return [own];
      default:
        return own;
    }
  });
}

/** Arrays of roles, with odd entries (objects, arrays, holes) and values that are no arrays. */
const roles = fc.oneof(
  fc.array(fc.oneof(role, primitive), { maxLength: 6 }),
  fc.array(role, { minLength: 9, maxLength: 14 }),
  fc.constantFrom([["admin"]], [{ role: "admin" }], "admin", { 0: "admin", length: 1 }),
  // An array with a hole, which reads as inherited: not an element.
  fc.constant(null).map(() => {
    const holed: unknown[] = [];
    holed[0] = "viewer";
    holed[2] = "editor";
    return holed;
  }),
  primitive,
);
/** Strings near the affixes and patterns, and values that are no strings. */
const text = fc.oneof(
  fc.constantFrom(
    "admin@acme.com",
    "x@acme.com",
    "acme.com",
    "",
    "a*b",
    "a\\b",
    "adamin",
    "é@acme.com",
    "😀x",
    "\ud83d",
    "1.2.3",
  ),
  fc.array(fc.constantFrom(...PATTERN_PARTS.filter((p) => !p.includes("\\"))), { maxLength: 5 })
    .map((p) => p.join("").replaceAll("*", "")),
  fc.string({ maxLength: 6 }),
  primitive,
);
const version = fc.oneof(fc.constantFrom(...VERSIONS, ...NOT_VERSIONS), primitive);
/** User ids: strings, whole numbers (safe or not), and the rest. */
const userId = fc.oneof(
  fc.string({ maxLength: 12, unit: "binary" }),
  fc.integer(),
  fc.constantFrom(2 ** 53 - 1, -(2 ** 53 - 1), 2 ** 53, 1e21, 1.5, -0, "", "u-1", "ü-1", "😀"),
  primitive,
);

/** A context whose keys meet the generated paths, with odd values mixed in. */
export const context = fc.record(
  {
    plan: fc.oneof(primitive, fc.constant(["free"]), fc.constant({ plan: "free" })),
    seats: primitive,
    region: primitive,
    user: fc.oneof(
      holder({
        tier: primitive,
        org: fc.oneof(holder({ plan: primitive, seats: primitive }), primitive),
        roles,
        version,
        id: userId,
      }, { plan: "free", tier: 1, seats: 6, roles: ["admin"], version: "1.2.3", id: "u-1" }),
      primitive,
    ),
    flag: fc.boolean(),
    ctx: fc.record({ plan: primitive }),
    roles,
    email: text,
    version,
    userId,
  },
  { requiredKeys: [] },
);
