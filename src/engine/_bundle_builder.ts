// This module is browser compatible.
/**
 * Compiling a bundle in the same walk that validates it (`validate_bundle.ts`
 * calls {@link BundleBuilder.policy} and {@link BundleBuilder.rule} for each
 * policy and rule it has found valid so far), then, once the whole document
 * is known to be valid, each target's program (`_target_program.ts`), in
 * {@link BundleBuilder.finish}.
 *
 * The walk keeps flat arrays (the {@link RuleTable}): a rule's id, status,
 * priority, target number, compiled `when` (identical conditions share one
 * test, `compile_condition.ts`), and its `when` and effects, identical ones
 * shared. Programs are then emitted target by target from those arrays,
 * with reused scratch arrays: no object per candidate, rule or step. The
 * document is not kept.
 *
 * @module
 */
import type { Effect, EffectType, PolicyDefault, Target } from "./types.ts";
import { sharedConditionCompiler, type Test } from "./compile_condition.ts";
import type { PathTable } from "./_path_table.ts";
import { effectRate, RANK_KEY_SIZE, setRankKeys, sortByRank, strengthOf } from "./rank_target.ts";
import { pushDecisionRecord } from "./_target_program.ts";
import { MEMO_BITS, NO_CANDIDATE, RECORD_SIZE } from "./_program_layout.ts";
import { ProgramIndex } from "./_program_index.ts";
import { ProgramLinker } from "./dispatch/program_dispatch.ts";
import type { RuleTable } from "./_rule_table.ts";

/** What compiling a bundle makes. */
export interface Built {
  readonly code: unknown[];
  readonly programs: ProgramIndex;
  readonly paths: PathTable;
  readonly rules: RuleTable;
  readonly targetCount: number;
}

/** Candidate kinds at a target. */
const ON_TRUE = 0;
const ON_FALSE = 1;
const DEFAULT = 2;

/** Collects a bundle's rules during validation, then emits its programs. */
export class BundleBuilder {
  readonly #conditions = sharedConditionCompiler();
  // Policies.
  readonly #policyKeys: string[] = [];
  readonly #activeVersions: number[] = [];
  readonly #defaults: (PolicyDefault | undefined)[] = [];
  readonly #ruleStarts: number[] = [];
  // Rules.
  readonly #ids: string[] = [];
  // Numbers per rule in typed arrays, made room for a policy at a time: off the
  // collected heap, and never copied more than a few times.
  #priorities = new Float64Array(64);
  #active = new Uint8Array(64);
  readonly #tests: (Test | null)[] = [];
  readonly #whens: unknown[] = [];
  readonly #effects: Effect[] = [];
  readonly #thenEffects = new Map<number, Effect>();
  readonly #elseEffects = new Map<number, Effect>();
  #ruleTargets = new Int32Array(64);
  #rulePolicies = new Int32Array(64);
  /** The next rule naming the same target (-1: the last). */
  #nextOfTarget = new Int32Array(64);
  // Targets.
  /** Service → resource → target number (a resource with one action) or action → target number. */
  readonly #index = new Map<string, Map<string, number | Map<string, number>>>();
  readonly #targets: string[] = [];
  readonly #firstRule: number[] = [];
  readonly #lastRule: number[] = [];
  #lastTarget: Target | null = null;
  #lastTargetNumber = -1;
  // Sharing.
  readonly #whensByTest = new Map<Test, unknown>();
  readonly #plainEffects = new Map<string, Effect>();
  readonly #throttles = new Map<number, Map<number, Map<string, Effect>>>();

  /** A policy found valid so far (its rules follow). */
  policy(policy: Record<string, unknown>): void {
    this.#policyKeys.push(policy.policyKey as string);
    this.#activeVersions.push(policy.activeVersion as number);
    this.#defaults.push(policy.defaults as PolicyDefault | undefined);
    this.#ruleStarts.push(this.#ids.length);
    this.#reserve(this.#ids.length + (policy.rules as unknown[]).length);
  }

  /** Room for `rules` rules in the typed arrays. */
  #reserve(rules: number): void {
    if (rules <= this.#priorities.length) return;
    const size = Math.max(rules, this.#priorities.length * 2);
    const grown = <T extends Float64Array | Int32Array | Uint8Array>(from: T, to: T): T => {
      to.set(from);
      return to;
    };
    this.#priorities = grown(this.#priorities, new Float64Array(size));
    this.#active = grown(this.#active, new Uint8Array(size));
    this.#ruleTargets = grown(this.#ruleTargets, new Int32Array(size));
    this.#rulePolicies = grown(this.#rulePolicies, new Int32Array(size));
    this.#nextOfTarget = grown(this.#nextOfTarget, new Int32Array(size));
  }

  /**
   * A valid rule of the last policy; `whenCanonical` when its `when` is
   * written the one way its compiled test identifies it (then an identical
   * one kept before is kept instead).
   */
  rule(rule: Record<string, unknown>, whenCanonical: boolean): void {
    const g = this.#ids.length;
    const t = this.#targetNumber(rule.target as Target);
    this.#ruleTargets[g] = t;
    this.#rulePolicies[g] = this.#policyKeys.length - 1;
    this.#nextOfTarget[g] = -1;
    const last = this.#lastRule[t]!;
    if (last < 0) this.#firstRule[t] = g;
    else this.#nextOfTarget[last] = g;
    this.#lastRule[t] = g;
    this.#ids.push(rule.id as string);
    this.#priorities[g] = rule.priority as number;
    this.#active[g] = rule.status === "active" ? 1 : 0;
    const when = rule.when;
    if (when === undefined) {
      this.#tests.push(null);
      this.#whens.push(undefined);
    } else {
      const test = this.#conditions.compile(when);
      this.#tests.push(test);
      this.#whens.push(whenCanonical ? this.#sharedWhen(test, when) : when);
    }
    this.#effects.push(this.#sharedEffect(rule.effect as Effect));
    if (rule.thenEffect !== undefined) {
      this.#thenEffects.set(g, this.#sharedEffect(rule.thenEffect as Effect));
    }
    if (rule.elseEffect !== undefined) {
      this.#elseEffects.set(g, this.#sharedEffect(rule.elseEffect as Effect));
    }
  }

  #targetNumber(target: Target): number {
    const last = this.#lastTarget;
    // Rules of one policy usually share a target.
    if (
      last !== null && target.service === last.service && target.resource === last.resource &&
      target.action === last.action
    ) {
      return this.#lastTargetNumber;
    }
    this.#lastTarget = target;
    let resources = this.#index.get(target.service);
    if (resources === undefined) this.#index.set(target.service, resources = new Map());
    const entry = resources.get(target.resource);
    let t: number;
    if (entry === undefined) {
      resources.set(target.resource, t = this.#newTarget(target));
    } else if (typeof entry === "number") {
      if (this.#targets[entry * 3 + 2] === target.action) {
        t = entry;
      } else {
        t = this.#newTarget(target);
        resources.set(
          target.resource,
          new Map([[this.#targets[entry * 3 + 2]!, entry], [target.action, t]]),
        );
      }
    } else {
      const found = entry.get(target.action);
      if (found === undefined) entry.set(target.action, t = this.#newTarget(target));
      else t = found;
    }
    return this.#lastTargetNumber = t;
  }

  #newTarget(target: Target): number {
    const t = this.#firstRule.length;
    this.#targets.push(target.service, target.resource, target.action);
    this.#firstRule.push(-1);
    this.#lastRule.push(-1);
    return t;
  }

  /** `when`, or the condition kept before with the same test (the same condition). */
  #sharedWhen(test: Test, when: unknown): unknown {
    const kept = this.#whensByTest.get(test);
    if (kept !== undefined) return kept;
    this.#whensByTest.set(test, when);
    return when;
  }

  /**
   * `effect`, or the one object kept for every effect that decides the same
   * (an allow, a deny, a throttle of the same limit, window and key; fields
   * the runtime does not know are not kept).
   */
  #sharedEffect(effect: Effect): Effect {
    if (effect.killSwitch !== undefined || effect.value !== undefined) return effect;
    const type = effect.type;
    const throttle = effect.throttle;
    if (throttle === undefined) {
      // An allow or a deny (a valid throttle has its descriptor): one object per type.
      let shared = this.#plainEffects.get(type);
      if (shared === undefined) this.#plainEffects.set(type, shared = Object.freeze({ type }));
      return shared;
    }
    if (type !== "throttle") return effect;
    const { limit, windowSeconds, key } = throttle;
    let byWindow = this.#throttles.get(limit);
    if (byWindow === undefined) this.#throttles.set(limit, byWindow = new Map());
    let byKey = byWindow.get(windowSeconds);
    if (byKey === undefined) byWindow.set(windowSeconds, byKey = new Map());
    let shared = byKey.get(key);
    if (shared === undefined) {
      const descriptor = Object.freeze({ limit, windowSeconds, key });
      byKey.set(key, shared = Object.freeze({ type, throttle: descriptor }));
    }
    return shared;
  }

  /** Emits every target's program (call once, after a valid walk). */
  finish(): Built {
    const ruleCount = this.#ids.length;
    const ruleStarts = new Int32Array(this.#ruleStarts.length + 1);
    ruleStarts.set(this.#ruleStarts);
    ruleStarts[this.#ruleStarts.length] = ruleCount;
    const rules: RuleTable = {
      policyKeys: this.#policyKeys,
      activeVersions: this.#activeVersions,
      defaults: this.#defaults,
      ruleStarts,
      ids: this.#ids,
      priorities: this.#priorities.slice(0, ruleCount),
      active: this.#active.slice(0, ruleCount),
      tests: this.#tests,
      whens: this.#whens,
      effects: this.#effects,
      thenEffects: this.#thenEffects,
      elseEffects: this.#elseEffects,
      ruleTargets: this.#ruleTargets.slice(0, ruleCount),
      targets: this.#targets,
    };
    const emitter = new Emitter(rules, this.#rulePolicies, this.#nextOfTarget);
    const targetCount = this.#firstRule.length;
    const starts = new Int32Array(targetCount);
    // Each program gets its index when worth it.
    const linker = new ProgramLinker(this.#conditions.paths);
    for (let t = 0; t < targetCount; t++) {
      // The action first: a resource with one action finds its program by it.
      emitter.code.push(this.#targets[t * 3 + 2]);
      starts[t] = emitter.code.length;
      emitter.emit(this.#firstRule[t]!);
      linker.link(emitter.code, starts[t]!);
    }
    // The index, reusing the walk's maps: target numbers become where the programs start.
    for (const resources of this.#index.values()) {
      for (const [resource, entry] of resources) {
        if (typeof entry === "number") resources.set(resource, starts[entry]!);
        else for (const [action, t] of entry) entry.set(action, starts[t]!);
      }
    }
    return {
      // Exactly as long as it is: the array grew by doubling.
      code: emitter.code.slice(),
      programs: new ProgramIndex(this.#index),
      paths: this.#conditions.paths,
      rules,
      targetCount,
    };
  }
}

/**
 * Emits the program of each target (see `_target_program.ts`) from the rule
 * table, with scratch arrays reused from one target to the next.
 */
class Emitter {
  readonly code: unknown[] = [];
  readonly #rules: RuleTable;
  readonly #rulePolicies: Int32Array;
  readonly #nextOfTarget: Int32Array;
  // Scratch, per target: its rules (`local`), its policies' groups of rules
  // (`groupStart`, one more entry at the end), each group's active rules, its
  // candidates (kind, rule or group) and their keys, the steps, the uses of
  // each rule's test and its memo bit.
  #local = new Int32Array(16);
  #groupStart = new Int32Array(17);
  #groupActive = new Int32Array(16);
  #kind = new Int32Array(48);
  #ref = new Int32Array(48);
  #keys = new Float64Array(48 * RANK_KEY_SIZE);
  #order = new Int32Array(48);
  #uses = new Int32Array(16);
  #memo = new Int32Array(16);
  #rulesAt = 0;
  #groups = 0;
  #candidates = 0;

  constructor(rules: RuleTable, rulePolicies: Int32Array, nextOfTarget: Int32Array) {
    this.#rules = rules;
    this.#rulePolicies = rulePolicies;
    this.#nextOfTarget = nextOfTarget;
  }

  /** Appends the program of the target whose first rule is `first`. */
  emit(first: number): void {
    const next = this.#nextOfTarget;
    const policies = this.#rulePolicies;
    const active = this.#rules.active;
    let count = 0;
    for (let g = first; g >= 0; g = next[g]!) count++;
    if (this.#local.length < count) this.#grow(count);
    const local = this.#local;
    const groupStart = this.#groupStart;
    const groupActive = this.#groupActive;
    // The target's rules in bundle order, grouped by policy.
    let n = 0;
    let groups = 0;
    let policy = -1;
    for (let g = first; g >= 0; g = next[g]!) {
      const p = policies[g]!;
      if (p !== policy) {
        policy = p;
        groupStart[groups] = n;
        groupActive[groups++] = 0;
      }
      local[n++] = g;
      if (active[g] === 1) groupActive[groups - 1]!++;
    }
    groupStart[groups] = n;
    this.#rulesAt = n;
    this.#groups = groups;
    this.#rank();
    this.#program();
  }

  /** Room for a target of `count` rules (and so `2 × count + count` candidates at most). */
  #grow(count: number): void {
    const size = count * 2;
    this.#local = new Int32Array(size);
    this.#groupStart = new Int32Array(size + 1);
    this.#groupActive = new Int32Array(size);
    this.#uses = new Int32Array(size);
    this.#memo = new Int32Array(size);
    this.#kind = new Int32Array(size * 3);
    this.#ref = new Int32Array(size * 3);
    this.#order = new Int32Array(size * 3);
    this.#keys = new Float64Array(size * 3 * RANK_KEY_SIZE);
  }

  /** The candidates of the target that can fire, in selection order, in `#order`. */
  #rank(): void {
    const rules = this.#rules;
    const local = this.#local;
    const groupStart = this.#groupStart;
    const keys = this.#keys;
    this.#candidates = 0;
    for (let group = 0; group < this.#groups; group++) {
      const p = this.#rulePolicies[local[groupStart[group]!]!]!;
      const start = rules.ruleStarts[p]!;
      // A default fires when no rule of its policy does: never when one always fires.
      let defaultCanFire = true;
      for (let l = groupStart[group]!; l < groupStart[group + 1]!; l++) {
        const g = local[l]!;
        if (rules.active[g] !== 1) continue; // never fires: no candidate
        const priority = rules.priorities[g]!;
        if (rules.tests[g] === null) {
          const effect = rules.effects[g]!;
          this.#candidate(keys, ON_TRUE, l, effect.type, effect, priority, p, g - start);
          defaultCanFire = false;
          continue;
        }
        const then = rules.thenEffects.get(g) ?? rules.effects[g]!;
        this.#candidate(keys, ON_TRUE, l, then.type, then, priority, p, g - start);
        const otherwise = rules.elseEffects.get(g);
        if (otherwise !== undefined) {
          this.#candidate(keys, ON_FALSE, l, otherwise.type, otherwise, priority, p, g - start);
          defaultCanFire = false;
        }
      }
      const d = rules.defaults[p];
      if (d === undefined || !defaultCanFire) continue;
      // A kill_switch or throttle default without its descriptor is ignored.
      if (d.effect === "kill_switch" && d.killSwitch === undefined) continue;
      if (d.effect === "throttle" && d.throttle === undefined) continue;
      this.#candidate(keys, DEFAULT, group, d.effect, d, -1, p, -1);
    }
    const n = this.#candidates;
    const order = this.#order;
    for (let i = 0; i < n; i++) order[i] = i;
    sortByRank(keys, order, n);
  }

  /**
   * Adds a candidate: its kind, its rule (local number) or group, and its
   * rank keys, from its effect type and the effect or default holding the
   * throttle.
   */
  #candidate(
    keys: Float64Array,
    kind: number,
    ref: number,
    type: EffectType,
    source: { throttle?: { limit: number; windowSeconds: number } | undefined },
    priority: number,
    policy: number,
    rule: number,
  ): void {
    const i = this.#candidates++;
    this.#kind[i] = kind;
    this.#ref[i] = ref;
    const rate = type === "throttle" ? effectRate(source) : 0;
    const isDefault = kind === DEFAULT ? 1 : 0;
    const branch = kind === ON_FALSE ? 1 : 0;
    setRankKeys(keys, i, strengthOf(type), rate, priority, isDefault, policy, rule, branch);
  }

  /** True when candidate `c` always fires. */
  #unconditional(c: number): boolean {
    const kind = this.#kind[c]!;
    if (kind === DEFAULT) return this.#groupActive[this.#ref[c]!] === 0;
    return kind === ON_TRUE && this.#rules.tests[this.#local[this.#ref[c]!]!] === null;
  }

  /** Appends the program: the steps in rank order up to the first that always fires, then their records. */
  #program(): void {
    const code = this.code;
    const rules = this.#rules;
    const local = this.#local;
    const groupStart = this.#groupStart;
    const kinds = this.#kind;
    const refs = this.#ref;
    const order = this.#order;
    const uses = this.#uses;
    const memo = this.#memo;
    const n = this.#rulesAt;
    uses.fill(0, 0, n);
    // The steps are order[0..steps): up to the first that always fires.
    let steps = 0;
    let instructions = 0;
    let shared = false;
    while (steps < this.#candidates) {
      const c = order[steps++]!;
      if (this.#unconditional(c)) {
        instructions++;
        break;
      }
      if (kinds[c] === DEFAULT) {
        const group = refs[c]!;
        for (let l = groupStart[group]!; l < groupStart[group + 1]!; l++) {
          if (rules.active[local[l]!] !== 1) continue;
          if (++uses[l]! > 1) shared = true;
          instructions++;
        }
      } else {
        if (++uses[refs[c]!]! > 1) shared = true;
        instructions++;
      }
    }
    // Memo bits for the tests more than one step needs, while bits last.
    let bits = 0;
    for (let l = 0; l < n; l++) {
      memo[l] = shared && uses[l]! > 1 && rules.tests[local[l]!] !== null && bits < MEMO_BITS
        ? 1 << bits++
        : 0;
    }
    const start = code.length;
    if (instructions === 0) {
      code.push(null, 0, NO_CANDIDATE, NO_CANDIDATE);
      return;
    }
    const recordsAt = start + instructions * 4;
    for (let s = 0; s < steps; s++) {
      const c = order[s]!;
      const returns = -(recordsAt + s * RECORD_SIZE) - 2;
      if (this.#unconditional(c)) {
        code.push(null, 0, returns, returns); // always the last step
        break;
      }
      const kind = kinds[c]!;
      if (kind !== DEFAULT) {
        const l = refs[c]!;
        const next = code.length + 4 === recordsAt ? NO_CANDIDATE : code.length + 4;
        const test = rules.tests[local[l]!];
        if (kind === ON_TRUE) code.push(test, memo[l], returns, next);
        else code.push(test, memo[l], next, returns);
        continue;
      }
      // Every test of the policy's active rules false, in turn: any true one skips to the next step.
      const group = refs[c]!;
      const end = groupStart[group + 1]!;
      const stepEnd = code.length + this.#groupActive[group]! * 4;
      const next = stepEnd === recordsAt ? NO_CANDIDATE : stepEnd;
      for (let l = groupStart[group]!; l < end; l++) {
        if (rules.active[local[l]!] !== 1) continue;
        const last = code.length + 4 === stepEnd;
        code.push(rules.tests[local[l]!], memo[l], next, last ? returns : code.length + 4);
      }
    }
    for (let s = 0; s < steps; s++) this.#record(order[s]!);
  }

  /** Appends the decision record of candidate `c`. */
  #record(c: number): void {
    const rules = this.#rules;
    const kind = this.#kind[c]!;
    if (kind === DEFAULT) {
      const p = this.#rulePolicies[this.#local[this.#groupStart[this.#ref[c]!]!]!]!;
      const d = rules.defaults[p]!;
      const value = d.effect === "custom" ? d.customEffect! : null;
      pushDecisionRecord(
        this.code,
        d.effect,
        "default",
        rules.policyKeys[p]!,
        "__default__",
        d,
        value,
      );
      return;
    }
    const g = this.#local[this.#ref[c]!]!;
    const effect = kind === ON_FALSE
      ? rules.elseEffects.get(g)!
      : rules.tests[g] === null
      ? rules.effects[g]!
      : (rules.thenEffects.get(g) ?? rules.effects[g]!);
    const value = effect.type === "custom" ? effect.value! : null;
    const p = this.#rulePolicies[g]!;
    pushDecisionRecord(
      this.code,
      effect.type,
      "rule",
      rules.policyKeys[p]!,
      rules.ids[g]!,
      effect,
      value,
    );
  }
}
