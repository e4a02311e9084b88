// What a benchmark scenario provides, and the nested-Map index peers without
// one of their own use.
import type { Decision, EffectType, RuntimeBundleV1, Target } from "../../mod.ts";

/**
 * A straight-line evaluator for one scenario's bundle, taking a request as
 * `evaluate` does: the cost of the work itself.
 */
export type Floor = (request: BenchRequest) => Decision;

/** A workload of the benchmarks: a bundle of n targets, contexts, and its floor. */
export interface Scenario {
  /** Short identifier, used on the command line, in bench names and in JSON results. */
  readonly id: string;
  /** One line for reports. */
  readonly summary: string;
  /** Rules naming each target. */
  readonly rulesPerTarget: number;
  /** The target counts the benchmarks run it at. */
  readonly sizes: readonly number[];
  /** The i-th target of the bundle. */
  target(i: number): Target;
  /** A bundle of `n` targets. */
  bundle(n: number): RuntimeBundleV1;
  /** Contexts the requests rotate over; every target decides the same for each. */
  readonly contexts: readonly Record<string, unknown>[];
  /** The decision each context gives (the peer benchmark's correctness gate). */
  readonly expected: readonly EffectType[];
  /** Rule conditions (`when`s) an evaluation tests to decide each context. */
  readonly conditionsTested: readonly number[];
  /** The top-level context keys, for a `contextPolicy` that allows exactly them. */
  readonly contextKeys: readonly string[];
  /**
   * The floor: straight-line code (hand-written for three rules, generated
   * for wide targets) deciding the scenario's rules for every context
   * (tests/bench/floors_test.ts compares it with the engine on odd contexts
   * too, with Object.prototype polluted), with the checks a correct evaluator
   * makes: a checked request, values read from own properties of plain
   * objects only. No helper function on the way.
   */
  floor(n: number): Floor;
}

/** One request of a benchmark: the shape `evaluate` takes. */
export interface BenchRequest {
  target: Target;
  context: Record<string, unknown>;
}

/** Requests in the benchmarks' rotation: a power of two, spread over the targets. */
export const QUERIES = 4096;

/** The rotating requests of a scenario at `n` targets: targets spread over the bundle, contexts in turn. */
export function scenarioRequests(scenario: Scenario, n: number): BenchRequest[] {
  return Array.from({ length: QUERIES }, (_, q) => ({
    target: scenario.target((q * 7919) % n),
    context: scenario.contexts[q % scenario.contexts.length]!,
  }));
}

/** The throttle every scenario's throttle rules apply. */
export const THROTTLE = Object.freeze({ limit: 100, windowSeconds: 60, key: "tenant" });

/** The nested maps of a {@link TargetIndex}, for code that looks targets up inline. */
export type TargetMaps<T> = Map<string, Map<string, Map<string, T>>>;

/**
 * The nested-Map index of the floors and of peers without one of their own:
 * service → resource → action. The floors read {@link TargetIndex.maps}
 * inline, with no method call on the way.
 */
export class TargetIndex<T> {
  readonly #services: TargetMaps<T> = new Map();

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

  /** The maps themselves. */
  maps(): TargetMaps<T> {
    return this.#services;
  }
}
