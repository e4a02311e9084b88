// The bundle in force in a client, replaced atomically on reload, and the
// rules both clients share for older bundles (docs/operations.md "No going
// back") and for a freshness statement that expires while in force
// (docs/operations.md "Signed freshness").
import { createEvaluator, type Evaluator } from "../engine/evaluate.ts";
import { PolicyError } from "../public/policy_error.ts";
import type { BundleStatus, LoadedBundle } from "../verify/load_bundle.ts";
import { DEFAULT_CLOCK_SKEW_MS, expiredError } from "../verify/verify_freshness.ts";
import { watchExpiry } from "../verify/watch_expiry.ts";
import type { Clock } from "../public/clock.ts";
import { type DecisionHookEnv, withDecisionLog } from "./_decision_hook.ts";
import { FreshnessMemory } from "./_freshness_memory.ts";
import { withTelemetry } from "./_client_telemetry.ts";
import type { ClientOptions, RollbackRefusal } from "./types.ts";

export { EXPIRY_RECHECK_MS } from "../verify/watch_expiry.ts";

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
  const candidateVersion = signedVersion(candidate);
  const inForceVersion = signedVersion(inForce);
  return candidateVersion !== null && inForceVersion !== null && candidateVersion < inForceVersion;
}

/**
 * The version the rollback check compares: with a verified freshness
 * statement, the one it signs (the load pipeline made sure the bundle's
 * `bundleVersion` is the same); else the bundle's unsigned `bundleVersion`.
 */
function signedVersion(status: BundleStatus): number | null {
  return status.freshness?.bundleVersion ?? status.bundleVersion;
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
 * `allowRollback`) and remembers the last one refused, and, once a bundle
 * with a freshness statement has been in force, bundles without one
 * ({@link FreshnessMemory}).
 *
 * A bundle with a freshness statement arms one timer on the client's clock
 * for its expiry (`watchExpiry`, shared with the web OpenFeature provider).
 * When it fires, the evaluator in force is swapped for one that throws
 * `BUNDLE_EXPIRED` (`evaluate` pays nothing for the check), and
 * {@link onExpired} is called with that error. A fresh statement for the
 * same bundle, or a newer bundle, puts a working evaluator back
 * ({@link replace}).
 */
export class BundleSlot {
  #current: InForce;
  /** The bundle in force with its working evaluator, also once expired. */
  #live: InForce;
  #refused: RollbackRefusal | null = null;
  #expired = false;
  #stopWatching: () => void = () => {};
  #closed = false;
  /** Called when the statement in force expires, with the error `evaluate` then throws. */
  onExpired: ((error: PolicyError) => void) | null = null;
  readonly #options: ClientOptions;
  readonly #env: DecisionHookEnv;
  readonly #clock: Clock;
  readonly #memory: FreshnessMemory;

  /**
   * `memory`: what the client knows of statements before this first bundle
   * (a remote client's record of an earlier run); by default nothing.
   */
  constructor(
    loaded: LoadedBundle,
    options: ClientOptions,
    env: DecisionHookEnv,
    clock: Clock,
    memory: FreshnessMemory = new FreshnessMemory(null, "restart the client"),
  ) {
    this.#options = options;
    this.#env = env;
    this.#clock = clock;
    this.#memory = memory;
    this.#current = this.#live = this.#prepare(loaded);
    memory.inForce(loaded.status, env.now());
    this.#armExpiry();
  }

  /** The bundle in force has a statement that expired: `evaluate` throws `BUNDLE_EXPIRED`. */
  get expired(): boolean {
    return this.#expired;
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
   * Why `candidate` (described by `what` in the message) may not replace the
   * bundle in force, or null: `BUNDLE_FRESHNESS_MISSING` when it carries no
   * statement and the client requires one ({@link FreshnessMemory}), else
   * `BUNDLE_VERSION_ROLLBACK` when it is older and rollbacks are not
   * allowed (the refusal is then recorded).
   */
  refuse(candidate: BundleStatus, what: string): PolicyError | null {
    return this.#memory.refuse(candidate, what) ?? this.#refuseRollback(candidate, what);
  }

  #refuseRollback(candidate: BundleStatus, what: string): PolicyError | null {
    const inForce = this.#current.status;
    if (this.#options.allowRollback === true || !isOlder(candidate, inForce)) return null;
    this.#refused = {
      bundleVersion: candidate.bundleVersion!,
      checksum: candidate.checksum,
      at: new Date(this.#env.now()).toISOString(),
    };
    return rollbackError(candidate, inForce, what);
  }

  /**
   * Puts a newly loaded bundle in force. The same bundle again (the same
   * compiled form, reused by the load pipeline, and the same
   * `bundleVersion`: a renewed freshness statement) keeps its evaluator and
   * takes the new status; anything else gets a new evaluator. Returns the
   * bundle it replaced.
   */
  replace(loaded: LoadedBundle): LoadedBundle {
    const live = this.#live;
    const previous = live.loaded;
    if (
      loaded.compiled === live.loaded.compiled &&
      loaded.status.bundleVersion === live.status.bundleVersion
    ) {
      this.#live = Object.freeze({ evaluate: live.evaluate, status: loaded.status, loaded });
    } else {
      this.#live = this.#prepare(loaded);
      this.#refused = null;
    }
    this.#current = this.#live;
    this.#expired = false;
    this.#memory.inForce(loaded.status, this.#env.now());
    this.#armExpiry();
    return previous;
  }

  /** Clears the expiry timer; the slot keeps serving what it has. Idempotent. */
  close(): void {
    this.#closed = true;
    this.#stopWatching();
  }

  /** Starts watching the expiry of the statement in force, if any. */
  #armExpiry(): void {
    this.#stopWatching();
    this.#stopWatching = () => {};
    const freshness = this.#live.status.freshness;
    if (freshness === null || this.#closed) return;
    const skew = this.#options.clockSkewMs ?? DEFAULT_CLOCK_SKEW_MS;
    this.#stopWatching = watchExpiry(freshness, skew, this.#clock, () => {
      const live = this.#live;
      const error = expiredError(freshness, skew, "the bundle in force");
      this.#expired = true;
      this.#current = Object.freeze({
        // Counted (and traced) as any evaluator's error is.
        evaluate: this.#counted(() => {
          throw expiredError(freshness, skew, "the bundle in force");
        }, live.status),
        status: live.status,
        loaded: live.loaded,
      });
      this.onExpired?.(error);
    });
  }

  /** `evaluate` as the telemetry sees it: its decisions and errors counted, sampled spans. */
  #counted(evaluate: Evaluator, status: BundleStatus): Evaluator {
    return withTelemetry(evaluate, status, this.#options.telemetry, {
      random: () => this.#env.random(),
      clock: this.#clock,
    });
  }

  #prepare(loaded: LoadedBundle): InForce {
    const evaluate = createEvaluator(loaded.compiled, {
      ...(this.#options.parseCustomEffect !== undefined &&
        { parseCustomEffect: this.#options.parseCustomEffect }),
      ...(this.#options.contextPolicy !== undefined &&
        { contextPolicy: this.#options.contextPolicy }),
    });
    return Object.freeze({
      evaluate: withDecisionLog(
        this.#counted(evaluate, loaded.status),
        loaded.status,
        this.#options,
        this.#env,
      ),
      status: loaded.status,
      loaded,
    });
  }
}
