// casbin: one enforcer per target, its three rules as ordered ABAC policies.
import { newEnforcer, newModelFromString, VERSIONS } from "../_libraries.ts";
import { DEFAULT_DENY, type PeerEngine, TargetIndex } from "../_engine.ts";
import { THREE_RULES } from "../../scenarios/mod.ts";
import type { Target } from "../../../mod.ts";

/**
 * The request is the context object; a policy is (rule id, condition, casbin
 * effect, our effect type). `priority(p.eft) || deny` lets the first matching
 * policy decide, so the policies are listed strongest effect first.
 */
const MODEL = `
[request_definition]
r = ctx

[policy_definition]
p = id, cond, eft, type

[policy_effect]
e = priority(p.eft) || deny

[matchers]
m = eval(p.cond)
`;

const POLICIES = [
  ["deny-free-many-seats", "r.ctx.plan == 'free' && r.ctx.seats > 5", "deny", "deny"],
  ["throttle-regions", "r.ctx.region in ('eu', 'us')", "allow", "throttle"],
  ["allow-all", "true", "allow", "allow"],
];

interface EnforcerLike {
  enforceExSync(...request: unknown[]): [boolean, string[]];
}

export const casbin: PeerEngine<string> = {
  id: "casbin",
  label: `${VERSIONS.casbin}, enforcer per target`,
  async: false,
  maxTargets: {
    targets: 100_000,
    reason: "one enforcer per target: 100,000 took 4 s to load under Deno (14 s on Node, PEERS.md)",
  },
  notes: "One enforcer per target behind the nested-Map index, ABAC matcher eval(p.cond), " +
    "effect priority(p.eft) || deny, policies strongest first. casbin decides allow or deny " +
    "only: the throttle rule is a casbin allow whose fourth field names our effect, read back " +
    "from the policy enforceExSync reports as deciding.",
  source: (n) =>
    JSON.stringify(
      Array.from({ length: n }, (_, i) => ({ target: THREE_RULES.target(i), policies: POLICIES })),
    ),
  async load(text) {
    const index = new TargetIndex<{ policyKey: string; enforcer: EnforcerLike }>();
    const entries = JSON.parse(text) as { target: Target; policies: string[][] }[];
    for (let i = 0; i < entries.length; i++) {
      const { target, policies } = entries[i]!;
      const enforcer = await newEnforcer(newModelFromString(MODEL));
      await enforcer.addPolicies(policies);
      index.set(target, { policyKey: `policy-${i}`, enforcer });
    }
    return (request) => {
      const entry = index.get(request.target);
      if (entry === undefined) return DEFAULT_DENY;
      const [, explain] = entry.enforcer.enforceExSync(request.context);
      if (explain.length === 0) return DEFAULT_DENY;
      return { decision: explain[3]!, policyKey: entry.policyKey, ruleId: explain[0]! };
    };
  },
};
