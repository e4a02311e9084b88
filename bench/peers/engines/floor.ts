// The floor: hand-written nested Maps and compares, no engine (bench/_scenario.ts).
import type { PeerEngine } from "../_engine.ts";
import { buildFloor } from "../../_scenario.ts";

export const floor: PeerEngine<number> = {
  id: "floor",
  label: "floor: nested Map + hand-written compares",
  async: false,
  notes: "The cost of the work itself: the three rules compiled by hand into one function " +
    "per target, behind a nested Map; returns decision objects of our shape.",
  source: (n) => n,
  load(n) {
    const decide = buildFloor(n);
    return (request) => decide(request.target, request.context);
  },
};
