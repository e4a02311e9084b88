// This module is browser compatible.
import type {
  Decision,
  EffectType,
  EvaluationRequest,
  RuntimeBundleV1,
  Target,
} from "../engine/types.ts";
import { compileBundle } from "../engine/compile_bundle.ts";
import { createEvaluator } from "../engine/evaluate.ts";
import { compareTargets } from "./diff_bundles.ts";
import { targetKey } from "./rankings.ts";

/** A request whose decision differs between the two bundles. */
export interface DecisionChange {
  /** The request's index in the list given. */
  index: number;
  /** The request's target. */
  target: Target;
  /** The request's context (`{}` when it had none). */
  context: Record<string, unknown>;
  /** The old bundle's decision. */
  old: Decision;
  /** The new bundle's decision. */
  new: Decision;
  /**
   * True when what is enforced differs (`decision`, `throttle`, `killSwitch`
   * or `value`); false when only which rule or policy decides, or the reason,
   * differs.
   */
  effectChanged: boolean;
}

/** How often decisions went from one effect type to another, at one target. */
export interface Transition {
  /** The old decision's effect type. */
  from: EffectType;
  /** The new decision's effect type. */
  to: EffectType;
  /** Number of requests. */
  count: number;
}

/** The requests of one target. */
export interface TargetCount {
  /** The target. */
  target: Target;
  /** Requests for it. */
  requests: number;
  /** Requests whose enforced decision changed. */
  changed: number;
  /** Requests whose decision changed only in who decided (rule, policy, reason). */
  reattributed: number;
  /** The enforced changes, by old and new effect type (most frequent first). */
  transitions: Transition[];
}

/** The result of {@link compareDecisions}. */
export interface DecisionComparison {
  /** Requests evaluated. */
  requests: number;
  /** Requests whose enforced decision changed. */
  changed: number;
  /** Requests whose decision changed only in who decided. */
  reattributed: number;
  /** Every target requested, sorted by service, resource, action. */
  byTarget: TargetCount[];
  /** Every request whose decision differs in any field, in request order. */
  changes: DecisionChange[];
}

/**
 * Evaluates every request against both bundles with the engine and reports
 * each request whose decision differs, and counts per target. A decision
 * "changed" when what the application enforces differs; it was
 * "reattributed" when only the deciding rule, policy or reason differs.
 *
 * @throws {PolicyError} `BUNDLE_INVALID` when a bundle is invalid,
 * `INVALID_REQUEST` for a malformed request.
 *
 * @example
 * ```ts
 * import { compareDecisions } from "./compare_decisions.ts";
 * import type { RuntimeBundleV1 } from "../engine/types.ts";
 * import assert from "node:assert/strict";
 *
 * const target = { service: "s", resource: "r", action: "a" };
 * const bundle = (type: "allow" | "deny"): RuntimeBundleV1 => ({
 *   schemaVersion: 1,
 *   env: "prod",
 *   policies: [{ policyKey: "p", activeVersion: 1, rules: [{
 *     id: "pro", status: "active", priority: 1, target, effect: { type },
 *     when: { op: "eq", path: "plan", value: "pro" },
 *   }] }],
 * });
 * const result = compareDecisions(bundle("allow"), bundle("deny"), [
 *   { target, context: { plan: "pro" } },
 *   { target, context: { plan: "free" } },
 * ]);
 * assert.equal(result.changed, 1);
 * assert.equal(result.changes[0]!.index, 0);
 * assert.deepEqual(result.byTarget[0]!.transitions, [{ from: "allow", to: "deny", count: 1 }]);
 * ```
 */
export function compareDecisions(
  oldBundle: RuntimeBundleV1,
  newBundle: RuntimeBundleV1,
  requests: Iterable<EvaluationRequest>,
): DecisionComparison {
  const before = createEvaluator(compileBundle(oldBundle));
  const after = createEvaluator(compileBundle(newBundle));
  const counts = new Map<string, TargetCount & { byType: Map<string, Transition> }>();
  const changes: DecisionChange[] = [];
  let index = 0;
  let total = 0;
  let changed = 0;
  let reattributed = 0;
  for (const request of requests) {
    const i = index++;
    const a = before(request);
    const b = after(request);
    const { service, resource, action } = request.target;
    const key = targetKey(request.target);
    let count = counts.get(key);
    if (count === undefined) {
      count = {
        target: { service, resource, action },
        requests: 0,
        changed: 0,
        reattributed: 0,
        transitions: [],
        byType: new Map(),
      };
      counts.set(key, count);
    }
    count.requests++;
    total++;
    if (JSON.stringify(a) === JSON.stringify(b)) continue;
    const effectChanged = JSON.stringify(enforced(a)) !== JSON.stringify(enforced(b));
    if (effectChanged) {
      changed++;
      count.changed++;
      const typeKey = `${a.decision} ${b.decision}`;
      const transition = count.byType.get(typeKey);
      if (transition === undefined) {
        count.byType.set(typeKey, { from: a.decision, to: b.decision, count: 1 });
      } else {
        transition.count++;
      }
    } else {
      reattributed++;
      count.reattributed++;
    }
    changes.push({
      index: i,
      target: { service, resource, action },
      context: request.context ?? {},
      old: a,
      new: b,
      effectChanged,
    });
  }
  const byTarget = [...counts.values()]
    .map(({ byType, ...count }) => ({
      ...count,
      transitions: [...byType.values()].sort((x, y) => y.count - x.count),
    }))
    .sort((x, y) => compareTargets(x.target, y.target));
  return { requests: total, changed, reattributed, byTarget, changes };
}

/** What the application enforces: the effect type and its descriptor, in a fixed key order. */
function enforced(d: Decision): unknown[] {
  return [d.decision, d.throttle ?? null, d.killSwitch ?? null, d.value ?? null];
}
