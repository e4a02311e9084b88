// What a benchmark scenario provides, and the hand-written helpers its floor
// uses: the checks a correct evaluator must make, written out by hand.
import type { Decision, EffectType, RuntimeBundleV1, Target } from "../../mod.ts";

/** A hand-written evaluator for one scenario's bundle: the cost of the work itself. */
export type Floor = (target: Target, context: Record<string, unknown>) => Decision;

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
   * The floor: hand-written code deciding the scenario's rules for every
   * context (tests/bench/floors_test.ts compares it with the engine on odd
   * contexts too), with the checks a correct evaluator makes: a checked
   * request, values read from own properties of plain objects only.
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

/** The request check `evaluate` makes, by hand: three target strings, a plain-object context. */
export function checkedContext(
  target: Target,
  context: Record<string, unknown>,
): Record<string, unknown> {
  if (
    typeof target !== "object" || target === null || typeof target.service !== "string" ||
    typeof target.resource !== "string" || typeof target.action !== "string" ||
    !isPlain(context)
  ) {
    throw new TypeError("a request needs a target of three strings and a plain-object context");
  }
  return context;
}

/** True for an object whose prototype is `Object.prototype` or null. */
export function isPlain(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** `object[key]` when it is an own property, otherwise undefined. */
export function own(object: Record<string, unknown>, key: string): unknown {
  const value = object[key];
  return value !== undefined && Object.hasOwn(object, key) ? value : undefined;
}

/** `object[key]` when it is an own property holding a plain object, otherwise undefined. */
export function ownPlain(
  object: Record<string, unknown> | undefined,
  key: string,
): Record<string, unknown> | undefined {
  if (object === undefined) return undefined;
  const value = object[key];
  return isPlain(value) && Object.hasOwn(object, key) ? value : undefined;
}

const JSON_NUMBER = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?$/;

/** A context value as ordering operators compare it: a finite number or numeric string, else NaN. */
export function comparable(value: unknown): number {
  if (typeof value === "number") return Number.isFinite(value) ? value : NaN;
  if (typeof value !== "string" || !JSON_NUMBER.test(value)) return NaN;
  const n = Number(value);
  return Number.isFinite(n) ? n : NaN;
}

/** The throttle every scenario's throttle rules apply. */
export const THROTTLE = Object.freeze({ limit: 100, windowSeconds: 60, key: "tenant" });

/** A decision of a rule, built by hand as a floor returns it (the scenarios' rules allow, deny or throttle). */
export function ruleDecision(
  decision: "allow" | "deny" | "throttle",
  policyKey: string,
  ruleId: string,
): Decision {
  return decision === "throttle"
    ? {
      decision,
      reason: "rule",
      policyKey,
      ruleId,
      throttle: { limit: THROTTLE.limit, windowSeconds: THROTTLE.windowSeconds, key: THROTTLE.key },
    }
    : { decision, reason: "rule", policyKey, ruleId };
}

/** The global deny, for a target no rule names. */
export function defaultDeny(): Decision {
  return { decision: "deny", reason: "default" };
}

/** The nested-Map index of the floors and of peers without one: service → resource → action. */
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
