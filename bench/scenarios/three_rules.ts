// The three-rule scenario (docs/performance.md "The scenario"): N targets,
// each with an unconditional allow, a deny when plan == "free" and seats > 5,
// and a throttle when region is "eu" or "us"; with its paths written flat
// (`plan`), with the `ctx.` prefix the README uses (`ctx.plan`), or nested
// (`user.org.plan`).
import type { RuntimeBundleV1, Target } from "../../mod.ts";
import { type Floor, type Scenario, TargetIndex, type TargetMaps, THROTTLE } from "./scenario.ts";

/** How the scenario writes its paths. */
export type PathStyle = "flat" | "ctx" | "nested";

const PATHS: Record<PathStyle, { plan: string; seats: string; region: string }> = {
  flat: { plan: "plan", seats: "seats", region: "region" },
  ctx: { plan: "ctx.plan", seats: "ctx.seats", region: "ctx.region" },
  nested: { plan: "user.org.plan", seats: "user.org.seats", region: "user.region" },
};

/** The i-th target of the scenario (every three-rule variant has the same targets). */
export function threeRuleTarget(i: number): Target {
  return { service: `svc-${i % 97}`, resource: `resource-${i}`, action: i % 2 ? "read" : "write" };
}

function bundle(n: number, style: PathStyle): RuntimeBundleV1 {
  const paths = PATHS[style];
  const policies = [];
  for (let i = 0; i < n; i++) {
    const target = threeRuleTarget(i);
    policies.push({
      policyKey: `policy-${i}`,
      activeVersion: 1,
      rules: [
        {
          id: "allow-all",
          status: "active" as const,
          priority: 1,
          target,
          effect: { type: "allow" as const },
        },
        {
          id: "deny-free-many-seats",
          status: "active" as const,
          priority: 10,
          target,
          when: {
            op: "and" as const,
            conditions: [
              { op: "eq" as const, path: paths.plan, value: "free" },
              { op: "gt" as const, path: paths.seats, value: 5 },
            ],
          },
          effect: { type: "deny" as const },
        },
        {
          id: "throttle-regions",
          status: "active" as const,
          priority: 5,
          target,
          when: { op: "in" as const, path: paths.region, values: ["eu", "us"] },
          effect: { type: "throttle" as const, throttle: { ...THROTTLE } },
        },
      ],
    });
  }
  return { schemaVersion: 1, env: "prod", orgId: "bench", projectId: "bench", policies };
}

/** Flat contexts that make the deny, the throttle and the allow decide, in turn. */
const FLAT_CONTEXTS = [
  { plan: "free", seats: 10, region: "apac" },
  { plan: "pro", seats: 1, region: "eu" },
  { plan: "pro", seats: 1, region: "apac" },
];

/** The same, as a user object holding an org object. */
const NESTED_CONTEXTS = FLAT_CONTEXTS.map(({ plan, seats, region }, i) => ({
  user: { id: `user-${i}`, region, org: { id: `org-${i}`, plan, seats } },
}));

/** A JSON number literal: the strings ordering operators compare as numbers. */
const JSON_NUMBER = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?$/;
const INVALID = "a request needs a target of three strings and a plain-object context";
const OBJECT = Object.prototype;
const hasOwn = Object.hasOwn;
const getPrototypeOf = Object.getPrototypeOf;

/** The floors' index: the policy key of each target, as the engine's index maps it to its program. */
function targetMaps(n: number): TargetMaps<string> {
  const index = new TargetIndex<string>();
  for (let i = 0; i < n; i++) index.set(threeRuleTarget(i), `policy-${i}`);
  return index.maps();
}

/**
 * The floor of the flat and `ctx.` scenarios (`ctx.plan` and `plan` read the
 * same key: a hand-written floor strips the prefix): one straight-line
 * function, no helper on the way. Each value is compared first and proven an
 * own property only when the decision depends on it.
 */
function flatFloor(n: number): Floor {
  const services = targetMaps(n);
  return (request) => {
    const target = request.target;
    if (
      typeof target !== "object" || target === null || typeof target.service !== "string" ||
      typeof target.resource !== "string" || typeof target.action !== "string"
    ) throw new TypeError(INVALID);
    let ctx = request.context;
    if (ctx === undefined) ctx = {};
    else if (typeof ctx !== "object" || ctx === null) throw new TypeError(INVALID);
    else {
      const proto = getPrototypeOf(ctx);
      if (proto !== OBJECT && proto !== null) throw new TypeError(INVALID);
    }
    const policyKey = services.get(target.service)?.get(target.resource)?.get(target.action);
    if (policyKey === undefined) return { decision: "deny", reason: "default" };
    if (ctx.plan === "free") {
      const seats = ctx.seats;
      if (
        (typeof seats === "number"
          ? seats > 5 && seats < Infinity
          : typeof seats === "string" && JSON_NUMBER.test(seats) && +seats > 5 &&
            +seats < Infinity) && hasOwn(ctx, "plan") && hasOwn(ctx, "seats")
      ) {
        return { decision: "deny", reason: "rule", policyKey, ruleId: "deny-free-many-seats" };
      }
    }
    const region = ctx.region;
    if ((region === "eu" || region === "us") && hasOwn(ctx, "region")) {
      return {
        decision: "throttle",
        reason: "rule",
        policyKey,
        ruleId: "throttle-regions",
        throttle: { limit: 100, windowSeconds: 60, key: "tenant" },
      };
    }
    return { decision: "allow", reason: "rule", policyKey, ruleId: "allow-all" };
  };
}

/**
 * The floor of the nested scenario (`user.org.plan`, `user.org.seats`,
 * `user.region`): each object on the way read once and checked to be a plain
 * object; its ownership, like the values', proven only when the decision
 * depends on it.
 */
function nestedFloor(n: number): Floor {
  const services = targetMaps(n);
  return (request) => {
    const target = request.target;
    if (
      typeof target !== "object" || target === null || typeof target.service !== "string" ||
      typeof target.resource !== "string" || typeof target.action !== "string"
    ) throw new TypeError(INVALID);
    let ctx = request.context;
    if (ctx === undefined) ctx = {};
    else if (typeof ctx !== "object" || ctx === null) throw new TypeError(INVALID);
    else {
      const proto = getPrototypeOf(ctx);
      if (proto !== OBJECT && proto !== null) throw new TypeError(INVALID);
    }
    const policyKey = services.get(target.service)?.get(target.resource)?.get(target.action);
    if (policyKey === undefined) return { decision: "deny", reason: "default" };
    const user = ctx.user as Record<string, unknown> | null | undefined;
    if (typeof user === "object" && user !== null) {
      const userProto = getPrototypeOf(user);
      if (userProto === OBJECT || userProto === null) {
        const org = user.org as Record<string, unknown> | null | undefined;
        if (typeof org === "object" && org !== null && org.plan === "free") {
          const orgProto = getPrototypeOf(org);
          const seats = org.seats;
          if (
            (orgProto === OBJECT || orgProto === null) &&
            (typeof seats === "number"
              ? seats > 5 && seats < Infinity
              : typeof seats === "string" && JSON_NUMBER.test(seats) && +seats > 5 &&
                +seats < Infinity) &&
            hasOwn(ctx, "user") && hasOwn(user, "org") && hasOwn(org, "plan") &&
            hasOwn(org, "seats")
          ) {
            return {
              decision: "deny",
              reason: "rule",
              policyKey,
              ruleId: "deny-free-many-seats",
            };
          }
        }
        const region = user.region;
        if (
          (region === "eu" || region === "us") && hasOwn(ctx, "user") && hasOwn(user, "region")
        ) {
          return {
            decision: "throttle",
            reason: "rule",
            policyKey,
            ruleId: "throttle-regions",
            throttle: { limit: 100, windowSeconds: 60, key: "tenant" },
          };
        }
      }
    }
    return { decision: "allow", reason: "rule", policyKey, ruleId: "allow-all" };
  };
}

/** The three-rule scenario with paths written in `style`. */
export function threeRules(style: PathStyle): Scenario {
  const nested = style === "nested";
  return {
    id: style === "flat" ? "3-rules" : `3-rules-${style}`,
    summary: `3 rules per target (allow; deny when ${PATHS[style].plan} == free and ${
      PATHS[style].seats
    } > 5; throttle when ${PATHS[style].region} in [eu, us])`,
    rulesPerTarget: 3,
    sizes: [10, 1_000, 100_000],
    target: threeRuleTarget,
    bundle: (n) => bundle(n, style),
    contexts: nested ? NESTED_CONTEXTS : FLAT_CONTEXTS,
    expected: ["deny", "throttle", "allow"],
    conditionsTested: [1, 2, 2],
    contextKeys: nested ? ["user"] : ["plan", "seats", "region"],
    floor: nested ? nestedFloor : flatFloor,
  };
}
