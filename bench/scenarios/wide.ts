// Wide targets: each target has `rules` rules with mixed operators (eq, gt,
// in, lte, exists, and, or, not), most of which an evaluation must test
// before one fires; paths flat (`plan`) or nested (`user.org.plan`).
import type { Condition, Rule, RuntimeBundleV1, Target } from "../../mod.ts";
import {
  checkedContext,
  comparable,
  defaultDeny,
  type Floor,
  own,
  ownPlain,
  ruleDecision,
  type Scenario,
  TargetIndex,
  THROTTLE,
} from "./_scenario.ts";

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

/** The context values the rules read, each resolved once. */
interface Values {
  plan: unknown;
  seats: number;
  region: unknown;
  tier: unknown;
  beta: unknown;
}

/** The rules in the order they win: denies, then throttles, each by falling priority (rising k). */
function ranked(rules: number): WideRule[] {
  const list = wideRules(rules);
  return [...list.filter((r) => r.type === "deny"), ...list.filter((r) => r.type === "throttle")];
}

/** Each rule's condition by hand, for values read once; compared strings are made here, once. */
function ruleTests(order: readonly WideRule[]): ((v: Values) => boolean)[] {
  return order.map(({ k, kind }) => {
    const plan = `plan-${k}`;
    const a = `r-${k}-a`, b = `r-${k}-b`, c = `r-${k}-c`;
    const tier = `tier-${k}`, region = `r-${k}`;
    switch (kind) {
      case 0:
        return (v) => v.plan === plan;
      case 1:
        return (v) => v.seats > 1000 + k;
      case 2:
        return (v) => v.region === a || v.region === b || v.region === c;
      case 3:
        return (v) => v.beta != null && v.tier === tier && v.seats <= k;
      default:
        return (v) => v.region === region || v.beta == null;
    }
  });
}

/** Index of the first rule whose test holds, or `tests.length` (the allow). */
function firstFiring(tests: readonly ((v: Values) => boolean)[], values: Values): number {
  for (let i = 0; i < tests.length; i++) if (tests[i]!(values)) return i;
  return tests.length;
}

/**
 * The values of a context: read from own properties of plain objects only,
 * each object on the way read once.
 */
function readValues(ctx: Record<string, unknown>, style: WideStyle): Values {
  if (style === "flat") {
    return {
      plan: own(ctx, "plan"),
      seats: comparable(own(ctx, "seats")),
      region: own(ctx, "region"),
      tier: own(ctx, "tier"),
      beta: own(ctx, "beta"),
    };
  }
  const user = ownPlain(ctx, "user");
  const org = ownPlain(user, "org");
  const flags = ownPlain(user, "flags");
  return {
    plan: org === undefined ? undefined : own(org, "plan"),
    seats: comparable(org === undefined ? undefined : own(org, "seats")),
    region: user === undefined ? undefined : own(user, "region"),
    tier: user === undefined ? undefined : own(user, "tier"),
    beta: flags === undefined ? undefined : own(flags, "beta"),
  };
}

function floor(n: number, rules: number, style: WideStyle): Floor {
  const order = ranked(rules);
  const tests = ruleTests(order);
  const index = new TargetIndex<string>();
  for (let i = 0; i < n; i++) index.set(wideTarget(i), `policy-${i}`);
  return (target, context) => {
    const ctx = checkedContext(target, context);
    const policyKey = index.get(target);
    if (policyKey === undefined) return defaultDeny();
    const w = firstFiring(tests, readValues(ctx, style));
    return w < order.length
      ? ruleDecision(order[w]!.type, policyKey, order[w]!.id)
      : ruleDecision("allow", policyKey, "allow-all");
  };
}

/** Flat contexts: nothing fires but the allow; a deny half-way; the first throttle. */
function flatContexts(rules: number): Record<string, unknown>[] {
  const none = { plan: "none", seats: 3, region: "none", tier: "none", beta: true };
  const middle = 5 * Math.floor((rules - 1) / 10); // a kind-0 rule half-way
  return [none, { ...none, plan: `plan-${middle}` }, { ...none, seats: 5000 }];
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
  const tests = ruleTests(order);
  const winners = flat.map((ctx) => firstFiring(tests, readValues(ctx, "flat")));
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
