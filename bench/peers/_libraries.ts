// The one place that imports the engines under test. Every adapter in engines/
// takes its library from here, so a Node runner can supply the same names from
// the npm build and from bare npm package names without touching the adapters.
export { createEvaluator, createLocalClient, loadBundle } from "../../mod.ts";
export { traceEvaluation } from "../../src/engine/mod.ts";
export * as cedar from "npm:@cedar-policy/cedar-wasm@4.13.0";
export { default as jsonLogic } from "npm:json-logic-js@2.0.5";
export { Engine as RulesEngine, type RuleProperties } from "npm:json-rules-engine@7.3.1";
export { newEnforcer, newModelFromString } from "npm:casbin@5.51.1";

/** The pinned versions above, for the report. */
export const VERSIONS = {
  cedar: "@cedar-policy/cedar-wasm 4.13.0",
  jsonLogic: "json-logic-js 2.0.5",
  rulesEngine: "json-rules-engine 7.3.1",
  casbin: "casbin 5.51.1",
} as const;
