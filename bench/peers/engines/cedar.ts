// Cedar (cedar-wasm): one pre-parsed policy set per target, the stateful API.
import { cedar, VERSIONS } from "../_libraries.ts";
import { DEFAULT_DENY, type PeerEngine, STRENGTH_ORDER, TargetIndex } from "../_engine.ts";
import { THREE_RULES } from "../../scenarios/mod.ts";
import type { Target } from "../../../mod.ts";

/** The three rules as Cedar policies, keyed by policy id. */
const POLICIES: Record<string, string> = {
  "allow-all": "permit(principal, action, resource);",
  "deny-free-many-seats":
    'forbid(principal, action, resource) when { context.plan == "free" && context.seats > 5 };',
  "throttle-regions":
    'permit(principal, action, resource) when { ["eu", "us"].contains(context.region) };',
};

/** Our effect type of each policy: Cedar itself only knows permit and forbid. */
const EFFECT_OF = new Map<string, string>([
  ["allow-all", "allow"],
  ["deny-free-many-seats", "deny"],
  ["throttle-regions", "throttle"],
]);
const STRENGTH = new Map<string, number>(STRENGTH_ORDER.map((type, i) => [type, i]));
const PRINCIPAL = { type: "User", id: "bench" };

export const cedarEngine: PeerEngine<string> = {
  id: "cedar",
  label: `${VERSIONS.cedar}, pre-parsed set per target`,
  async: false,
  maxTargets: {
    targets: 100_000,
    reason: "one pre-parsed set per target: 100,000 took 23 s under Deno (40 s on Node, PEERS.md)",
  },
  notes: "One policy set per target pre-parsed with preparsePolicySet, decided with " +
    "statefulIsAuthorized (no entities, the context as Cedar context), behind the nested-Map " +
    "index. Cedar answers allow or deny with the ids of the determining policies; the decision " +
    "is the strongest of our effect types among those ids (a permit named throttle-regions " +
    "stands for the throttle).",
  source: (n) =>
    JSON.stringify(
      Array.from({ length: n }, (_, i) => ({ target: THREE_RULES.target(i), policies: POLICIES })),
    ),
  load(text) {
    const index = new TargetIndex<string>();
    const entries = JSON.parse(text) as { target: Target; policies: Record<string, string> }[];
    entries.forEach(({ target, policies }, i) => {
      const id = `policy-${i}`;
      const parsed = cedar.preparsePolicySet(id, { staticPolicies: policies });
      if (parsed.type !== "success") throw new Error(`cedar: ${JSON.stringify(parsed.errors)}`);
      index.set(target, id);
    });
    return (request) => {
      const id = index.get(request.target);
      if (id === undefined) return DEFAULT_DENY;
      const answer = cedar.statefulIsAuthorized({
        principal: PRINCIPAL,
        action: { type: "Action", id: request.target.action },
        resource: { type: "Resource", id: request.target.resource },
        context: request.context as Record<string, string | number>,
        preparsedPolicySetId: id,
        entities: [],
      });
      if (answer.type !== "success") throw new Error(`cedar: ${JSON.stringify(answer.errors)}`);
      let decision: string | undefined;
      for (const policyId of answer.response.diagnostics.reason) {
        const type = EFFECT_OF.get(policyId)!;
        if (decision === undefined || STRENGTH.get(type)! < STRENGTH.get(decision)!) {
          decision = type;
        }
      }
      return decision === undefined ? DEFAULT_DENY : { decision, policyKey: id };
    };
  },
};
