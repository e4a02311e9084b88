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
    op: fc.constantFrom("regex", "startsWith"),
    path: fc.constantFrom(...PATHS),
    value: primitive,
  }),
  fc.constantFrom({ op: "eq", path: "plan" }, { op: "in", path: "plan", values: "free" }, {
    path: "plan",
  }),
);

export const condition: fc.Arbitrary<unknown> = conditionFrom(conditionLeaf);

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
      }),
      primitive,
    ),
    flag: fc.boolean(),
    ctx: fc.record({ plan: primitive }),
  },
  { requiredKeys: [] },
);
