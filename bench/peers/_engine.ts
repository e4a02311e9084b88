// What every engine under test provides to the peer benchmark.
import type { Target } from "../../mod.ts";

/** One request of the scenario: the shape our `evaluate` takes. */
export interface BenchRequest {
  target: Target;
  context: Record<string, unknown>;
}

/** Any engine's answer; the correctness gate reads only `decision`. */
export interface BenchDecision {
  readonly decision: string;
}

/** Decides one request, synchronously or not (json-rules-engine is async). */
export type Decide = (request: BenchRequest) => BenchDecision | Promise<BenchDecision>;

/** An engine under test, expressed for the scenario of bench/_scenario.ts. */
export interface PeerEngine<Source = unknown> {
  /** Short identifier, used on the command line and in the JSON results. */
  readonly id: string;
  /** Name and version for tables and the chart. */
  readonly label: string;
  /** True when `decide` returns a promise. */
  readonly async: boolean;
  /** Larger scenarios are skipped unless `--all` is given, for `reason`. */
  readonly maxTargets?: { readonly targets: number; readonly reason: string };
  /** How the scenario was expressed, and what the engine could not express. */
  readonly notes: string;
  /** The engine's own source form of an n-target scenario (not timed). */
  source(n: number): Source;
  /** Builds a ready engine from its source: this is the timed "load". */
  load(source: Source): Decide | Promise<Decide>;
}

/**
 * The nested-Map target index the floor uses, for engines that have no target
 * index of their own: service → resource → action → value.
 */
export class TargetIndex<T> {
  readonly #services = new Map<string, Map<string, Map<string, T>>>();

  set(target: Target, value: T): void {
    let resources = this.#services.get(target.service);
    if (!resources) this.#services.set(target.service, resources = new Map());
    let actions = resources.get(target.resource);
    if (!actions) resources.set(target.resource, actions = new Map());
    actions.set(target.action, value);
  }

  get(target: Target): T | undefined {
    return this.#services.get(target.service)?.get(target.resource)?.get(target.action);
  }
}

/** The decision when no rule applies, as our engine gives it. */
export const DEFAULT_DENY: BenchDecision = Object.freeze({ decision: "deny", reason: "default" });

/** Effect types from strongest to weakest (docs/bundle-format.md, "Selecting the decision"). */
export const STRENGTH_ORDER = ["kill_switch", "deny", "throttle", "allow", "custom"] as const;
