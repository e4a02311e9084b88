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
import { canonicalJson } from "../engine/canonical_payload.ts";

/** The behaviour of a rule of a valid bundle (`when`, and the decision of each outcome). */
export function ruleBehaviour(rule: Rule): string {
  if (rule.when === undefined) return canonicalJson([0, decisionOf(rule.effect)]);
  const onTrue = rule.thenEffect ?? rule.effect;
  const onFalse = rule.elseEffect === undefined ? null : decisionOf(rule.elseEffect);
  return canonicalJson([1, rule.when, decisionOf(onTrue), onFalse]);
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
