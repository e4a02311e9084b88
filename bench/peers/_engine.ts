// What every engine under test provides to the peer benchmark.
import type { BenchRequest, Scenario } from "../scenarios/mod.ts";

export type { BenchRequest } from "../scenarios/mod.ts";
export { TargetIndex } from "../scenarios/mod.ts";

/** Any engine's answer; the correctness gate reads only `decision`. */
export interface BenchDecision {
  readonly decision: string;
}

/** Decides one request, synchronously or not (json-rules-engine is async). */
export type Decide = (request: BenchRequest) => BenchDecision | Promise<BenchDecision>;

/** Where an engine's source is made: in the child process measuring it. */
export interface SourceSetting {
  /** The scenario measured. */
  readonly scenario: Scenario;
  /** A folder the engine may write files to (the child may read and write there only). */
  readonly scratch: string;
}

/** An engine under test, expressed for scenarios of bench/scenarios/. */
export interface PeerEngine<Source = unknown> {
  /** Short identifier, used on the command line and in the JSON results. */
  readonly id: string;
  /** Name and version for tables and the chart. */
  readonly label: string;
  /** True when `decide` returns a promise. */
  readonly async: boolean;
  /** The ids of the scenarios it expresses; without it, only the three-rule scenario. */
  readonly scenarios?: readonly string[];
  /** Larger scenarios are skipped unless `--all` is given, for `reason`. */
  readonly maxTargets?: { readonly targets: number; readonly reason: string };
  /** How the scenario was expressed, and what the engine could not express. */
  readonly notes: string;
  /** The engine's own source form of an n-target scenario (not timed). */
  source(n: number, setting: SourceSetting): Source | Promise<Source>;
  /** Builds a ready engine from its source: this is the timed "load". */
  load(source: Source): Decide | Promise<Decide>;
}

/** True when `engine` expresses the scenario `id`. */
export function expresses(engine: PeerEngine, id: string): boolean {
  return (engine.scenarios ?? ["3-rules"]).includes(id);
}

/** The decision when no rule applies, as our engine gives it. */
export const DEFAULT_DENY: BenchDecision = Object.freeze({ decision: "deny", reason: "default" });

/** Effect types from strongest to weakest (docs/bundle-format.md, "Selecting the decision"). */
export const STRENGTH_ORDER = ["kill_switch", "deny", "throttle", "allow", "custom"] as const;
