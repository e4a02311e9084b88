// This module is browser compatible.
import type {
  Decision,
  Effect,
  EffectType,
  Policy,
  PolicyDefault,
  Rule,
  RuntimeBundleV1,
} from "./types.ts";
import { PolicyError } from "./policy_error.ts";
import { validateBundle } from "./validate_bundle.ts";
import { compileCondition, type Test } from "./_compile_condition.ts";
import { EFFECT_TYPES } from "./_guards.ts";

/** Version of the compiled form; changes when its shape does. */
export const COMPILER_VERSION = 1;

/**
 * One way a decision can be made at a target: a rule's outcome (effect,
 * thenEffect or elseEffect) or a policy default. `rank` orders every
 * candidate of a target by CONTRACT.md §3 selection; the lowest fired wins.
 */
export interface Candidate {
  readonly rank: number;
  readonly type: EffectType;
  readonly priority: number;
  readonly policyKey: string;
  /** The rule id, or `__default__` for a policy default. */
  readonly ruleId: string;
  readonly reason: "rule" | "default";
  /** Builds a fresh decision object. */
  readonly decide: (parseCustomEffect: boolean) => Decision;
}

/** A compiled rule at its target. */
export interface CompiledRule {
  readonly id: string;
  readonly active: boolean;
  readonly priority: number;
  /** null when the rule has no `when`. */
  readonly test: Test | null;
  /** Applied when there is no `when`, or when it is true. */
  readonly onTrue: Candidate;
  /** Applied when `when` is false; null means the rule is skipped. */
  readonly onFalse: Candidate | null;
}

/** A policy as it applies at one target. */
export interface PolicyAtTarget {
  readonly policyKey: string;
  /** Active rules naming the target, in bundle order: the only ones evaluated. */
  readonly activeRules: readonly CompiledRule[];
  /** Every rule naming the target, active or disabled (for traces). */
  readonly allRules: readonly CompiledRule[];
  /** The default as a candidate, or null when absent or ignored. */
  readonly fallback: Candidate | null;
}

/** Everything that applies at one exact target. */
export interface TargetEntry {
  readonly policies: readonly PolicyAtTarget[];
}

/** A validated bundle compiled into an immutable exact-target index. */
export interface CompiledBundle {
  readonly compilerVersion: number;
  /** The source document. */
  readonly bundle: RuntimeBundleV1;
  readonly policyCount: number;
  readonly ruleCount: number;
  /** Lookup of the target entry: service → resource → action. */
  lookup(service: string, resource: string, action: string): TargetEntry | undefined;
}

/** Options of {@link compileBundle}. */
export interface CompileOptions {
  /** Skip validation because the caller has just validated the same document. */
  skipValidation?: boolean;
}

/**
 * Validates a bundle and compiles it into an immutable index: an exact
 * target lookup (nested maps, no scanning), conditions compiled once into
 * closures, and every candidate decision ranked in advance.
 *
 * @throws {PolicyError} `BUNDLE_INVALID` with the validation issues.
 *
 * @example
 * ```ts
 * import { compileBundle } from "./compile_bundle.ts";
 * import assert from "node:assert/strict";
 *
 * const compiled = compileBundle({ schemaVersion: 1, env: "prod", policies: [] });
 * assert.equal(compiled.policyCount, 0);
 * assert.equal(compiled.lookup("a", "b", "c"), undefined);
 * ```
 */
export function compileBundle(document: unknown, options: CompileOptions = {}): CompiledBundle {
  if (!options.skipValidation) {
    const result = validateBundle(document);
    if (!result.valid) {
      throw new PolicyError(
        "BUNDLE_INVALID",
        `the bundle is invalid: ${result.errors[0]!.message} (${result.errors[0]!.path})` +
          (result.errors.length > 1 ? ` and ${result.errors.length - 1} more issue(s)` : ""),
        { issues: result.errors },
      );
    }
  }
  const bundle = document as RuntimeBundleV1;
  const index = new Map<string, Map<string, Map<string, Builder>>>();
  let ruleCount = 0;
  bundle.policies.forEach((policy, policyIndex) => {
    ruleCount += policy.rules.length;
    policy.rules.forEach((rule, ruleIndex) => {
      const { service, resource, action } = rule.target;
      let byResource = index.get(service);
      if (!byResource) index.set(service, byResource = new Map());
      let byAction = byResource.get(resource);
      if (!byAction) byResource.set(resource, byAction = new Map());
      let builder = byAction.get(action);
      if (!builder) byAction.set(action, builder = new Builder());
      builder.add(policy, policyIndex, rule, ruleIndex);
    });
  });
  const entries = new Map<string, Map<string, Map<string, TargetEntry>>>();
  for (const [service, byResource] of index) {
    const r = new Map<string, Map<string, TargetEntry>>();
    entries.set(service, r);
    for (const [resource, byAction] of byResource) {
      const a = new Map<string, TargetEntry>();
      r.set(resource, a);
      for (const [action, builder] of byAction) a.set(action, builder.build());
    }
  }
  return Object.freeze({
    compilerVersion: COMPILER_VERSION,
    bundle,
    policyCount: bundle.policies.length,
    ruleCount,
    lookup: (service: string, resource: string, action: string) =>
      entries.get(service)?.get(resource)?.get(action),
  });
}

/** Sort data of a candidate before ranks are assigned. */
interface Draft {
  type: EffectType;
  rate: number;
  priority: number;
  isDefault: boolean;
  policyIndex: number;
  ruleIndex: number;
  branch: number;
  policyKey: string;
  ruleId: string;
  decide: (parseCustomEffect: boolean) => Decision;
  rank: number;
}

interface PolicyDraft {
  policyKey: string;
  rules: { rule: Rule; onTrue: Draft; onFalse: Draft | null; test: Test | null }[];
  fallback: Draft | null;
}

/** Collects the policies and rules of one target, then ranks the candidates. */
class Builder {
  readonly #policies: PolicyDraft[] = [];
  readonly #byPolicy = new Map<number, PolicyDraft>();
  readonly #drafts: Draft[] = [];

  add(policy: Policy, policyIndex: number, rule: Rule, ruleIndex: number): void {
    let p = this.#byPolicy.get(policyIndex);
    if (!p) {
      p = { policyKey: policy.policyKey, rules: [], fallback: null };
      if (policy.defaults !== undefined) {
        p.fallback = this.#defaultDraft(policy.policyKey, policy.defaults, policyIndex);
      }
      this.#byPolicy.set(policyIndex, p);
      this.#policies.push(p);
    }
    const key = policy.policyKey;
    const draft = (effect: Effect, branch: number) =>
      this.#draft(effect.type, effectRate(effect), rule.priority, false, policyIndex, ruleIndex, {
        branch,
        policyKey: key,
        ruleId: rule.id,
        decide: decisionFactory(effect.type, "rule", key, rule.id, effect, effect.value),
      });
    const hasWhen = rule.when !== undefined;
    const thenEffect = hasWhen && rule.thenEffect !== undefined ? rule.thenEffect : rule.effect;
    p.rules.push({
      rule,
      test: hasWhen ? compileCondition(rule.when) : null,
      onTrue: draft(thenEffect, 0),
      onFalse: hasWhen && rule.elseEffect !== undefined ? draft(rule.elseEffect, 1) : null,
    });
  }

  #defaultDraft(policyKey: string, d: PolicyDefault, policyIndex: number): Draft | null {
    // A kill_switch or throttle default without its descriptor is ignored.
    if (d.effect === "kill_switch" && d.killSwitch === undefined) return null;
    if (d.effect === "throttle" && d.throttle === undefined) return null;
    return this.#draft(d.effect, effectRate(d), -1, true, policyIndex, -1, {
      branch: 0,
      policyKey,
      ruleId: "__default__",
      decide: decisionFactory(d.effect, "default", policyKey, undefined, d, d.customEffect),
    });
  }

  #draft(
    type: EffectType,
    rate: number,
    priority: number,
    isDefault: boolean,
    policyIndex: number,
    ruleIndex: number,
    rest: Pick<Draft, "branch" | "policyKey" | "ruleId" | "decide">,
  ): Draft {
    const d: Draft = { type, rate, priority, isDefault, policyIndex, ruleIndex, rank: 0, ...rest };
    this.#drafts.push(d);
    return d;
  }

  build(): TargetEntry {
    [...this.#drafts].sort(compareDrafts).forEach((d, rank) => d.rank = rank);
    const candidate = (d: Draft): Candidate =>
      Object.freeze({
        rank: d.rank,
        type: d.type,
        priority: d.priority,
        policyKey: d.policyKey,
        ruleId: d.ruleId,
        reason: d.isDefault ? "default" : "rule",
        decide: d.decide,
      });
    return Object.freeze({
      policies: Object.freeze(this.#policies.map((p) => {
        const allRules = p.rules.map(({ rule, test, onTrue, onFalse }) =>
          Object.freeze({
            id: rule.id,
            active: rule.status === "active",
            priority: rule.priority,
            test,
            onTrue: candidate(onTrue),
            onFalse: onFalse === null ? null : candidate(onFalse),
          })
        );
        return Object.freeze({
          policyKey: p.policyKey,
          activeRules: Object.freeze(allRules.filter((r) => r.active)),
          allRules: Object.freeze(allRules),
          fallback: p.fallback === null ? null : candidate(p.fallback),
        });
      })),
    });
  }
}

const STRENGTH = new Map(EFFECT_TYPES.map((type, i) => [type, i]));

/**
 * Selection order (CONTRACT.md §3): strongest effect type; among throttles
 * the lowest rate then the higher priority; among others the higher
 * priority; then rules before defaults; then bundle order.
 */
function compareDrafts(a: Draft, b: Draft): number {
  return STRENGTH.get(a.type)! - STRENGTH.get(b.type)! ||
    (a.type === "throttle" ? a.rate - b.rate : 0) ||
    b.priority - a.priority ||
    Number(a.isDefault) - Number(b.isDefault) ||
    a.policyIndex - b.policyIndex ||
    a.ruleIndex - b.ruleIndex ||
    a.branch - b.branch;
}

function effectRate(effect: { throttle?: { limit: number; windowSeconds: number } }): number {
  return effect.throttle ? effect.throttle.limit / effect.throttle.windowSeconds : 0;
}

/**
 * Builds the function that makes a fresh decision object for one candidate,
 * with exactly the fields SPEC.md's Decision table lists for its type.
 */
function decisionFactory(
  type: EffectType,
  reason: "rule" | "default",
  policyKey: string,
  ruleId: string | undefined,
  descriptor: Pick<Effect, "killSwitch" | "throttle">,
  customValue: string | undefined,
): (parseCustomEffect: boolean) => Decision {
  const base = (): Decision =>
    ruleId === undefined
      ? { decision: type, reason, policyKey }
      : { decision: type, reason, policyKey, ruleId };
  switch (type) {
    case "throttle": {
      const { limit, windowSeconds, key } = descriptor.throttle!;
      return () => {
        const d = base();
        d.throttle = { limit, windowSeconds, key };
        return d;
      };
    }
    case "kill_switch": {
      const { service, reason: why } = descriptor.killSwitch!;
      return () => {
        const d = base();
        d.killSwitch = why === undefined ? { service } : { service, reason: why };
        return d;
      };
    }
    case "custom": {
      const value = customValue!;
      const parses = parsesAsJson(value);
      return (parseCustomEffect) => {
        const d = base();
        d.value = value;
        if (parseCustomEffect && parses) d.parsedValue = JSON.parse(value);
        return d;
      };
    }
    default:
      return base;
  }
}

function parsesAsJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
