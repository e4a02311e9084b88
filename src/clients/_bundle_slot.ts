// The bundle in force in a client, replaced atomically on reload, and the
// rule both clients share for older bundles (docs/operations.md "No going back").
import { createEvaluator, type Evaluator } from "../engine/evaluate.ts";
import { PolicyError } from "../_internal/policy_error.ts";
import type { BundleStatus, LoadedBundle } from "../verify/load_bundle.ts";
import { type DecisionHookEnv, withDecisionLog } from "./_decision_hook.ts";
import type { ClientOptions, RollbackRefusal } from "./types.ts";

interface InForce {
  readonly evaluate: Evaluator;
  readonly status: BundleStatus;
  readonly loaded: LoadedBundle;
}

/**
 * True when `candidate` is older than `inForce`: both have a `bundleVersion`
 * and the candidate's is lower. A bundle without one is never older.
 */
export function isOlder(candidate: BundleStatus, inForce: BundleStatus): boolean {
  return candidate.bundleVersion !== null && inForce.bundleVersion !== null &&
    candidate.bundleVersion < inForce.bundleVersion;
}

/** The `BUNDLE_VERSION_ROLLBACK` error for `candidate` (described by `what`). */
export function rollbackError(
  candidate: BundleStatus,
  inForce: BundleStatus,
  what: string,
): PolicyError {
  return new PolicyError(
    "BUNDLE_VERSION_ROLLBACK",
    `${what} has bundleVersion ${candidate.bundleVersion}, lower than ${inForce.bundleVersion} in force; it is refused (a stale cache or edge, or an old file published again). To roll back on purpose, publish it with a higher bundleVersion, or set allowRollback: true`,
  );
}

/**
 * Holds the evaluator and status of the bundle in force as one object, so a
 * replacement is a single assignment: an `evaluate` sees the old bundle or
 * the new one, never a mix. It also refuses older bundles (unless
 * `allowRollback`) and remembers the last one refused.
 */
export class BundleSlot {
  #current: InForce;
  #refused: RollbackRefusal | null = null;
  readonly #options: ClientOptions;
  readonly #env: DecisionHookEnv;

  constructor(loaded: LoadedBundle, options: ClientOptions, env: DecisionHookEnv) {
    this.#options = options;
    this.#env = env;
    this.#current = this.#prepare(loaded);
  }

  /** The bundle in force. */
  get current(): InForce {
    return this.#current;
  }

  /** The last older bundle refused since the bundle in force came into force. */
  get rollbackRefused(): RollbackRefusal | null {
    return this.#refused;
  }

  /**
   * The `BUNDLE_VERSION_ROLLBACK` error for `candidate` (described by `what`
   * in the message) when it is older than the bundle in force and rollbacks
   * are not allowed, after recording the refusal; else null.
   */
  refuseRollback(candidate: BundleStatus, what: string): PolicyError | null {
    const inForce = this.#current.status;
    if (this.#options.allowRollback === true || !isOlder(candidate, inForce)) return null;
    this.#refused = {
      bundleVersion: candidate.bundleVersion!,
      checksum: candidate.checksum,
      at: new Date(this.#env.now()).toISOString(),
    };
    return rollbackError(candidate, inForce, what);
  }

  /** Puts a newly loaded bundle in force; returns the one it replaced. */
  replace(loaded: LoadedBundle): LoadedBundle {
    const previous = this.#current.loaded;
    this.#current = this.#prepare(loaded);
    this.#refused = null;
    return previous;
  }

  #prepare(loaded: LoadedBundle): InForce {
    const evaluate = createEvaluator(loaded.compiled, {
      ...(this.#options.parseCustomEffect !== undefined &&
        { parseCustomEffect: this.#options.parseCustomEffect }),
      ...(this.#options.contextPolicy !== undefined &&
        { contextPolicy: this.#options.contextPolicy }),
    });
    return Object.freeze({
      evaluate: withDecisionLog(evaluate, loaded.status, this.#options, this.#env),
      status: loaded.status,
      loaded,
    });
  }
}
