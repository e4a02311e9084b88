// The floor: each scenario's hand-written evaluator (bench/scenarios/), no engine.
import type { PeerEngine } from "../_engine.ts";
import { type Scenario, SCENARIOS } from "../../scenarios/mod.ts";

export const floor: PeerEngine<{ scenario: Scenario; n: number }> = {
  id: "floor",
  label: "floor: nested Map + straight-line compares",
  async: false,
  scenarios: SCENARIOS.map((s) => s.id),
  notes: "The cost of the work itself: the scenario's rules as straight-line code (written by " +
    "hand for three rules, generated for wide targets), behind a nested Map, with the checks a " +
    "correct evaluator makes (a checked request, values read from own properties of plain " +
    "objects only); returns decision objects of our shape.",
  source: (n, { scenario }) => ({ scenario, n }),
  load: ({ scenario, n }) => scenario.floor(n),
};
