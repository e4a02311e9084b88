/**
 * The interface both clients return (`docs/local-client.md`, `docs/remote.md`),
 * their options and their status.
 *
 * @module
 */
import type { ContextPolicy, Decision, EvaluationRequest, Target } from "../engine/types.ts";
import type { ErrorCode, PolicyError } from "../public/policy_error.ts";
import type { BundleStatus } from "../verify/load_bundle.ts";
import type { VerifyKeySet } from "../verify/verify_bundle_signature.ts";
import type { Telemetry } from "../telemetry/types.ts";

/** The `fetch` the remote client calls (the global one unless injected). */
export type FetchFunction = (url: string, init: RequestInit) => Promise<Response>;

/** Options every client accepts. Unknown keys are refused (`INVALID_OPTIONS`). */
export interface ClientOptions {
  /**
   * The trusted key, or a list of up to 16 (`MAX_VERIFY_KEYS`) during a key
   * rotation: `{ algorithm, publicKey, keyId? }`. A bundle must carry a
   * signature that one of them verifies (docs/operations.md).
   */
  verify?: VerifyKeySet;
  /** Accept bundles without a signature (only when no `verify` key is set). */
  allowUnsigned?: boolean;
  /** Called with the error of every failed reload; the previous bundle stays in force. */
  onError?: (error: PolicyError) => void;
  /** Add `parsedValue` to `custom` decisions whose value parses as JSON. */
  parseCustomEffect?: boolean;
  /** Top-level context keys allowed in `evaluate`. */
  contextPolicy?: ContextPolicy;
  /** Largest bundle accepted, in bytes. Default 8 MiB. */
  maxFileBytes?: number;
  /**
   * Put in force a bundle whose `bundleVersion` is lower than the one in
   * force. Default `false`: such a bundle is refused with
   * `BUNDLE_VERSION_ROLLBACK` (docs/operations.md "No going back").
   */
  allowRollback?: boolean;
  /**
   * Refuse a bundle without a signed freshness statement
   * (`BUNDLE_FRESHNESS_MISSING`), so that an old bundle replayed, relabelled
   * or stripped of its statement is never put in force (docs/operations.md
   * "Signed freshness"). Default `false`: a statement is verified when
   * present.
   */
  requireFreshness?: boolean;
  /**
   * How far past a statement's `expiresAt` (on the wall clock) it is still
   * accepted, for clocks that disagree a little: 0 to 86,400,000 ms.
   * Default 60,000.
   */
  clockSkewMs?: number;
  /**
   * Receives each decision `evaluate` returns (sampled, with masked context
   * keys: see `decisionLog`), synchronously, before `evaluate` returns.
   * What it throws is ignored. When absent, `evaluate` does no logging work.
   */
  onDecision?: (record: DecisionRecord) => void;
  /** How decisions are given to `onDecision`. Needs `onDecision`. */
  decisionLog?: DecisionLogOptions;
  /**
   * Where the client reports its metrics and spans (docs/observability.md):
   * decisions and evaluation errors, bundle loads and updates, its state
   * as gauges; `createTelemetry()` of `@policy/runtime/otel`. Default:
   * none, and `evaluate` does no telemetry work.
   */
  telemetry?: Telemetry;
}

/** Options of the decision log (`ClientOptions.decisionLog`). */
export interface DecisionLogOptions {
  /** The share of decisions passed to `onDecision`, from 0 to 1. Default 1 (all). */
  sampleRate?: number;
  /**
   * Context keys whose values are replaced by `"[masked]"` in the record: a
   * top-level key (`email`) or a dotted path (`user.email`). At most 256.
   */
  maskContextKeys?: readonly string[];
}

/** What `onDecision` receives for one decision. */
export interface DecisionRecord {
  /** When the decision was made, ISO 8601. */
  timestamp: string;
  /** The request: its target, and its context with the masked keys replaced. */
  request: EvaluationRequest;
  /** The decision returned. */
  decision: Decision;
  /** The bundle that decided. */
  bundle: { checksum: string; bundleVersion: number | null };
  /** The sample rate in force: each record stands for `1 / sampleRate` decisions. */
  sampleRate: number;
}

/** An older bundle a client refused (`BUNDLE_VERSION_ROLLBACK`). */
export interface RollbackRefusal {
  /** The refused bundle's `bundleVersion`, lower than the one in force. */
  bundleVersion: number;
  /** Its checksum. */
  checksum: string;
  /** When it was refused, ISO 8601. */
  at: string;
}

/** What `status()` of the local client returns. */
export interface LocalClientStatus extends BundleStatus {
  /** Always `local`. */
  origin: "local";
  /**
   * True when the freshness statement of the bundle in force has expired:
   * `evaluate` then throws `BUNDLE_EXPIRED` until a fresh statement for it,
   * or a newer bundle, is loaded.
   */
  expired: boolean;
  /**
   * The last older bundle refused since the bundle in force came into force
   * (see `allowRollback`), or null.
   */
  rollbackRefused: RollbackRefusal | null;
}

/** The fields of the remote client's status that every state has. */
export interface RemoteClientStatusBase extends BundleStatus {
  /** Always `remote`. */
  origin: "remote";
  /**
   * True after `DEGRADED_AFTER_FAILURES` consecutive failed polls, and
   * while running from the cache file; the first successful poll clears it.
   * The bundle in force keeps being served either way.
   */
  degraded: boolean;
  /**
   * True when `maxStalenessMs` is set and the bundle in force was last
   * confirmed by an origin longer ago than that: `evaluate` then throws
   * `BUNDLE_STALE`. The first successful poll clears it.
   */
  stale: boolean;
  /**
   * True when the freshness statement of the bundle in force has expired:
   * `evaluate` then throws `BUNDLE_EXPIRED` until an origin serves a fresh
   * statement for it, or a newer bundle.
   */
  expired: boolean;
  /** Failed polls since the last successful one. */
  consecutiveFailures: number;
  /** When the next poll is due, ISO 8601; null while a poll runs or after `close()`. */
  nextPollAt: string | null;
  /** The last older bundle refused since the bundle in force came into force, or null. */
  rollbackRefused: RollbackRefusal | null;
}

/** Where the remote client's bundle in force came from. */
export type RemoteClientSource =
  | {
    /** Verified from an origin. */
    source: "network";
    /** The origin (an entry of `baseUrl`) that last served or confirmed the bundle in force. */
    servedBy: string;
    /** When a poll last succeeded (200 verified, or 304), ISO 8601. */
    lastSuccessAt: string;
  }
  | {
    /** Started from `cachePath` because the first request failed; not yet synchronised. */
    source: "cache";
    /** No origin has served or confirmed it yet. */
    servedBy: null;
    /** No poll has succeeded yet. */
    lastSuccessAt: null;
    /** Always degraded while running from the cache. */
    degraded: true;
  };

/** The remote client's most recent failed poll. */
export type RemoteClientLastError =
  | {
    /** No poll has failed. */
    lastErrorCode: null;
    /** No poll has failed. */
    lastErrorAt: null;
  }
  | {
    /** The code of the most recent failed poll, kept after a success. */
    lastErrorCode: ErrorCode;
    /** When it failed, ISO 8601. */
    lastErrorAt: string;
  };

/**
 * What `status()` of the remote client returns: after
 * `if (status.source === "network")`, `servedBy` and `lastSuccessAt` are
 * strings; after `if (status.lastErrorCode !== null)`, so is `lastErrorAt`.
 */
export type RemoteClientStatus =
  & RemoteClientStatusBase
  & RemoteClientSource
  & RemoteClientLastError;

/**
 * What `status()` returns (`docs/local-client.md`, "`status()`"; `docs/remote.md`, "Status"): narrow on `origin` to
 * reach the remote client's fields.
 */
export type ClientStatus = LocalClientStatus | RemoteClientStatus;

/**
 * A new bundle came into force (a watched file changed, a poll brought a new
 * bundle). Sent after the replacement: `evaluate` in the listener already
 * uses the new bundle.
 */
export interface ReloadEvent {
  /** Always `reload`. */
  type: "reload";
  /** The bundle that was in force until now. */
  previous: BundleStatus;
  /**
   * The targets whose decisions may differ between the two bundles, sorted
   * (the `changedTargets` of `./diff`): empty when only metadata or
   * formatting changed.
   */
  changedTargets: readonly Target[];
  /** The client's status, with the new bundle in force. */
  status: ClientStatus;
}

/**
 * The remote client's state changed (docs/remote.md "Events"): `degraded`
 * when `status().degraded` became true, `stale` when `status().stale` did
 * (`evaluate` now throws `BUNDLE_STALE`), `recovered` when a successful poll
 * cleared both.
 */
export interface ClientStateEvent {
  /** Which change. */
  type: "degraded" | "stale" | "recovered";
  /** The client's status at the change. */
  status: ClientStatus;
}

/**
 * A failure the bundle in force outlives (docs/local-client.md "Events"):
 * `reload-failed` (local client) when a watched file changed and its reload
 * failed, with the error `onError` receives, the bundle in force staying;
 * `expired` (both clients) when the freshness statement of the bundle in
 * force expired, with the `BUNDLE_EXPIRED` error `evaluate` now throws.
 */
export interface ClientErrorEvent {
  /** Which failure. */
  type: "reload-failed" | "expired";
  /** The failure, with its code. */
  error: PolicyError;
  /** The client's status at that moment (the bundle in force). */
  status: ClientStatus;
}

/** What a `subscribe` listener receives. Narrow on `type`. */
export type ClientEvent = ReloadEvent | ClientStateEvent | ClientErrorEvent;

/** A `subscribe` listener. What it throws, or rejects with, is ignored. */
export type ClientListener = (event: ClientEvent) => void;

/** A loaded, verified bundle to evaluate against, kept current by its client. */
export interface PolicyClient extends AsyncDisposable {
  /** Evaluates one request against the bundle in force. Synchronous; no I/O. */
  evaluate(request: EvaluationRequest): Decision;
  /** The bundle in force and how it was verified. */
  status(): ClientStatus;
  /**
   * Calls `listener` with every {@link ClientEvent} of this client, synchronously,
   * as it happens, until the returned function is called (or `close()`).
   * Listeners cost nothing on `evaluate`; without listeners no event is built.
   * A listener that throws or rejects changes nothing for the client or the
   * other listeners.
   */
  subscribe(listener: ClientListener): () => void;
  /** Stops every timer and request so the process can exit. Idempotent. */
  close(): Promise<void>;
}
