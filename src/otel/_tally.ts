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

  /** Adds `n` to the series `key`, made with `attributes()` on its first count. */
  add(key: string, n: number, attributes: () => Attributes): void {
    const series = this.#series.get(key);
    if (series !== undefined) series.value += n;
    else this.#series.set(key, { attributes: Object.freeze(attributes()), value: n });
  }

  /** Reports every series. */
  observe(result: ObservableResult): void {
    for (const series of this.#series.values()) result.observe(series.value, series.attributes);
  }
}

/** The decision types, in the order of their slots. */
const DECISIONS = ["allow", "deny", "throttle", "kill_switch", "custom"] as const;
/** Slots per policy: each decision type by rule, then by default, then any other value. */
const SLOTS = DECISIONS.length * 2 + 1;

/** The slot of a decision: a switch on constants, no lookup and no string built. */
function slotOf(decision: Decision): number {
  let type: number;
  switch (decision.decision) {
    case "allow":
      type = 0;
      break;
    case "deny":
      type = 1;
      break;
    case "throttle":
      type = 2;
      break;
    case "kill_switch":
      type = 3;
      break;
    case "custom":
      type = 4;
      break;
    default:
      return SLOTS - 1;
  }
  return decision.reason === "rule" ? type : type + DECISIONS.length;
}

/** The counts of one policy (or one rule), by slot, and how to name each slot's series. */
interface Counts {
  readonly values: Float64Array;
  /** The attributes of each slot's series, made on its first collection. */
  readonly attributes: (Attributes | undefined)[];
  readonly policyKey: string | undefined;
  readonly ruleId: string | undefined;
}

/**
 * `policy.decisions`: the counts of each policy in an array of numbers, by
 * decision type and reason, so that counting one decision is one map lookup
 * (by policy key, a string whose hash the engine's strings keep), a switch
 * and an increment: no string built, no attributes looked up. With rule
 * ids, a second lookup by rule id. The attributes of a series are built
 * when it is first collected.
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
    if (counts === undefined) this.#byPolicy.set(key, counts = newCounts(policyKey, undefined));
    counts.values[slotOf(decision)]!++;
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
    if (counts === undefined) byRule.set(ruleId ?? "", counts = newCounts(policyKey, ruleId));
    counts.values[slotOf(decision)]!++;
  }

  observe(result: ObservableResult): void {
    for (const byRule of this.#byPolicy.values()) {
      for (const counts of byRule.values()) observeCounts(counts, result);
    }
  }
}

function newCounts(policyKey: string | undefined, ruleId: string | undefined): Counts {
  return { values: new Float64Array(SLOTS), attributes: [], policyKey, ruleId };
}

function observeCounts(counts: Counts, result: ObservableResult): void {
  const { values } = counts;
  for (let slot = 0; slot < SLOTS; slot++) {
    if (values[slot] === 0) continue;
    const attributes = counts.attributes[slot] ??= slotAttributes(counts, slot);
    result.observe(values[slot]!, attributes);
  }
}

function slotAttributes(counts: Counts, slot: number): Attributes {
  const attributes: Attributes = {
    [ATTRIBUTES.decision]: slot === SLOTS - 1 ? "_OTHER" : DECISIONS[slot % DECISIONS.length]!,
    [ATTRIBUTES.reason]: slot < DECISIONS.length ? "rule" : "default",
  };
  if (counts.policyKey !== undefined) attributes[ATTRIBUTES.policyKey] = counts.policyKey;
  if (counts.ruleId !== undefined) attributes[ATTRIBUTES.ruleId] = counts.ruleId;
  return Object.freeze(attributes);
}
