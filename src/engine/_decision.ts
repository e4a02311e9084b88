// This module is browser compatible.
// The decision object of a winning candidate record (see _target_program.ts),
// shared by evaluate and traceEvaluation.
import { parseJson } from "./parse_json.ts";
import type { Decision, EffectType, KillSwitchDescriptor, ThrottleDescriptor } from "./types.ts";
import type { Code } from "./_program_layout.ts";

/**
 * A decision as it is built, one field after the other (one object, in the
 * field order of docs/bundle-format.md); the switch below adds exactly the
 * descriptor its `decision` needs, which makes it a {@link Decision}.
 */
interface DecisionUnderConstruction {
  decision: EffectType;
  reason: "rule" | "default";
  policyKey?: string;
  ruleId?: string;
  throttle?: ThrottleDescriptor;
  killSwitch?: KillSwitchDescriptor;
  value?: string;
  parsedValue?: unknown;
}

/** A fresh decision object with exactly the fields that apply to the candidate's type. */
export function makeDecision(code: Code, record: number, parseCustomEffect: boolean): Decision {
  const type = code[record] as EffectType;
  const policyKey = code[record + 2] as string;
  const d: DecisionUnderConstruction = code[record + 1] === "rule"
    ? { decision: type, reason: "rule", policyKey, ruleId: code[record + 3] as string }
    : { decision: type, reason: "default", policyKey };
  switch (type) {
    case "throttle":
      d.throttle = {
        limit: code[record + 4] as number,
        windowSeconds: code[record + 5] as number,
        key: code[record + 6] as string,
      };
      break;
    case "kill_switch": {
      const service = code[record + 4] as string;
      const reason = code[record + 5] as string | null;
      d.killSwitch = reason === null ? { service } : { service, reason };
      break;
    }
    case "custom": {
      const value = code[record + 4] as string;
      d.value = value;
      if (parseCustomEffect && code[record + 5] === true) d.parsedValue = parseJson(value);
      break;
    }
  }
  return d as Decision;
}
