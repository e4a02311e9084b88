// This module is browser compatible.
// The decision log of both clients (docs/operations.md "Decision logs"): an
// evaluator that also hands each sampled decision to `onDecision`, with the
// masked context keys replaced. Without `onDecision` the clients use the
// engine's evaluator as it is, so `evaluate` pays nothing for the feature.
import type { Evaluator } from "../engine/evaluate.ts";
import type { BundleStatus } from "../verify/load_bundle.ts";
import { callSafely } from "../_internal/call_safely.ts";
import type { ClientOptions, DecisionRecord } from "./types.ts";

/** What replaces a masked context value. */
export const MASKED = "[masked]";

/** Time and chance as the client sees them. */
export interface DecisionHookEnv {
  now(): number;
  random(): number;
}

/** A tree of the masked paths: a leaf masks the value, a branch descends into it. */
type MaskTree = Map<string, MaskTree | true>;

/**
 * `evaluate` as it is when `options.onDecision` is unset; otherwise an
 * evaluator that returns the same decisions and passes a `DecisionRecord`
 * of each sampled one to `onDecision` (what the hook throws is ignored).
 */
export function withDecisionLog(
  evaluate: Evaluator,
  bundle: BundleStatus,
  options: ClientOptions,
  env: DecisionHookEnv,
): Evaluator {
  const onDecision = options.onDecision;
  if (onDecision === undefined) return evaluate;
  const sampleRate = options.decisionLog?.sampleRate ?? 1;
  const telemetry = options.telemetry;
  const mask = maskTree(options.decisionLog?.maskContextKeys ?? []);
  const about = Object.freeze({ checksum: bundle.checksum, bundleVersion: bundle.bundleVersion });
  // toISOString costs about ten times Date.now: format once per millisecond.
  let lastMs = NaN;
  let lastIso = "";
  return (request) => {
    const decision = evaluate(request);
    if (sampleRate < 1 && !(env.random() < sampleRate)) {
      telemetry?.recordDecisionLogDropped("sampling", 1);
      return decision;
    }
    const ms = env.now();
    if (ms !== lastMs) {
      lastMs = ms;
      lastIso = new Date(ms).toISOString();
    }
    const record: DecisionRecord = {
      timestamp: lastIso,
      request: mask === null || request.context === undefined
        ? request
        : { target: request.target, context: masked(request.context, mask) },
      decision,
      bundle: about,
      sampleRate,
    };
    callSafely(onDecision, record);
    return decision;
  };
}

function maskTree(paths: readonly string[]): MaskTree | null {
  if (paths.length === 0) return null;
  const root: MaskTree = new Map();
  for (const path of paths) {
    const keys = path.replace(/^ctx\./, "").split(".");
    let node = root;
    for (let index = 0; index < keys.length; index++) {
      const key = keys[index]!;
      const child = node.get(key);
      if (child === true) break; // a shorter path masks this one already
      if (index === keys.length - 1) {
        node.set(key, true);
        break;
      }
      const next: MaskTree = child ?? new Map();
      node.set(key, next);
      node = next;
    }
  }
  return root;
}

/**
 * A copy of `value` with the masked keys replaced, copying only the objects
 * on the way to a key that is present (own properties only, so nothing is
 * read from a prototype); `value` itself is never changed. Linear in the
 * size of the objects copied.
 */
function masked(value: Record<string, unknown>, tree: MaskTree): Record<string, unknown> {
  let copy: Record<string, unknown> | null = null;
  for (const [key, node] of tree) {
    if (!Object.hasOwn(value, key)) continue;
    let replacement: unknown;
    if (node === true) {
      replacement = MASKED;
    } else {
      const child = value[key];
      if (typeof child !== "object" || child === null) continue;
      replacement = masked(child as Record<string, unknown>, node);
      if (replacement === child) continue;
    }
    copy ??= Array.isArray(value) ? [...value] as unknown as Record<string, unknown> : { ...value };
    if (key === "__proto__") {
      // Assignment would set the prototype: define it, so it stays an own key.
      Object.defineProperty(copy, key, {
        value: replacement,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    } else {
      copy[key] = replacement;
    }
  }
  return copy ?? value;
}
