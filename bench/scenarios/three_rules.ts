// The three-rule scenario (docs/performance.md "The scenario"): N targets,
// each with an unconditional allow, a deny when plan == "free" and seats > 5,
// and a throttle when region is "eu" or "us"; with its paths written flat
// (`plan`), with the `ctx.` prefix the README uses (`ctx.plan`), or nested
// (`user.org.plan`).
import type { RuntimeBundleV1, Target } from "../../mod.ts";
import {
  checkedContext,
  comparable,
  defaultDeny,
  type Floor,
  ownPlain,
  ruleDecision,
  type Scenario,
  TargetIndex,
  THROTTLE,
} from "./_scenario.ts";

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

/**
 * The three rules by hand, strongest first: `org` holds plan and seats,
 * `holder` holds region (the context itself when paths are flat). Each value
 * is compared first and proven an own property only when it matters.
 */
function decide(
  policyKey: string,
  org: Record<string, unknown> | undefined,
  holder: Record<string, unknown> | undefined,
) {
  if (
    org !== undefined && org.plan === "free" && Object.hasOwn(org, "plan") &&
    comparable(org.seats) > 5 && Object.hasOwn(org, "seats")
  ) {
    return ruleDecision("deny", policyKey, "deny-free-many-seats");
  }
  const region = holder === undefined ? undefined : holder.region;
  if ((region === "eu" || region === "us") && Object.hasOwn(holder!, "region")) {
    return ruleDecision("throttle", policyKey, "throttle-regions");
  }
  return ruleDecision("allow", policyKey, "allow-all");
}

function floor(n: number, style: PathStyle): Floor {
  const index = new TargetIndex<string>();
  for (let i = 0; i < n; i++) index.set(threeRuleTarget(i), `policy-${i}`);
  if (style === "nested") {
    return (target, context) => {
      const ctx = checkedContext(target, context);
      const policyKey = index.get(target);
      if (policyKey === undefined) return defaultDeny();
      // Each object on the way is read once, and must be an own plain object.
      const user = ownPlain(ctx, "user");
      return decide(policyKey, ownPlain(user, "org"), user);
    };
  }
  // `ctx.plan` and `plan` read the same key: a hand-written floor strips the prefix.
  return (target, context) => {
    const ctx = checkedContext(target, context);
    const policyKey = index.get(target);
    return policyKey === undefined ? defaultDeny() : decide(policyKey, ctx, ctx);
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
    floor: (n) => floor(n, style),
  };
}
