// Our engine: the scenario bundle as file bytes, through the whole load pipeline.
import { createEvaluator, loadBundle } from "../_libraries.ts";
import type { PeerEngine } from "../_engine.ts";
import { scenarioBundle } from "../../_scenario.ts";

export const ours: PeerEngine<Uint8Array> = {
  id: "ours",
  label: "this engine (evaluate)",
  async: false,
  notes: "load = loadBundle of the bundle's bytes (UTF-8 decode, JSON.parse, validate, " +
    "checksum, compile), unsigned, with maxFileBytes raised for 100,000 targets.",
  source: (n) => new TextEncoder().encode(JSON.stringify(scenarioBundle(n))),
  async load(bytes) {
    const loaded = await loadBundle(bytes, { allowUnsigned: true, maxFileBytes: Infinity });
    return createEvaluator(loaded.compiled);
  },
};
