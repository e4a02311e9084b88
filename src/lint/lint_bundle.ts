// This module is browser compatible.
import type { Issue, Policy, Rule, RuntimeBundleV1, Target } from "../engine/types.ts";
import {
  collectTargets,
  effectRate,
  type RankedRule,
  rankTarget,
  strengthOf,
} from "../engine/rank_target.ts";
import type { Test } from "../engine/compile_condition.ts";
import {
  analyzeCondition,
  type ConditionFacts,
  type ConstantCondition,
} from "./_condition_facts.ts";
import { type CandidateFacts, deadCandidates } from "./_dead_candidates.ts";
import { ruleBehaviour } from "./_rule_behaviour.ts";
import { addedOperatorsIn } from "./_added_operators.ts";

/** The warning codes of {@link lintBundle} (docs/errors.md "Dead and shadowed rules"). */
export const LINT_CODES = [
  "RULE_SHADOWED",
  "RULE_BRANCH_SHADOWED",
  "RULE_DUPLICATE",
  "RULE_DISABLED_DUPLICATE",
  "DEFAULTS_SHADOWED",
  "CONDITION_NEVER_TRUE",
  "CONDITION_NEVER_FALSE",
  "OPERATOR_NEEDS_NEWER_RUNTIME",
] as const;

/** A code of {@link LINT_CODES}. */
export type LintCode = typeof LINT_CODES[number];

/** A finding of {@link lintBundle}: a warning with its code, message and JSON Pointer. */
export interface LintIssue extends Issue {
  /** One of {@link LINT_CODES}. */
  code: LintCode;
}

/**
 * Finds what in a bundle can never make a difference: rules that are never
 * selected for their target, branches that never apply, conditions that are
 * never true or never false, duplicated rules, and defaults that never
 * apply. Every finding is certain, for every possible request context: the
 * analysis follows the engine's own ranking and condition semantics, and
 * says nothing where it cannot decide (docs/errors.md "Dead and shadowed
 * rules" lists the codes and what each proves). One more warning is about
 * older runtimes, not contexts: `OPERATOR_NEEDS_NEWER_RUNTIME`, a deny,
 * kill_switch or throttle rule whose condition uses an operator an older
 * runtime reads as false.
 *
 * The bundle must be valid (`validateBundle` found no error). Time is
 * O(n log n) in the size of the bundle.
 *
 * @example An unconditional kill switch makes a weaker rule dead
 * ```ts
 * import { lintBundle } from "./lint_bundle.ts";
 * import assert from "node:assert/strict";
 *
 * const target = { service: "billing", resource: "invoice", action: "create" };
 * const findings = lintBundle({
 *   schemaVersion: 1,
 *   env: "prod",
 *   policies: [{
 *     policyKey: "billing",
 *     activeVersion: 1,
 *     rules: [
 *       { id: "off", status: "active", priority: 0, target, effect: { type: "kill_switch", killSwitch: { service: "billing" } } },
 *       { id: "pro", status: "active", priority: 9, target, effect: { type: "allow" }, when: { op: "eq", path: "plan", value: "pro" } },
 *     ],
 *   }],
 * });
 * assert.deepEqual(findings.map((f) => [f.code, f.path]), [["RULE_SHADOWED", "/policies/0/rules/1"]]);
 * ```
 */
export function lintBundle(bundle: RuntimeBundleV1): LintIssue[] {
  const findings: Finding[] = [];
  const policies = bundle.policies;
  const facts = new Map<Rule, ConditionFacts>();
  const policyIndex = new Map<string, number>();
  for (let p = 0; p < policies.length; p++) {
    const policy = policies[p]!;
    policyIndex.set(policy.policyKey, p);
    for (let r = 0; r < policy.rules.length; r++) {
      const rule = policy.rules[r]!;
      if (rule.when === undefined) continue;
      const constants: ConstantCondition[] = [];
      facts.set(rule, analyzeCondition(rule.when, constants));
      for (const constant of constants) {
        findings.push(conditionFinding({ policy, p, rule, r }, constant));
      }
      const newer = newerRuntimeFinding({ policy, p, rule, r });
      if (newer !== null) findings.push(newer);
    }
  }

  // Per policy index: whether its default was found unable to decide at every target so far.
  const defaults = new Map<number, { dead: boolean; why: string }>();
  collectTargets(policies).transform((refs) => {
    const target = policies[refs[0]!]!.rules[refs[1]!]!.target;
    const ranked = rankTarget(policies, refs, noTest);
    const candidates = deadCandidates(ranked, (rule) => facts.get(rule.rule)!);
    // The ranked rules come in the order of refs (bundle order): that is where each is.
    const rankedRules = ranked.flatMap((policy) => policy.rules);
    const sites = new Map<RankedRule, RuleSite>();
    rankedRules.forEach((rule, k) => {
      const p = refs[2 * k]!;
      sites.set(rule, { policy: policies[p]!, p, rule: rule.rule, r: refs[2 * k + 1]! });
    });
    const duplicates = findDuplicates(rankedRules);
    const byRule = new Map<RankedRule, CandidateFacts[]>();
    for (const c of candidates) {
      if (c.rule === null) {
        const p = policyIndex.get(c.policy.policyKey)!;
        const previous = defaults.get(p) ?? { dead: true, why: "" };
        const dead = previous.dead && (c.dead || !c.possible);
        defaults.set(p, { dead, why: previous.why || (dead ? defaultWhy(c, target) : "") });
      } else {
        const outcomes = byRule.get(c.rule);
        if (outcomes === undefined) byRule.set(c.rule, [c]);
        else outcomes.push(c);
      }
    }
    for (const [rule, outcomes] of byRule) {
      const site = sites.get(rule)!;
      const twin = duplicates.active.get(rule);
      if (twin !== undefined) {
        findings.push(duplicateFinding(site, sites.get(twin)!, target, "RULE_DUPLICATE"));
      } else {
        findings.push(...shadowFindings(site, outcomes, target));
      }
    }
    for (const [rule, twin] of duplicates.disabled) {
      findings.push(
        duplicateFinding(
          sites.get(rule)!,
          sites.get(twin)!,
          target,
          "RULE_DISABLED_DUPLICATE",
        ),
      );
    }
    return null;
  });
  for (const [p, { dead, why }] of defaults) {
    if (!dead) continue;
    findings.push({
      order: [p, Infinity, 0],
      code: "DEFAULTS_SHADOWED",
      path: `/policies/${p}/defaults`,
      message: `${
        policyName(policies[p]!)
      }: its defaults never decide: ${why}; remove them, or change the rules that decide first`,
    });
  }
  // Stable sort: in bundle order, and in the order found within a rule.
  findings.sort((a, b) =>
    a.order[0] - b.order[0] || a.order[1] - b.order[1] || a.order[2] - b.order[2]
  );
  return findings.map(({ code, message, path }) => ({ code, message, path }));
}

/**
 * A finding with where it sorts: policy, rule (Infinity for defaults), then
 * the rule itself (0) before its conditions (1).
 */
interface Finding extends LintIssue {
  order: [number, number, number];
}

/** Rules are ranked by the engine's own code, which compiles their `when`: any test will do here. */
const noTest: (when: unknown) => Test = () => () => false;

/** Where a rule is. */
interface RuleSite {
  policy: Policy;
  p: number;
  rule: Rule;
  r: number;
}

function policyName(policy: Policy): string {
  return `policy "${policy.policyKey}"`;
}

function ruleName(site: RuleSite): string {
  return `${policyName(site.policy)}, rule "${site.rule.id}"`;
}

function rulePath(site: RuleSite): string {
  return `/policies/${site.p}/rules/${site.r}`;
}

function targetName(target: Target): string {
  return `${target.service}/${target.resource}/${target.action}`;
}

function conditionFinding(site: RuleSite, constant: ConstantCondition): Finding {
  const { rule } = site;
  const code = constant.never === "true" ? "CONDITION_NEVER_TRUE" : "CONDITION_NEVER_FALSE";
  const at = constant.at.map((segment) => `/${segment}`).join("");
  const path = `${rulePath(site)}/when${at}`;
  const because = constant.path === ""
    ? ""
    : ` (no value of ${JSON.stringify(constant.path)} makes it ${constant.never})`;
  let consequence: string;
  if (at !== "") {
    consequence = `; it never makes the condition around it ${constant.never}`;
  } else if (constant.never === "true") {
    const branch = rule.thenEffect !== undefined ? "thenEffect" : "effect";
    consequence = rule.elseEffect !== undefined
      ? `, so its ${branch} never applies (only elseEffect can)`
      : ", so the rule never fires";
  } else {
    consequence = rule.elseEffect !== undefined
      ? ", so its elseEffect never applies"
      : ", so the rule always fires and its when changes nothing";
  }
  const what = at === "" ? "its when" : `the part of its when at ${at}`;
  return {
    order: [site.p, site.r, 1],
    code,
    path,
    message: `${ruleName(site)}: ${what} is never ${constant.never}${because}${consequence}`,
  };
}

/** The effects whose rule an older runtime must not silently switch off. */
const RESTRICTIVE: ReadonlySet<string> = new Set(["deny", "kill_switch", "throttle"]);

/**
 * `OPERATOR_NEEDS_NEWER_RUNTIME`: an active rule that denies, switches off or
 * throttles when its `when` holds, and whose `when` uses an operator added
 * after the specification's. A runtime older than the operator reads it as
 * false (an unknown operator), so there the rule may never fire: the
 * restriction is lifted without a word. Not a claim about contexts (the
 * bundle means what it says on this runtime): a note about older ones.
 */
function newerRuntimeFinding(site: RuleSite): Finding | null {
  const { rule } = site;
  if (rule.status !== "active") return null;
  const type = (rule.thenEffect ?? rule.effect).type;
  if (!RESTRICTIVE.has(type)) return null;
  const use = addedOperatorsIn(rule.when);
  if (use === null) return null;
  const names = use.operators.join(", ");
  return {
    order: [site.p, site.r, 2],
    code: "OPERATOR_NEEDS_NEWER_RUNTIME",
    path: `${rulePath(site)}/when${use.at.map((segment) => `/${segment}`).join("")}`,
    message: `${
      ruleName(site)
    } (${type}) uses ${names}, added after the specification's operators: a runtime older than ${
      use.operators.length > 1 ? "them" : "it"
    } reads ${
      use.operators.length > 1 ? "each" : "it"
    } as false, so there this ${type} may never fire; deploy this bundle only to runtimes that know ${
      use.operators.length > 1 ? "them" : "it"
    } (docs/bundle-format.md "Conditions")`,
  };
}

/**
 * Rules of one target with the same behaviour (`_rule_behaviour.ts`). An
 * active rule whose twin ranks above it is never selected: whenever it
 * fires, the twin fires the same way and wins. A disabled rule whose active
 * twin in the same policy ranks above it would change nothing if enabled
 * (in another policy it would: it would keep that policy's default from
 * applying).
 */
function findDuplicates(rules: readonly RankedRule[]): {
  active: Map<RankedRule, RankedRule>;
  disabled: Map<RankedRule, RankedRule>;
} {
  const first = new Map<string, RankedRule>();
  const firstInPolicy = new Map<string, RankedRule>();
  const keys = new Map<RankedRule, string>();
  for (const rule of rules) {
    const key = ruleBehaviour(rule.rule);
    keys.set(rule, key);
    if (!rule.active) continue;
    for (const [map, k] of [[first, key], [firstInPolicy, policyScoped(rule, key)]] as const) {
      const best = map.get(k);
      if (best === undefined || rule.onTrue.rank < best.onTrue.rank) map.set(k, rule);
    }
  }
  const active = new Map<RankedRule, RankedRule>();
  const disabled = new Map<RankedRule, RankedRule>();
  for (const rule of rules) {
    const key = keys.get(rule)!;
    if (rule.active) {
      const best = first.get(key)!;
      if (best !== rule) active.set(rule, best);
    } else {
      const best = firstInPolicy.get(policyScoped(rule, key));
      if (best !== undefined && best.onTrue.rank < rule.onTrue.rank) disabled.set(rule, best);
    }
  }
  return { active, disabled };
}

function policyScoped(rule: RankedRule, key: string): string {
  return `${rule.onTrue.policyKey.length}:${rule.onTrue.policyKey}${key}`;
}

function duplicateFinding(
  site: RuleSite,
  twin: RuleSite,
  target: Target,
  code: "RULE_DUPLICATE" | "RULE_DISABLED_DUPLICATE",
): Finding {
  const message = code === "RULE_DUPLICATE"
    ? `${ruleName(site)} is never selected for ${targetName(target)}: ${
      ruleName(twin)
    } has the same condition and effects and ranks above it; remove one of them`
    : `${ruleName(site)} is disabled and enabling it would change nothing: ${
      ruleName(twin)
    } has the same condition and effects and ranks above it; remove it`;
  return { order: [site.p, site.r, 0], code, path: rulePath(site), message };
}

/** `RULE_SHADOWED` when every outcome that can happen is dead; else `RULE_BRANCH_SHADOWED` per dead one. */
function shadowFindings(site: RuleSite, outcomes: CandidateFacts[], target: Target): Finding[] {
  const possible = outcomes.filter((c) => c.possible);
  const dead = possible.filter((c) => c.dead);
  if (dead.length === 0) return [];
  const order: [number, number, number] = [site.p, site.r, 0];
  if (dead.length === possible.length) {
    return [{
      order,
      code: "RULE_SHADOWED",
      path: rulePath(site),
      message: `${ruleName(site)} is never selected for ${targetName(target)}: ${
        deadBecause(dead[0]!)
      }; ${shadowRemedy(dead[0]!)}`,
    }];
  }
  return dead.map((c) => {
    const branch = c.branch === "onFalse"
      ? "elseEffect"
      : site.rule.when !== undefined && site.rule.thenEffect !== undefined
      ? "thenEffect"
      : "effect";
    return {
      order,
      code: "RULE_BRANCH_SHADOWED" as const,
      path: `${rulePath(site)}/${branch}`,
      message: `${ruleName(site)}: its ${branch} is never selected for ${targetName(target)}: ${
        deadBecause(c)
      }`,
    };
  });
}

/** Why a dead candidate never wins, naming what decides first. */
function deadBecause(c: CandidateFacts): string {
  const cause = c.deadAfter!;
  const type = cause.candidate.type;
  if (cause.rule === null) {
    return cause.alwaysFires
      ? `the defaults of ${policyLabel(cause)} always apply (${type}) and outrank it`
      : `the rules or the defaults of ${policyLabel(cause)} always decide first`;
  }
  const rule = `rule "${cause.rule.rule.id}" of ${policyLabel(cause)}`;
  if (cause.alwaysFires) return `${rule} always fires (${type}) and outranks it`;
  if (cause.rule.onFalse !== null && cause.rule.test !== null) {
    const other = cause.branch === "onTrue" ? cause.rule.onFalse : cause.rule.onTrue;
    if (other.rank < cause.candidate.rank) {
      return `${rule} always fires (through its when or its elseEffect) and outranks it`;
    }
  }
  return `the candidates ranked above it, up to ${rule}, always include one that fires`;
}

/**
 * What an author can do about a dead rule. Candidates rank by effect type,
 * then (throttles) by rate, and only then by priority (docs/bundle-format.md
 * "Selecting the decision"): when what decides first is of a stronger type
 * or a lower rate, so is everything ranked before it, and no priority lifts
 * the dead rule above them.
 */
function shadowRemedy(c: CandidateFacts): string {
  const cause = c.deadAfter!;
  const dead = c.candidate;
  const first = cause.candidate;
  let why: string;
  if (strengthOf(first.type) < strengthOf(dead.type)) {
    why = `${article(first.type)} ${first.type} outranks ${article(dead.type)} ${dead.type}`;
  } else if (first.type === "throttle" && effectRate(first.effect) < effectRate(dead.effect)) {
    why = "a throttle of a lower rate outranks it";
  } else {
    return "remove it, or raise it above what decides first";
  }
  const what = cause.rule === null
    ? `change the ${cause.alwaysFires ? "" : "rules or the "}defaults of ${policyLabel(cause)}`
    : cause.alwaysFires
    ? `narrow the condition of rule "${cause.rule.rule.id}" of ${policyLabel(cause)}`
    : "narrow the conditions of the candidates ranked above it";
  return `no priority can change that: ${why} whatever the priorities (the effect type and a throttle's rate come before priority); remove it, or ${what}`;
}

function article(type: string): string {
  return type === "allow" ? "an" : "a";
}

function policyLabel(c: CandidateFacts): string {
  return `policy "${c.policy.policyKey}"`;
}

/** Why a policy's default does not decide at one target. */
function defaultWhy(c: CandidateFacts, target: Target): string {
  return c.possible
    ? `at ${targetName(target)}, ${deadBecause(c)}`
    : `at ${targetName(target)}, one of its own active rules fires on every context`;
}
