/** Short human descriptions of effects and targets for text output (not a contract). */
import type { KillSwitchDescriptor, Target, ThrottleDescriptor } from "../../engine/types.ts";

/** The descriptor-bearing part of an effect, a default or a decision. */
export interface EffectLike {
  killSwitch?: KillSwitchDescriptor | undefined;
  throttle?: ThrottleDescriptor | undefined;
  value?: string | undefined;
  customEffect?: string | undefined;
}

/** For example `throttle (100 per 60s by tenant)` or `kill_switch (payments: incident)`. */
export function describeEffect(type: string, effect: EffectLike): string {
  if (type === "throttle" && effect.throttle) {
    const t = effect.throttle;
    return `throttle (${t.limit} per ${t.windowSeconds}s by ${t.key || "(no key)"})`;
  }
  if (type === "kill_switch" && effect.killSwitch) {
    const k = effect.killSwitch;
    return `kill_switch (${k.service}${k.reason === undefined ? "" : `: ${k.reason}`})`;
  }
  const custom = effect.value ?? effect.customEffect;
  if (type === "custom" && custom !== undefined) return `custom (${JSON.stringify(custom)})`;
  return type;
}

/** `service/resource/action`. */
export function describeTarget(target: Target): string {
  return `${target.service}/${target.resource}/${target.action}`;
}

/** `1 rule`, `2 rules`; `1 policy`, `2 policies`. */
export function plural(count: number, noun: string, nouns = `${noun}s`): string {
  return `${count} ${count === 1 ? noun : nouns}`;
}

/**
 * A rule of a draft in a few words (`active, priority 20, allow`), for a
 * rule that may have been written by hand: missing fields read `?`.
 */
export function describeRuleBriefly(rule: unknown): string {
  const r = (typeof rule === "object" && rule !== null ? rule : {}) as Record<string, unknown>;
  const effect = (typeof r.effect === "object" && r.effect !== null ? r.effect : {}) as Record<
    string,
    unknown
  >;
  const type = typeof effect.type === "string" ? effect.type : "?";
  return `${typeof r.status === "string" ? r.status : "?"}, priority ${
    typeof r.priority === "number" ? r.priority : "?"
  }, ${describeEffect(type, effect as EffectLike)}`;
}
