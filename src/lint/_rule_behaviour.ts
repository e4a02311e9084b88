// This module is browser compatible.
/**
 * What a rule does, as one string: its `when` and the decisions of its
 * outcomes, written canonically (key order and formatting do not matter).
 * Two rules of one target with the same behaviour fire on the same contexts
 * with the same decisions, whatever their ids, priorities and descriptions.
 *
 * @module
 */
import type { Effect, Rule } from "../engine/types.ts";

/** The behaviour of a rule of a valid bundle (`when`, and the decision of each outcome). */
export function ruleBehaviour(rule: Rule): string {
  if (rule.when === undefined) return canonicalText([0, decisionOf(rule.effect)]);
  const onTrue = rule.thenEffect ?? rule.effect;
  const onFalse = rule.elseEffect === undefined ? null : decisionOf(rule.elseEffect);
  return canonicalText([1, rule.when, decisionOf(onTrue), onFalse]);
}

/**
 * A JSON value as text with object keys sorted at every depth: equal for
 * equal values whatever their key order. (The canonical payload's
 * `canonicalJson` writes the same text through UTF-8 bytes; this is only
 * compared, never signed, so it builds the string directly.) Depth is
 * bounded by validation.
 */
export function canonicalText(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  if (Array.isArray(value)) {
    let text = "[";
    for (let i = 0; i < value.length; i++) text += (i === 0 ? "" : ",") + canonicalText(value[i]);
    return text + "]";
  }
  const record = value as Record<string, unknown>;
  let text = "{";
  let first = true;
  for (const key of Object.keys(record).sort()) {
    const child = record[key];
    if (child === undefined) continue;
    text += (first ? "" : ",") + JSON.stringify(key) + ":" + canonicalText(child);
    first = false;
  }
  return text + "}";
}

/** The parts of an effect that a decision copies (docs/bundle-format.md "Effects"). */
export function decisionOf(effect: Effect): Record<string, unknown> {
  switch (effect.type) {
    case "throttle": {
      const { limit, windowSeconds, key } = effect.throttle!;
      return { type: effect.type, throttle: { limit, windowSeconds, key } };
    }
    case "kill_switch": {
      const { service, reason } = effect.killSwitch!;
      return {
        type: effect.type,
        killSwitch: reason === undefined ? { service } : { service, reason },
      };
    }
    case "custom":
      return { type: effect.type, value: effect.value };
    default:
      return { type: effect.type };
  }
}
