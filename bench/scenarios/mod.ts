// The workloads of the benchmarks (docs/performance.md "Scenarios").
import type { Scenario } from "./scenario.ts";
import { threeRules } from "./three_rules.ts";
import { wide } from "./wide.ts";

export * from "./scenario.ts";
export { threeRuleTarget } from "./three_rules.ts";

/** The scenario of the first benchmarks: three rules per target, flat paths. */
export const THREE_RULES: Scenario = threeRules("flat");

/** Every scenario, in report order. */
export const SCENARIOS: readonly Scenario[] = [
  THREE_RULES,
  threeRules("ctx"),
  threeRules("nested"),
  wide(50, "flat"),
  wide(50, "nested"),
  wide(500, "flat"),
  wide(500, "nested"),
];

/** The scenario with this id. */
export function scenarioById(id: string): Scenario {
  const found = SCENARIOS.find((s) => s.id === id);
  if (found === undefined) {
    throw new Error(`unknown scenario ${id}; one of ${SCENARIOS.map((s) => s.id).join(", ")}`);
  }
  return found;
}
