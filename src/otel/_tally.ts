// Counts kept as plain numbers and reported at each collection through an
// asynchronous (observable) counter (docs/observability.md "Cost"): adding
// one is a map lookup and an increment, where a synchronous OpenTelemetry
// counter hashes its attributes at every call. The attributes of each
// series are built once, when it is first counted.
import type { Attributes, ObservableResult } from "@opentelemetry/api";
import type { Decision } from "../engine/types.ts";
import { ATTRIBUTES } from "./_names.ts";

/** One series: its attributes and its count since creation. */
interface Series {
  readonly attributes: Attributes;
  value: number;
}

/** Series by a string key. */
export class Tally {
  readonly #series = new Map<string, Series>();

  /**
   * Adds `n` to the series `key`, made with `attributes(key)` on its first
   * count (a function made once, not per call: the key says what it needs).
   */
  add(key: string, n: number, attributes: (key: string) => Attributes): void {
    const series = this.#series.get(key);
    if (series !== undefined) series.value += n;
    else this.#series.set(key, { attributes: Object.freeze(attributes(key)), value: n });
  }

  /** Reports every series. */
  observe(result: ObservableResult): void {
    for (const series of this.#series.values()) result.observe(series.value, series.attributes);
  }
}

/**
 * The counts of one policy (or one rule), one field per decision type and
 * reason: one object with its numbers in it, so that counting touches one
 * small object after the lookup (a typed array would add its own store).
 */
class Counts {
  allowRule = 0;
  allowDefault = 0;
  denyRule = 0;
  denyDefault = 0;
  throttleRule = 0;
  throttleDefault = 0;
  killSwitchRule = 0;
  killSwitchDefault = 0;
  customRule = 0;
  customDefault = 0;
  /** A decision type this version does not know (none today). */
  other = 0;
  /** The attributes of each field's series, made on its first collection. */
  readonly attributes = new Map<CountField, Attributes>();
  readonly policyKey: string | undefined;
  readonly ruleId: string | undefined;

  constructor(policyKey: string | undefined, ruleId: string | undefined) {
    this.policyKey = policyKey;
    this.ruleId = ruleId;
  }

  /** Counts one decision: a switch on constants, no lookup and no string built. */
  add(decision: Decision): void {
    const rule = decision.reason === "rule";
    switch (decision.decision) {
      case "allow":
        if (rule) this.allowRule++;
        else this.allowDefault++;
        return;
      case "deny":
        if (rule) this.denyRule++;
        else this.denyDefault++;
        return;
      case "throttle":
        if (rule) this.throttleRule++;
        else this.throttleDefault++;
        return;
      case "kill_switch":
        if (rule) this.killSwitchRule++;
        else this.killSwitchDefault++;
        return;
      case "custom":
        if (rule) this.customRule++;
        else this.customDefault++;
        return;
      default:
        this.other++;
    }
  }
}

/** The fields of {@link Counts} that count, with the decision and reason each stands for. */
const FIELDS = [
  ["allowRule", "allow", "rule"],
  ["allowDefault", "allow", "default"],
  ["denyRule", "deny", "rule"],
  ["denyDefault", "deny", "default"],
  ["throttleRule", "throttle", "rule"],
  ["throttleDefault", "throttle", "default"],
  ["killSwitchRule", "kill_switch", "rule"],
  ["killSwitchDefault", "kill_switch", "default"],
  ["customRule", "custom", "rule"],
  ["customDefault", "custom", "default"],
  ["other", "_OTHER", "_OTHER"],
] as const;

type CountField = typeof FIELDS[number][0];

/**
 * `policy.decisions`: the counts of each policy in one object, by decision
 * type and reason, so that counting one decision is one map lookup (by
 * policy key, a string whose hash the engine's strings keep), a switch and
 * an increment: no string built, no attributes looked up. With rule ids, a
 * second lookup by rule id. The attributes of a series are built when it is
 * first collected.
 */
export interface DecisionTally {
  /** Counts one decision. */
  add(decision: Decision): void;
  /** Reports every series. */
  observe(result: ObservableResult): void;
}

/** A {@link DecisionTally} by policy, or by rule (`ruleIds`). */
export function decisionTally(ruleIds: boolean): DecisionTally {
  return ruleIds ? new RuleTally() : new PolicyTally();
}

/** Counts by policy: one lookup. */
class PolicyTally implements DecisionTally {
  readonly #byPolicy = new Map<string, Counts>();

  add(decision: Decision): void {
    const policyKey = decision.policyKey;
    const key = policyKey ?? "";
    let counts = this.#byPolicy.get(key);
    if (counts === undefined) this.#byPolicy.set(key, counts = new Counts(policyKey, undefined));
    counts.add(decision);
  }

  observe(result: ObservableResult): void {
    for (const counts of this.#byPolicy.values()) observeCounts(counts, result);
  }
}

/** Counts by policy and rule: two lookups. */
class RuleTally implements DecisionTally {
  readonly #byPolicy = new Map<string, Map<string, Counts>>();

  add(decision: Decision): void {
    const policyKey = decision.policyKey;
    let byRule = this.#byPolicy.get(policyKey ?? "");
    if (byRule === undefined) this.#byPolicy.set(policyKey ?? "", byRule = new Map());
    const ruleId = decision.reason === "rule" ? decision.ruleId : undefined;
    let counts = byRule.get(ruleId ?? "");
    if (counts === undefined) byRule.set(ruleId ?? "", counts = new Counts(policyKey, ruleId));
    counts.add(decision);
  }

  observe(result: ObservableResult): void {
    for (const byRule of this.#byPolicy.values()) {
      for (const counts of byRule.values()) observeCounts(counts, result);
    }
  }
}

function observeCounts(counts: Counts, result: ObservableResult): void {
  for (const [field, decision, reason] of FIELDS) {
    const value = counts[field];
    if (value === 0) continue;
    let attributes = counts.attributes.get(field);
    if (attributes === undefined) {
      attributes = { [ATTRIBUTES.decision]: decision, [ATTRIBUTES.reason]: reason };
      if (counts.policyKey !== undefined) attributes[ATTRIBUTES.policyKey] = counts.policyKey;
      if (counts.ruleId !== undefined) attributes[ATTRIBUTES.ruleId] = counts.ruleId;
      counts.attributes.set(field, Object.freeze(attributes));
    }
    result.observe(value, attributes);
  }
}
