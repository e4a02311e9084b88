// The benchmark scenario shared by the engine and peer benchmarks: N targets with
// three rules each (an unconditional allow; a deny when plan == "free" and seats > 5;
// a throttle when region in ["eu", "us"]), and contexts that make each rule decide.
import type { Decision, RuntimeBundleV1, Target } from "../mod.ts";

/** The i-th target of the scenario. */
export function scenarioTarget(i: number): Target {
  return { service: `svc-${i % 97}`, resource: `resource-${i}`, action: i % 2 ? "read" : "write" };
}

/** A bundle of `n` targets, one policy per target, three rules each. */
export function scenarioBundle(n: number): RuntimeBundleV1 {
  const policies = [];
  for (let i = 0; i < n; i++) {
    const target = scenarioTarget(i);
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
              { op: "eq" as const, path: "plan", value: "free" },
              { op: "gt" as const, path: "seats", value: 5 },
            ],
          },
          effect: { type: "deny" as const },
        },
        {
          id: "throttle-regions",
          status: "active" as const,
          priority: 5,
          target,
          when: { op: "in" as const, path: "region", values: ["eu", "us"] },
          effect: {
            type: "throttle" as const,
            throttle: { limit: 100, windowSeconds: 60, key: "tenant" },
          },
        },
      ],
    });
  }
  return { schemaVersion: 1, env: "prod", orgId: "bench", projectId: "bench", policies };
}

/** Contexts that make the deny, the throttle and the allow rule decide, in turn. */
export const SCENARIO_CONTEXTS: Record<string, unknown>[] = [
  { plan: "free", seats: 10, region: "apac" },
  { plan: "pro", seats: 1, region: "eu" },
  { plan: "pro", seats: 1, region: "apac" },
];

/** The decision each context of SCENARIO_CONTEXTS must give at target i. */
export function expectedDecision(i: number, contextIndex: number): Decision["decision"] {
  void i;
  return (["deny", "throttle", "allow"] as const)[contextIndex % 3]!;
}

/**
 * The floor: a hand-written nested-Map lookup with the three rules compiled by
 * hand, returning decision objects of the same shape as the engine's.
 */
export function buildFloor(n: number): (target: Target, ctx: Record<string, unknown>) => Decision {
  type Fn = (ctx: Record<string, unknown>) => Decision;
  const index = new Map<string, Map<string, Map<string, Fn>>>();
  for (let i = 0; i < n; i++) {
    const { service, resource, action } = scenarioTarget(i);
    const policyKey = `policy-${i}`;
    const fn: Fn = (ctx) => {
      if (ctx.plan === "free" && typeof ctx.seats === "number" && ctx.seats > 5) {
        return { decision: "deny", reason: "rule", policyKey, ruleId: "deny-free-many-seats" };
      }
      if (ctx.region === "eu" || ctx.region === "us") {
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
    let r = index.get(service);
    if (!r) index.set(service, r = new Map());
    let a = r.get(resource);
    if (!a) r.set(resource, a = new Map());
    a.set(action, fn);
  }
  return (t, ctx) => {
    const fn = index.get(t.service)?.get(t.resource)?.get(t.action);
    return fn ? fn(ctx) : { decision: "deny", reason: "default" };
  };
}
