/**
 * fast-check generators for the soundness test of the dead-rule analysis.
 * Biased towards what the analysis reasons about: conditions on a few
 * shared paths with a few shared values (so that contradictions and
 * tautologies are common), targets that collide, unconditional and
 * two-branch rules, copies of rules (duplicates), priorities that tie, and
 * throttles whose rates tie or differ. Contexts are drawn from the values
 * the bundle's own conditions compare with, and their neighbours.
 */
import fc from "../_fast_check.ts";
import type { RuntimeBundleV1 } from "../../mod.ts";
import { conditionFrom } from "../properties/_arbitraries.ts";

export { fc };

const PATH_GROUPS = [["plan", "ctx.plan"], ["seats", "ctx.seats"], ["user.tier", "ctx.user.tier"], [
  "flag",
]];
const PATHS = PATH_GROUPS.flat();
const VALUES: (string | number | boolean | null)[] = [
  "free",
  "pro",
  "enterprise",
  "5",
  "6",
  "1e1",
  "",
  5,
  6,
  10,
  -0,
  0.5,
  true,
  false,
  null,
];
const BOUNDS: unknown[] = [5, 6, 10, 0.5, -0, "5", "6", "1e1", "x", true];

const value = fc.constantFrom(...VALUES);

/** Leaves reading a path drawn from `path`, comparing with `value` and `bound`. */
function leafOn(
  path: fc.Arbitrary<string>,
  value: fc.Arbitrary<unknown>,
  bound: fc.Arbitrary<unknown>,
): fc.Arbitrary<unknown> {
  return fc.oneof(
    { weight: 4, arbitrary: fc.record({ op: fc.constantFrom("eq", "neq", "ne"), path, value }) },
    {
      weight: 3,
      arbitrary: fc.record({
        op: fc.constantFrom("gt", "gte", "lt", "lte"),
        path,
        value: bound,
      }),
    },
    {
      weight: 3,
      arbitrary: fc.record({
        op: fc.constant("in"),
        path,
        values: fc.array(fc.oneof({ weight: 9, arbitrary: value }, fc.constant({})), {
          maxLength: 4,
        }),
      }),
    },
    { weight: 2, arbitrary: fc.record({ op: fc.constant("exists"), path }) },
    { weight: 3, arbitrary: addedOn(path, value) },
    // Unknown operators and malformed nodes: the analysis must claim nothing from them.
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        { op: "regex", path: "plan", value: "p" },
        { op: "eq", path: "plan" },
        { op: "in", path: "plan", values: "free" },
        { op: "gt", path: "seats", value: "many" },
        { path: "plan" },
        { op: "and", conditions: [] },
        { op: "not" },
      ),
    },
  );
}

/** Ranges of rollouts: empty ones, whole ones, and ones holding no whole number (mod100). */
const RANGES: [number, number][] = [
  [0, 0],
  [50, 50],
  [0, 100],
  [0, 30],
  [30, 100],
  [10.2, 10.8],
  [99.5, 100],
  [0, 99.5],
  [99, 100],
];

/** Leaves of the operators added after the spec's, on paths drawn from `path`. */
function addedOn(path: fc.Arbitrary<string>, value: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> {
  return fc.oneof(
    fc.record({ op: fc.constant("contains"), path, value }),
    fc.record({
      op: fc.constantFrom("containsAny", "containsAll"),
      path,
      values: fc.array(value, { minLength: 1, maxLength: 3 }),
    }),
    fc.record({
      op: fc.constantFrom("startsWith", "endsWith"),
      path,
      value: fc.constantFrom("", "p", "pro", "e", "5"),
    }),
    fc.record({
      op: fc.constant("like"),
      path,
      pattern: fc.constantFrom("", "*", "**", "pro", "free", "p*", "*e", "f*e", "\\*", "5"),
    }),
    fc.record({
      op: fc.constant("semver"),
      path,
      cmp: fc.constantFrom("eq", "neq", "gt", "gte", "lt", "lte"),
      value: fc.constantFrom("1.0.0", "v2.0.0-rc.1"),
    }),
    fc.tuple(path, fc.constantFrom(...RANGES), fc.constantFrom(undefined, "fraction", "mod100"))
      .map(([p, [from, to], bucketing]) => ({
        op: "rollout",
        path: p,
        salt: "s",
        ...(from === 0 ? {} : { from }),
        to,
        ...(bucketing === undefined ? {} : { bucketing }),
      })),
  );
}

/** Conditions whose leaves read paths drawn from `path`, comparing with `value` and `bound`. */
function conditionOn(
  path: fc.Arbitrary<string>,
  value: fc.Arbitrary<unknown>,
  bound: fc.Arbitrary<unknown>,
): fc.Arbitrary<unknown> {
  return conditionFrom(leafOn(path, value, bound), {
    leafWeight: 3,
    conditions: { minLength: 1, maxLength: 4 },
  });
}

/**
 * A condition on any of the paths, or (as often) on one path only, in any
 * of its spellings: the shape that makes contradictions and tautologies.
 */
export const condition: fc.Arbitrary<unknown> = fc.oneof(
  conditionOn(fc.constantFrom(...PATHS), value, fc.constantFrom(...BOUNDS)),
  fc.tuple(
    fc.constantFrom(...PATH_GROUPS),
    fc.subarray(VALUES, { minLength: 1, maxLength: 3 }),
    fc.subarray(BOUNDS, { minLength: 1, maxLength: 2 }),
  ).chain(([group, values, bounds]) =>
    conditionOn(
      fc.constantFrom(...group),
      fc.constantFrom(...values),
      fc.constantFrom(...values, ...bounds),
    )
  ),
);

const effect = fc.oneof(
  fc.constant({ type: "allow" }),
  fc.constant({ type: "deny" }),
  fc.record({
    type: fc.constant("kill_switch"),
    killSwitch: fc.record({ service: fc.constantFrom("billing", "search") }),
  }),
  fc.record({
    type: fc.constant("throttle"),
    throttle: fc.record({
      limit: fc.constantFrom(0, 1, 5, 10, 60),
      windowSeconds: fc.constantFrom(1, 10, 60),
      key: fc.constantFrom("ip", "tenant"),
    }),
  }),
  fc.record({ type: fc.constant("custom"), value: fc.constantFrom("a", "b") }),
);

const policyDefault = fc.oneof(
  fc.constant({ effect: "allow" }),
  fc.constant({ effect: "deny" }),
  fc.constant({ effect: "kill_switch" }), // ignored: no descriptor
  fc.record({
    effect: fc.constant("throttle"),
    throttle: fc.record({
      limit: fc.constantFrom(1, 10),
      windowSeconds: fc.constant(10),
      key: fc.constant("ip"),
    }),
  }),
  fc.record({ effect: fc.constant("custom"), customEffect: fc.constantFrom("d", "e") }),
);

const target = fc.record({
  service: fc.constant("billing"),
  resource: fc.constantFrom("invoice", "refund"),
  action: fc.constant("create"),
});

const rule = fc.record(
  {
    status: fc.constantFrom("active", "active", "active", "disabled"),
    priority: fc.integer({ min: -2, max: 2 }),
    target,
    effect,
    when: condition,
    thenEffect: effect,
    elseEffect: effect,
  },
  { requiredKeys: ["status", "priority", "target", "effect"] },
);

/** A copy of an earlier rule, with its own id and maybe another status or priority. */
const copy = fc.record({
  from: fc.nat(),
  status: fc.constantFrom("same", "active", "disabled"),
  priority: fc.option(fc.integer({ min: -2, max: 2 }), { nil: undefined }),
  /** Near-twins: one outcome changed, so that only exact duplicates may be reported. */
  change: fc.constantFrom("none", "none", "elseEffect", "thenEffect", "effect"),
  effect,
});

/** A valid bundle: unique policy keys and rule ids; rule copies are appended to their policy. */
export const bundle: fc.Arbitrary<RuntimeBundleV1> = fc.array(
  fc.record(
    {
      rules: fc.array(rule, { maxLength: 5 }),
      copies: fc.array(copy, { maxLength: 2 }),
      defaults: policyDefault,
    },
    { requiredKeys: ["rules", "copies"] },
  ),
  { minLength: 1, maxLength: 4 },
).map((policies) => {
  const all: Record<string, unknown>[] = [];
  const built = policies.map((p, i) => {
    const rules: Record<string, unknown>[] = p.rules.map((r) => ({ ...r }));
    all.push(...rules);
    for (const c of p.copies) {
      if (all.length === 0) break;
      const source = all[c.from % all.length]!;
      const twin: Record<string, unknown> = structuredClone(source);
      if (c.status !== "same") twin.status = c.status;
      if (c.priority !== undefined) twin.priority = c.priority;
      if (c.change === "effect" || (c.change !== "none" && twin[c.change] === undefined)) {
        twin[c.change] = c.effect;
      } else if (c.change !== "none") {
        delete twin[c.change];
      }
      rules.push(twin);
    }
    return {
      policyKey: `policy-${i}`,
      activeVersion: 1,
      ...(p.defaults === undefined ? {} : { defaults: p.defaults }),
      rules: rules.map((r, j) => ({ ...r, id: `rule-${j}` })),
    };
  });
  return { schemaVersion: 1, env: "test", policies: built } as unknown as RuntimeBundleV1;
});

/**
 * Values worth trying at a path: every value the conditions compare with,
 * numbers next to the bounds, numeric strings for the numbers, fresh values
 * no condition names, and absent (undefined), null, objects and values JSON
 * cannot hold.
 */
export function interestingValues(b: RuntimeBundleV1): unknown[] {
  const seen = new Set<unknown>([undefined, null, {}, [], "zzz", 12345, "12345", NaN, Infinity]);
  // For the operators added after the spec's: versions, ids with buckets, strings near patterns.
  for (const v of ["1.0.0", "v2.0.0", "2.0.0-rc.1", "0.9.0", "u-1", "u-2", "u-3", 42, 7, "", "p"]) {
    seen.add(v);
  }
  const visit = (node: unknown): void => {
    if (typeof node !== "object" || node === null) return;
    const n = node as Record<string, unknown>;
    if (Array.isArray(n.values) && String(n.op).startsWith("contains")) {
      seen.add([...n.values]);
      seen.add([n.values[0], "zzz"]);
    }
    if (typeof n.op === "string" && n.op.startsWith("contains") && n.value !== undefined) {
      seen.add([n.value]);
    }
    if (typeof n.pattern === "string") {
      const literal = n.pattern.replaceAll("\\", "").replaceAll("*", "");
      seen.add(literal);
      seen.add(`${literal}x`);
      seen.add(`x${literal}`);
    }
    if ((n.op === "startsWith" || n.op === "endsWith") && typeof n.value === "string") {
      seen.add(`${n.value}x`);
      seen.add(`x${n.value}`);
    }
    for (const v of [n.value, ...(Array.isArray(n.values) ? n.values : [])]) {
      if (typeof v === "object" && v !== null) continue;
      seen.add(v);
      const x = typeof v === "number" ? v : typeof v === "string" ? Number(v) : NaN;
      if (Number.isFinite(x) && v !== "") {
        for (const d of [-1, -0.5, 0, 0.5, 1]) {
          seen.add(x + d);
          seen.add(String(x + d));
        }
        seen.add(x.toExponential()); // another spelling of the same number: "5e+0"
      }
    }
    for (const child of Object.values(n)) visit(child);
  };
  for (const policy of b.policies) for (const r of policy.rules) visit(r.when);
  return [...seen];
}

/** A context that gives each path one of `values` (or leaves it absent). */
export function contextFor(values: readonly unknown[]): fc.Arbitrary<Record<string, unknown>> {
  const v = fc.constantFrom(...values);
  return fc.record({
    plan: v,
    seats: v,
    flag: v,
    user: fc.oneof(fc.record({ tier: v }), v),
  }).map((c) => {
    // An undefined value stands for an absent key (the engine treats both alike; this checks it).
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(c)) {
      if (value === undefined && key !== "flag") continue;
      out[key] = value;
    }
    return out;
  });
}
