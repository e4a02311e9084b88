// Wide targets: each target has `rules` rules with mixed operators (eq, gt,
// in, lte, exists, and, or, not), most of which an evaluation must test
// before one fires; paths flat (`plan`) or nested (`user.org.plan`).
import type { Condition, Rule, RuntimeBundleV1, Target } from "../../mod.ts";
import { type Floor, type Scenario, TargetIndex, THROTTLE } from "./scenario.ts";

/** How the scenario writes its paths. */
export type WideStyle = "flat" | "nested";

type Field = "plan" | "seats" | "region" | "tier" | "beta";

const PATHS: Record<WideStyle, Record<Field, string>> = {
  flat: { plan: "plan", seats: "seats", region: "region", tier: "tier", beta: "beta" },
  nested: {
    plan: "user.org.plan",
    seats: "user.org.seats",
    region: "user.region",
    tier: "user.tier",
    beta: "user.flags.beta",
  },
};

/**
 * Rule k (of 0 … rules - 2) by its kind, k % 5; the last rule is an
 * unconditional allow. Priorities fall with k, so the program tests the
 * denies in k order, then the throttles, then allows.
 */
interface WideRule {
  readonly id: string;
  readonly k: number;
  readonly kind: number;
  readonly type: "deny" | "throttle";
}

function wideRules(rules: number): WideRule[] {
  const list: WideRule[] = [];
  for (let k = 0; k < rules - 1; k++) {
    const kind = k % 5;
    list.push({ id: `rule-${k}`, k, kind, type: kind === 1 ? "throttle" : "deny" });
  }
  return list;
}

function condition(rule: WideRule, path: Record<Field, string>): Condition {
  const { k } = rule;
  switch (rule.kind) {
    case 0:
      return { op: "eq", path: path.plan, value: `plan-${k}` };
    case 1:
      return { op: "gt", path: path.seats, value: 1000 + k };
    case 2:
      return { op: "in", path: path.region, values: [`r-${k}-a`, `r-${k}-b`, `r-${k}-c`] };
    case 3:
      return {
        op: "and",
        conditions: [
          { op: "exists", path: path.beta },
          { op: "eq", path: path.tier, value: `tier-${k}` },
          { op: "lte", path: path.seats, value: k },
        ],
      };
    default:
      return {
        op: "or",
        conditions: [
          { op: "eq", path: path.region, value: `r-${k}` },
          { op: "not", condition: { op: "exists", path: path.beta } },
        ],
      };
  }
}

/** The i-th target. */
function wideTarget(i: number): Target {
  return { service: `wide-${i % 13}`, resource: `resource-${i}`, action: "read" };
}

function bundle(n: number, rules: number, style: WideStyle): RuntimeBundleV1 {
  const list = wideRules(rules);
  const policies = [];
  for (let i = 0; i < n; i++) {
    const target = wideTarget(i);
    const policyRules: Rule[] = list.map((rule) => ({
      id: rule.id,
      status: "active",
      priority: rules - rule.k,
      target,
      when: condition(rule, PATHS[style]),
      effect: rule.type === "throttle"
        ? { type: "throttle", throttle: { ...THROTTLE } }
        : { type: rule.type },
    }));
    policyRules.push({
      id: "allow-all",
      status: "active",
      priority: 0,
      target,
      effect: { type: "allow" },
    });
    policies.push({ policyKey: `policy-${i}`, activeVersion: 1, rules: policyRules });
  }
  return { schemaVersion: 1, env: "prod", orgId: "bench", projectId: "bench", policies };
}

/** The rules in the order they win: denies, then throttles, each by falling priority (rising k). */
function ranked(rules: number): WideRule[] {
  const list = wideRules(rules);
  return [...list.filter((r) => r.type === "deny"), ...list.filter((r) => r.type === "throttle")];
}

/**
 * How the floor's code reads each field: the object holding it, and the
 * ownership proof a test adds when its result depends on the value (every
 * object on the way, and the value, own properties).
 */
const HOLDERS: Record<WideStyle, Record<Field, { holder: string; proof: string }>> = {
  flat: {
    plan: { holder: "ctx", proof: 'hasOwn(ctx, "plan")' },
    seats: { holder: "ctx", proof: 'hasOwn(ctx, "seats")' },
    region: { holder: "ctx", proof: 'hasOwn(ctx, "region")' },
    tier: { holder: "ctx", proof: 'hasOwn(ctx, "tier")' },
    beta: { holder: "ctx", proof: 'hasOwn(ctx, "beta")' },
  },
  nested: {
    plan: {
      holder: "org",
      proof: 'hasOwn(ctx, "user") && hasOwn(user, "org") && hasOwn(org, "plan")',
    },
    seats: {
      holder: "org",
      proof: 'hasOwn(ctx, "user") && hasOwn(user, "org") && hasOwn(org, "seats")',
    },
    region: { holder: "user", proof: 'hasOwn(ctx, "user") && hasOwn(user, "region")' },
    tier: { holder: "user", proof: 'hasOwn(ctx, "user") && hasOwn(user, "tier")' },
    beta: {
      holder: "flags",
      proof: 'hasOwn(ctx, "user") && hasOwn(user, "flags") && hasOwn(flags, "beta")',
    },
  },
};

const str = (value: string) => JSON.stringify(value);

/** The decision a rule returns, as an object literal. */
function decisionLiteral(rule: WideRule | null): string {
  if (rule === null) return '{ decision: "allow", reason: "rule", policyKey, ruleId: "allow-all" }';
  const base = `decision: ${str(rule.type)}, reason: "rule", policyKey, ruleId: ${str(rule.id)}`;
  return rule.type === "throttle"
    ? `{ ${base}, throttle: { limit: ${THROTTLE.limit}, windowSeconds: ${THROTTLE.windowSeconds}, key: ${
      str(THROTTLE.key)
    } } }`
    : `{ ${base} }`;
}

/** A rule's test as an expression over the values read once (compare first, prove own after). */
function testExpression(rule: WideRule, style: WideStyle): string {
  const proof = (field: Field) => HOLDERS[style][field].proof;
  const { k } = rule;
  switch (rule.kind) {
    case 0:
      return `plan === ${str(`plan-${k}`)} && ${proof("plan")}`;
    case 1:
      return `seats > ${1000 + k} && ${proof("seats")}`;
    case 2:
      return `(region === ${str(`r-${k}-a`)} || region === ${str(`r-${k}-b`)} || region === ${
        str(`r-${k}-c`)
      }) && ${proof("region")}`;
    case 3:
      return `betaExists && tier === ${str(`tier-${k}`)} && seats <= ${k} && ${proof("tier")} && ${
        proof("seats")
      }`;
    default:
      return `(region === ${str(`r-${k}`)} && ${proof("region")}) || !betaExists`;
  }
}

/** A plain-object check of `name` (an expression already evaluated into a variable). */
const plain = (name: string) =>
  `typeof ${name} === "object" && ${name} !== null && ((proto = getPrototypeOf(${name})) === OBJECT || proto === null)`;

/**
 * The source of the floor's function: the request checked, the target looked
 * up in nested maps, each value read once (each object on a path checked to
 * be a plain object once), then one \`if\` per rule in winning order, its
 * comparisons written as literals. Generated code is the limit the engine is
 * measured against, not a way the engine works (it generates none).
 */
export function floorSource(rules: number, style: WideStyle): string {
  const reads = style === "flat"
    ? [
      "const plan = ctx.plan, rawSeats = ctx.seats, region = ctx.region, tier = ctx.tier;",
      "const beta = ctx.beta;",
    ]
    : [
      "let user = ctx.user, org, flags;",
      `if (!(${plain("user")})) user = undefined;`,
      "if (user !== undefined) {",
      "  org = user.org;",
      `  if (!(${plain("org")})) org = undefined;`,
      "  flags = user.flags;",
      `  if (!(${plain("flags")})) flags = undefined;`,
      "}",
      "const plan = org === undefined ? undefined : org.plan;",
      "const rawSeats = org === undefined ? undefined : org.seats;",
      "const region = user === undefined ? undefined : user.region;",
      "const tier = user === undefined ? undefined : user.tier;",
      "const beta = flags === undefined ? undefined : flags.beta;",
    ];
  const tests = ranked(rules).map((rule) =>
    `if (${testExpression(rule, style)}) return ${decisionLiteral(rule)};`
  );
  return [
    "return function floor(request) {",
    "  const target = request.target;",
    '  if (typeof target !== "object" || target === null || typeof target.service !== "string" ||',
    '    typeof target.resource !== "string" || typeof target.action !== "string") {',
    "    throw new TypeError(INVALID);",
    "  }",
    "  let ctx = request.context, proto;",
    "  if (ctx === undefined) ctx = {};",
    `  else if (!(${plain("ctx")})) throw new TypeError(INVALID);`,
    "  const policyKey = services.get(target.service)?.get(target.resource)?.get(target.action);",
    '  if (policyKey === undefined) return { decision: "deny", reason: "default" };',
    ...reads.map((line) => `  ${line}`),
    // A finite number, or a string that is a JSON number literal; otherwise NaN (compares false).
    '  const seats = typeof rawSeats === "number" ? (rawSeats - rawSeats === 0 ? rawSeats : NaN)',
    '    : typeof rawSeats === "string" && JSON_NUMBER.test(rawSeats) && +rawSeats - +rawSeats === 0',
    "    ? +rawSeats : NaN;",
    `  const betaExists = beta != null && ${HOLDERS[style].beta.proof};`,
    ...tests.map((line) => `  ${line}`),
    `  return ${decisionLiteral(null)};`,
    "};",
  ].join("\n");
}

const JSON_NUMBER = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?$/;

function floor(n: number, rules: number, style: WideStyle): Floor {
  const index = new TargetIndex<string>();
  for (let i = 0; i < n; i++) index.set(wideTarget(i), `policy-${i}`);
  const make = new Function(
    "services",
    "hasOwn",
    "getPrototypeOf",
    "OBJECT",
    "JSON_NUMBER",
    "INVALID",
    floorSource(rules, style),
  );
  return make(
    index.maps(),
    Object.hasOwn,
    Object.getPrototypeOf,
    Object.prototype,
    JSON_NUMBER,
    "a request needs a target of three strings and a plain-object context",
  ) as Floor;
}

/** A kind-0 rule (an `eq` on plan) half-way down the ranking of the denies. */
const middleRule = (rules: number) => 5 * Math.floor((rules - 1) / 10);

/** Flat contexts: nothing fires but the allow; a deny half-way; the first throttle. */
function flatContexts(rules: number): Record<string, unknown>[] {
  const none = { plan: "none", seats: 3, region: "none", tier: "none", beta: true };
  return [none, { ...none, plan: `plan-${middleRule(rules)}` }, { ...none, seats: 5000 }];
}

function nest(flat: Record<string, unknown>): Record<string, unknown> {
  const { plan, seats, region, tier, beta } = flat;
  return {
    user: { id: "user-1", region, tier, flags: { beta }, org: { id: "org-1", plan, seats } },
  };
}

/** The scenario with `rules` rules per target and paths written in `style`. */
export function wide(rules: number, style: WideStyle): Scenario {
  const flat = flatContexts(rules);
  const order = ranked(rules);
  // By construction (tests/bench/floors_test.ts checks the engine agrees): nothing but the
  // allow, the half-way deny, the first throttle (seats 5,000 > 1,001; no deny's seats test
  // holds).
  const winners = [
    order.length,
    order.findIndex((r) => r.id === `rule-${middleRule(rules)}`),
    order.findIndex((r) => r.type === "throttle"),
  ];
  return {
    id: `${rules}-rules${style === "flat" ? "" : `-${style}`}`,
    summary:
      `${rules} rules per target, mixed operators (eq, gt, in, lte, exists, and, or, not), ` +
      `paths ${style === "flat" ? "flat (plan)" : "nested (user.org.plan)"}`,
    rulesPerTarget: rules,
    sizes: rules > 100 ? [10, 100] : [10, 1_000],
    target: wideTarget,
    bundle: (n) => bundle(n, rules, style),
    contexts: style === "flat" ? flat : flat.map(nest),
    expected: winners.map((w) => w < order.length ? order[w]!.type : "allow"),
    // Up to the winner; the allow has no condition.
    conditionsTested: winners.map((w) => Math.min(w + 1, order.length)),
    contextKeys: style === "flat" ? ["plan", "seats", "region", "tier", "beta"] : ["user"],
    floor: (n) => floor(n, rules, style),
  };
}
