// This module is browser compatible.
/**
 * What a compiled bundle keeps of its rules, for the readers that need more
 * than `evaluate` does: traces (which rank a target's rules on its first
 * trace, `trace_evaluation.ts`) and `policiesOf` (the rules as compiled, for
 * `simulate`'s coverage and a flag provider's changed targets). The parsed
 * document itself is not kept: a table of flat arrays holds each rule's id,
 * status, priority, target, compiled test, its `when` and effects (identical
 * ones shared), and each policy's key, version and `defaults`.
 *
 * @module
 */
import type { Condition, Effect, Policy, PolicyDefault, Rule, Target } from "./types.ts";
import type { Test } from "./compile_condition.ts";
import { TargetIndex } from "./_target_index.ts";

/** The rules of a compiled bundle, policy after policy, in bundle order. */
export interface RuleTable {
  /** Each policy's key. */
  readonly policyKeys: readonly string[];
  /** Each policy's `activeVersion`. */
  readonly activeVersions: readonly number[];
  /** Each policy's `defaults` (undefined when it has none). */
  readonly defaults: readonly (PolicyDefault | undefined)[];
  /** Where each policy's rules start; one more entry: the number of rules. */
  readonly ruleStarts: Int32Array;
  /** Each rule's id. */
  readonly ids: readonly string[];
  /** Each rule's priority. */
  readonly priorities: Float64Array;
  /** 1 for an active rule, 0 for a disabled one. */
  readonly active: Uint8Array;
  /** Each rule's compiled `when` (null without one). */
  readonly tests: readonly (Test | null)[];
  /** Each rule's `when` (undefined without one); identical ones are one object. */
  readonly whens: readonly unknown[];
  /** Each rule's `effect`; identical ones are one object. */
  readonly effects: readonly Effect[];
  /** The rules' `thenEffect`s, by rule number (most rules have none). */
  readonly thenEffects: ReadonlyMap<number, Effect>;
  /** The rules' `elseEffect`s, by rule number. */
  readonly elseEffects: ReadonlyMap<number, Effect>;
  /** Each rule's target number. */
  readonly ruleTargets: Int32Array;
  /** Each target's service, resource and action, three strings per target. */
  readonly targets: readonly string[];
}

/** Target `t` as an object. */
function targetAt(table: RuleTable, t: number): Target {
  const at = t * 3;
  return {
    service: table.targets[at]!,
    resource: table.targets[at + 1]!,
    action: table.targets[at + 2]!,
  };
}

/** Rule `g` as a rule of the format, with `target` as given. */
function ruleAt(table: RuleTable, g: number, target: Target): Rule {
  const rule: Rule = {
    id: table.ids[g]!,
    status: table.active[g] === 1 ? "active" : "disabled",
    priority: table.priorities[g]!,
    target,
    effect: table.effects[g]!,
  };
  const when = table.whens[g];
  if (when !== undefined) rule.when = when as Condition;
  const then = table.thenEffects.get(g);
  if (then !== undefined) rule.thenEffect = then;
  const otherwise = table.elseEffects.get(g);
  if (otherwise !== undefined) rule.elseEffect = otherwise;
  return rule;
}

/** Policy `p` without its rules. */
function policyShell(table: RuleTable, p: number): Policy {
  const policy: Policy = {
    policyKey: table.policyKeys[p]!,
    activeVersion: table.activeVersions[p]!,
    rules: [],
  };
  const defaults = table.defaults[p];
  if (defaults !== undefined) policy.defaults = defaults;
  return policy;
}

/** Every policy, with every rule, as compiled (see `policiesOf`). */
export function allPolicies(table: RuleTable): Policy[] {
  const targets: Target[] = [];
  const policies: Policy[] = [];
  for (let p = 0; p < table.policyKeys.length; p++) {
    const policy = policyShell(table, p);
    for (let g = table.ruleStarts[p]!; g < table.ruleStarts[p + 1]!; g++) {
      const t = table.ruleTargets[g]!;
      policy.rules.push(ruleAt(table, g, targets[t] ??= targetAt(table, t)));
    }
    policies.push(policy);
  }
  return policies;
}

/**
 * Where the rules naming each target are: per target, a flat list of
 * `policyIndex, ruleIndex` pairs in bundle order (what `collectTargets`
 * gives for the document).
 */
export function targetRefs(table: RuleTable): TargetIndex<number[]> {
  const byTarget: number[][] = [];
  let p = 0;
  for (let g = 0; g < table.ids.length; g++) {
    while (table.ruleStarts[p + 1]! <= g) p++;
    const t = table.ruleTargets[g]!;
    (byTarget[t] ??= []).push(p, g - table.ruleStarts[p]!);
  }
  const index = new TargetIndex<number[]>();
  const targets = table.targets;
  for (let t = 0; t < byTarget.length; t++) {
    index.set(targets[t * 3]!, targets[t * 3 + 1]!, targets[t * 3 + 2]!, byTarget[t]!);
  }
  return index;
}

/**
 * The policies of `refs` (pairs from {@link targetRefs}), each with only the
 * rules `refs` names, at their places: what `rankTarget` reads of a target.
 */
export function policiesAt(table: RuleTable, refs: readonly number[]): Policy[] {
  const policies: Policy[] = [];
  for (let k = 0; k < refs.length; k += 2) {
    const p = refs[k]!;
    const r = refs[k + 1]!;
    const policy = policies[p] ??= policyShell(table, p);
    const g = table.ruleStarts[p]! + r;
    policy.rules[r] = ruleAt(table, g, targetAt(table, table.ruleTargets[g]!));
  }
  return policies;
}
