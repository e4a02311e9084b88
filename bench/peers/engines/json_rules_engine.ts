// json-rules-engine: one Engine per target holding its three rules, behind the Map index.
import { type RuleProperties, RulesEngine, VERSIONS } from "../_libraries.ts";
import { DEFAULT_DENY, type PeerEngine, STRENGTH_ORDER, TargetIndex } from "../_engine.ts";
import { THREE_RULES } from "../../scenarios/mod.ts";
import type { Target } from "../../../mod.ts";

/** The three rules; the event type is our effect, the strongest event decides. */
const RULES = [
  {
    name: "deny-free-many-seats",
    priority: 10,
    conditions: {
      all: [
        { fact: "plan", operator: "equal", value: "free" },
        { fact: "seats", operator: "greaterThan", value: 5 },
      ],
    },
    event: { type: "deny" },
  },
  {
    name: "throttle-regions",
    priority: 5,
    conditions: { all: [{ fact: "region", operator: "in", value: ["eu", "us"] }] },
    event: { type: "throttle", params: { limit: 100, windowSeconds: 60, key: "tenant" } },
  },
  { name: "allow-all", priority: 1, conditions: { all: [] }, event: { type: "allow" } },
];

const STRENGTH = new Map<string, number>(STRENGTH_ORDER.map((type, i) => [type, i]));

interface RulesEngineLike {
  run(facts: Record<string, unknown>): Promise<{ events: { type: string }[] }>;
}

export const jsonRulesEngine: PeerEngine<string> = {
  id: "json-rules-engine",
  label: `${VERSIONS.rulesEngine}, engine per target`,
  async: true,
  notes: "A JSON document of targets with their rules; one Engine per target " +
    "(allowUndefinedFacts), behind the nested-Map index. Every rule runs; the strongest " +
    "event type decides. run() is asynchronous, so every decision is awaited.",
  source: (n) =>
    JSON.stringify(
      Array.from({ length: n }, (_, i) => ({ target: THREE_RULES.target(i), rules: RULES })),
    ),
  load(text) {
    const index = new TargetIndex<RulesEngineLike>();
    for (const { target, rules } of JSON.parse(text) as { target: Target; rules: unknown[] }[]) {
      index.set(target, new RulesEngine(rules as RuleProperties[], { allowUndefinedFacts: true }));
    }
    return async (request) => {
      const engine = index.get(request.target);
      if (engine === undefined) return DEFAULT_DENY;
      const { events } = await engine.run(request.context);
      let best: { type: string } | undefined;
      for (const event of events) {
        if (best === undefined || STRENGTH.get(event.type)! < STRENGTH.get(best.type)!) {
          best = event;
        }
      }
      return best === undefined ? DEFAULT_DENY : { decision: best.type };
    };
  },
};
