// This module is browser compatible.
import type { Effect, EffectType, Policy, PolicyDefault, Rule, RuntimeBundleV1 } from "./types.ts";
import { assertValidBundle } from "./validate_bundle.ts";
import { compileCondition, type Test } from "./_compile_condition.ts";
import { canonicalJson } from "./canonical_payload.ts";
import { EFFECT_TYPES } from "./_guards.ts";

/**
 * Version of the compiled form; changes when its shape does.
 *
 * @example Every compiled bundle records it
 * ```ts
 * import { COMPILER_VERSION, compileBundle } from "./compile_bundle.ts";
 * import assert from "node:assert/strict";
 *
 * const compiled = compileBundle({ schemaVersion: 1, env: "dev", policies: [] });
 * assert.equal(compiled.compilerVersion, COMPILER_VERSION);
 * ```
 */
export const COMPILER_VERSION = 1;

/**
 * Rank of "no candidate"; a small integer so flat programs hold only small integers.
 *
 * @example Every real candidate ranks below it
 * ```ts
 * import { compileBundle, NO_RANK } from "./compile_bundle.ts";
 * import assert from "node:assert/strict";
 *
 * const target = { service: "s", resource: "r", action: "a" };
 * const rule = { id: "r1", status: "active", priority: 1, target, effect: { type: "allow" } };
 * const compiled = compileBundle({
 *   schemaVersion: 1,
 *   env: "dev",
 *   policies: [{ policyKey: "p", activeVersion: 1, rules: [rule] }],
 * });
 * const [policy] = compiled.lookup("s", "r", "a")?.policies ?? [];
 * assert.ok(policy && policy.rules[0]!.onTrue.rank < NO_RANK);
 * ```
 */
export const NO_RANK = 0x3fffffff;

/**
 * One way a decision can be made at a target: a rule's outcome (effect,
 * thenEffect or elseEffect) or a policy default. `rank` orders every
 * candidate of a target by CONTRACT.md §3 selection; the lowest fired wins.
 * Every candidate has the same shape (absent descriptors are null), so the
 * code that reads them stays monomorphic.
 */
export interface Candidate {
  /** Position in the selection order at the target; lower wins. */
  readonly rank: number;
  /** The effect type. */
  readonly type: EffectType;
  /** The rule's priority, or -1 for a default. */
  readonly priority: number;
  /** The policy the candidate comes from. */
  readonly policyKey: string;
  /** The rule id, or `__default__` for a policy default. */
  readonly ruleId: string;
  /** `rule` or `default`. */
  readonly reason: "rule" | "default";
  /** The throttle descriptor, or null. */
  readonly throttle: {
    readonly limit: number;
    readonly windowSeconds: number;
    readonly key: string;
  } | null;
  /** The kill switch descriptor (reason null when absent), or null. */
  readonly killSwitch: { readonly service: string; readonly reason: string | null } | null;
  /** The custom value, or null. */
  readonly value: string | null;
  /** True when `value` parses as JSON. */
  readonly valueIsJson: boolean;
}

/** A compiled rule at its target, as traces see it. */
export interface CompiledRule {
  /** The rule id. */
  readonly id: string;
  /** False for disabled rules. */
  readonly active: boolean;
  /** The rule's priority. */
  readonly priority: number;
  /** The compiled `when`: true when it holds for a context; null when the rule has no `when`. */
  readonly test: ((context: Record<string, unknown>) => boolean) | null;
  /** Applied when there is no `when`, or when it is true. */
  readonly onTrue: Candidate;
  /** Applied when `when` is false; null means the rule is skipped. */
  readonly onFalse: Candidate | null;
}

/** A policy as it applies at one target. */
export interface PolicyAtTarget {
  /** The policy's key. */
  readonly policyKey: string;
  /** Every rule naming the target, active or disabled, in bundle order. */
  readonly rules: readonly CompiledRule[];
  /** The default as a candidate, or null when absent or ignored. */
  readonly fallback: Candidate | null;
}

/**
 * Everything that applies at one exact target. `program` is the flat form
 * the hot path runs: per applicable policy `[activeRuleCount, fallbackRank,
 * fallback]` followed, per active rule, by `[test, rankIfTrue, ifTrue,
 * rankIfFalse, ifFalse]` (ranks are small integers, NO_RANK for none).
 * Keeping it in one array means an evaluation touches few objects.
 */
export interface TargetEntry {
  /** The flat program described above. */
  readonly program: readonly unknown[];
  /** Every policy that applies at the target, in bundle order. */
  readonly policies: readonly PolicyAtTarget[];
}

/** A validated bundle compiled into an immutable exact-target index. */
export interface CompiledBundle {
  /** {@link COMPILER_VERSION} of the compiler that built it. */
  readonly compilerVersion: number;
  /** The source document. */
  readonly bundle: RuntimeBundleV1;
  /** Number of policies. */
  readonly policyCount: number;
  /** Number of rules, active or disabled. */
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
 * closures (identical conditions share one), and every candidate decision
 * ranked in advance.
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
  if (!options.skipValidation) assertValidBundle(document);
  const bundle = document as RuntimeBundleV1;
  // Identical conditions share one compiled test: less memory, and call sites stay monomorphic.
  const tests = new Map<string, Test>();
  const testFor = (when: unknown): Test => {
    const key = canonicalJson(when);
    let test = tests.get(key);
    if (test === undefined) tests.set(key, test = compileCondition(when));
    return test;
  };
  const builders = new Map<string, Map<string, Map<string, Builder>>>();
  let ruleCount = 0;
  bundle.policies.forEach((policy, policyIndex) => {
    ruleCount += policy.rules.length;
    policy.rules.forEach((rule, ruleIndex) => {
      const { service, resource, action } = rule.target;
      let byResource = builders.get(service);
      if (!byResource) builders.set(service, byResource = new Map());
      let byAction = byResource.get(resource);
      if (!byAction) byResource.set(resource, byAction = new Map());
      let builder = byAction.get(action);
      if (!builder) byAction.set(action, builder = new Builder(testFor));
      builder.add(policy, policyIndex, rule, ruleIndex);
    });
  });
  const index = new Map<string, Map<string, Map<string, TargetEntry>>>();
  for (const [service, byResource] of builders) {
    const r = new Map<string, Map<string, TargetEntry>>();
    index.set(service, r);
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
      index.get(service)?.get(resource)?.get(action),
  });
}

/** A candidate before ranks are assigned, with its sort data. */
interface Draft {
  candidate: Omit<Candidate, "rank">;
  rate: number;
  isDefault: boolean;
  policyIndex: number;
  ruleIndex: number;
  branch: number;
  rank: number;
}

interface PolicyDraft {
  policyKey: string;
  rules: { rule: Rule; test: Test | null; onTrue: Draft; onFalse: Draft | null }[];
  fallback: Draft | null;
}

/** Collects the policies and rules of one target, then ranks the candidates. */
class Builder {
  readonly #policies: PolicyDraft[] = [];
  readonly #byPolicy = new Map<number, PolicyDraft>();
  readonly #drafts: Draft[] = [];
  readonly #testFor: (when: unknown) => Test;

  constructor(testFor: (when: unknown) => Test) {
    this.#testFor = testFor;
  }

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
    const draft = (effect: Effect, branch: number) =>
      this.#draft({
        candidate: candidateData(effect, effect.value, {
          priority: rule.priority,
          policyKey: policy.policyKey,
          ruleId: rule.id,
          reason: "rule",
        }),
        rate: effectRate(effect),
        isDefault: false,
        policyIndex,
        ruleIndex,
        branch,
      });
    const hasWhen = rule.when !== undefined;
    p.rules.push({
      rule,
      test: hasWhen ? this.#testFor(rule.when) : null,
      onTrue: draft(hasWhen && rule.thenEffect !== undefined ? rule.thenEffect : rule.effect, 0),
      onFalse: hasWhen && rule.elseEffect !== undefined ? draft(rule.elseEffect, 1) : null,
    });
  }

  #defaultDraft(policyKey: string, d: PolicyDefault, policyIndex: number): Draft | null {
    // A kill_switch or throttle default without its descriptor is ignored.
    if (d.effect === "kill_switch" && d.killSwitch === undefined) return null;
    if (d.effect === "throttle" && d.throttle === undefined) return null;
    return this.#draft({
      candidate: candidateData({ ...d, type: d.effect }, d.customEffect, {
        priority: -1,
        policyKey,
        ruleId: "__default__",
        reason: "default",
      }),
      rate: effectRate(d),
      isDefault: true,
      policyIndex,
      ruleIndex: -1,
      branch: 0,
    });
  }

  #draft(d: Omit<Draft, "rank">): Draft {
    const draft: Draft = { ...d, rank: NO_RANK };
    this.#drafts.push(draft);
    return draft;
  }

  build(): TargetEntry {
    const ranked = [...this.#drafts].sort(compareDrafts);
    const candidates = new Map<Draft, Candidate>();
    ranked.forEach((d, rank) => candidates.set(d, Object.freeze({ rank, ...d.candidate })));
    const program: unknown[] = [];
    const policies = this.#policies.map((p) => {
      const fallback = p.fallback === null ? null : candidates.get(p.fallback)!;
      const rules = p.rules.map(({ rule, test, onTrue, onFalse }) =>
        Object.freeze({
          id: rule.id,
          active: rule.status === "active",
          priority: rule.priority,
          test,
          onTrue: candidates.get(onTrue)!,
          onFalse: onFalse === null ? null : candidates.get(onFalse)!,
        })
      );
      const active = rules.filter((r) => r.active);
      program.push(active.length, fallback?.rank ?? NO_RANK, fallback);
      for (const r of active) {
        program.push(r.test, r.onTrue.rank, r.onTrue, r.onFalse?.rank ?? NO_RANK, r.onFalse);
      }
      return Object.freeze({ policyKey: p.policyKey, rules: Object.freeze(rules), fallback });
    });
    return Object.freeze({ program: Object.freeze(program), policies: Object.freeze(policies) });
  }
}

const STRENGTH = new Map(EFFECT_TYPES.map((type, i) => [type, i]));

/**
 * Selection order (CONTRACT.md §3): strongest effect type; among throttles
 * the lowest rate then the higher priority; among others the higher
 * priority; then rules before defaults; then bundle order.
 */
function compareDrafts(a: Draft, b: Draft): number {
  const ta = a.candidate.type;
  return STRENGTH.get(ta)! - STRENGTH.get(b.candidate.type)! ||
    (ta === "throttle" ? a.rate - b.rate : 0) ||
    b.candidate.priority - a.candidate.priority ||
    Number(a.isDefault) - Number(b.isDefault) ||
    a.policyIndex - b.policyIndex ||
    a.ruleIndex - b.ruleIndex ||
    a.branch - b.branch;
}

function effectRate(effect: { throttle?: { limit: number; windowSeconds: number } }): number {
  return effect.throttle ? effect.throttle.limit / effect.throttle.windowSeconds : 0;
}

/** The candidate fields of an effect, in the one shape every candidate has. */
function candidateData(
  effect: Pick<Effect, "type" | "killSwitch" | "throttle">,
  customValue: string | undefined,
  origin: Pick<Candidate, "priority" | "policyKey" | "ruleId" | "reason">,
): Omit<Candidate, "rank"> {
  const type = effect.type;
  const t = type === "throttle" ? effect.throttle! : null;
  const ks = type === "kill_switch" ? effect.killSwitch! : null;
  const value = type === "custom" ? customValue! : null;
  return {
    type,
    ...origin,
    throttle: t && Object.freeze({ limit: t.limit, windowSeconds: t.windowSeconds, key: t.key }),
    killSwitch: ks && Object.freeze({ service: ks.service, reason: ks.reason ?? null }),
    value,
    valueIsJson: value !== null && parsesAsJson(value),
  };
}

function parsesAsJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
