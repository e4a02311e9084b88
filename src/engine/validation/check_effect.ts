// This module is browser compatible.
/**
 * Effects, of rules and of policies' defaults: their type and the
 * descriptor the type needs.
 *
 * @module
 */
import {
  isEffectType,
  isFiniteNumber,
  isNonEmptyString,
  isRecord,
} from "../../_internal/guards.ts";
import { descriptorFields, FIELDS } from "./known_fields.ts";
import { type Collector, describe, ERROR, type Site, WARNING } from "./walk.ts";

export function checkEffect(
  effect: unknown,
  field: "effect" | "thenEffect" | "elseEffect",
  site: Site,
  out: Collector,
): void {
  const problem = effectProblem(effect, "value", "effect");
  if (problem !== null) {
    if (out.keep(ERROR)) {
      out.error("INVALID_RULE_EFFECT", site.path(`/${field}`), `${site.name()}: ${problem}`);
    }
  }
  site.below.push(field);
  descriptorFields(effect, FIELDS.effect, site, out);
  site.below.length -= 1;
}

/** Checks a policy's defaults (the site is at the policy). */
export function checkDefaults(defaults: unknown, site: Site, out: Collector): void {
  site.below.push("defaults");
  descriptorFields(defaults, FIELDS.defaults, site, out);
  site.below.length -= 1;
  if (!isRecord(defaults) || !isEffectType(defaults.effect)) {
    if (out.keep(ERROR)) {
      out.error(
        "INVALID_DEFAULT_EFFECT",
        site.path("/defaults"),
        `${site.name()}: defaults must be an object whose effect is allow, deny, throttle, kill_switch or custom`,
      );
    }
    return;
  }
  const type = defaults.effect;
  if (
    (type === "kill_switch" || type === "throttle") && defaults[descriptorKey(type)] === undefined
  ) {
    if (out.keep(WARNING)) {
      out.warn(
        "DEFAULT_DESCRIPTOR_MISSING",
        site.path("/defaults"),
        `${site.name()}: a ${type} default without its ${
          descriptorKey(type)
        } descriptor is ignored; add the descriptor or change the effect`,
      );
    }
    return;
  }
  const problem = effectProblem({ ...defaults, type }, "customEffect", "default");
  if (problem !== null) {
    if (out.keep(ERROR)) {
      out.error("INVALID_DEFAULT_EFFECT", site.path("/defaults"), `${site.name()}: ${problem}`);
    }
  }
}

function descriptorKey(type: "kill_switch" | "throttle"): "killSwitch" | "throttle" {
  return type === "kill_switch" ? "killSwitch" : "throttle";
}

/**
 * What is wrong with an effect (`type` plus descriptor), or null. `noun`
 * names it in the message: a rule's `effect`, or a policy's `default`.
 */
function effectProblem(
  effect: unknown,
  customField: "value" | "customEffect",
  noun: "effect" | "default",
): string | null {
  if (!isRecord(effect)) return "an effect must be an object with a type";
  const type = effect.type;
  if (!isEffectType(type)) {
    return `effect type must be allow, deny, throttle, kill_switch or custom, found ${
      describe(type)
    }`;
  }
  if (type === "kill_switch") {
    const ks = effect.killSwitch;
    if (!isRecord(ks) || !isNonEmptyString(ks.service)) {
      return `a kill_switch ${noun} needs killSwitch: {service, reason?} with a non-empty service`;
    }
    if (ks.reason !== undefined && typeof ks.reason !== "string") {
      return "killSwitch.reason must be a string";
    }
  } else if (type === "throttle") {
    const t = effect.throttle;
    if (
      !isRecord(t) || !isFiniteNumber(t.limit) || t.limit < 0 ||
      !isFiniteNumber(t.windowSeconds) || t.windowSeconds <= 0 || typeof t.key !== "string"
    ) {
      return `a throttle ${noun} needs throttle: {limit >= 0, windowSeconds > 0, key (string)}`;
    }
  } else if (type === "custom" && typeof effect[customField] !== "string") {
    return `a custom ${noun} needs ${customField} (a string, often JSON-encoded)`;
  }
  return null;
}
