/**
 * The options of the remote client (`docs/remote.md` "Options") and what
 * `onPoll` receives: read by `createRemoteClient` and checked by
 * `_remote_options.ts`, which is why they live apart from both.
 *
 * @module
 */
import type { Env } from "../engine/types.ts";
import type { PolicyError } from "../public/policy_error.ts";
import type { Clock } from "../public/clock.ts";
import type { VerifyKeySet } from "../verify/verify_bundle_signature.ts";
import type { ClientOptions, FetchFunction, RemoteClientStatus } from "./types.ts";

/** Options of {@link createRemoteClient}. Unknown keys are refused (`INVALID_OPTIONS`). */
export interface RemoteClientOptions extends Omit<ClientOptions, "verify" | "allowUnsigned"> {
  /**
   * The origin's base URL (`http:` or `https:`); `/v1/...` is appended to it.
   * A list of up to {@link MAX_ORIGINS} is tried in order at each poll, the
   * next on any failure of the one before (docs/operations.md "Several origins").
   */
  baseUrl: string | URL | readonly (string | URL)[];
  /** The runtime key, sent as `Authorization: Bearer <runtimeKey>`. Never logged. */
  runtimeKey: string;
  /** The organisation: the bundle's `orgId` must equal it. */
  orgId: string;
  /** The project: the bundle's `projectId` must equal it. */
  projectId: string;
  /** The environment: the bundle's `env` must equal it. */
  env: Env;
  /**
   * Required: the control plane's ECDSA P-256 public key, or a list of them
   * during a key rotation. An HMAC key is refused (`REMOTE_HMAC_REFUSED`);
   * there is no `allowUnsigned`: remote bundles are always verified.
   */
  verify: VerifyKeySet;
  /** Polling: `intervalMs` between successful polls (default 30 s, jittered ±10 %). */
  poll?: { intervalMs?: number };
  /**
   * A file that receives the exact bytes of every verified bundle (written
   * atomically), and from which the client starts, degraded, when the first
   * request fails. Its folder must exist.
   */
  cachePath?: string;
  /** Timeout of one request, body included. Default 10 s. */
  requestTimeoutMs?: number;
  /** Longest wait between polls after failures. Default 5 min. */
  maxBackoffMs?: number;
  /** Longest time `createRemoteClient` may take before it rejects. Default 15 s. */
  startTimeoutMs?: number;
  /**
   * Once the bundle in force was last confirmed by an origin longer ago than
   * this, `evaluate` throws `BUNDLE_STALE` (fail closed) until a poll
   * succeeds. Default: never.
   */
  maxStalenessMs?: number;
  /** Called after every poll, successful or not, with its outcome. */
  onPoll?: (result: PollResult) => void;
  /** The `fetch` to use. Default: the global `fetch`. */
  fetch?: FetchFunction;
  /**
   * The clock and timers to use (docs/remote.md "Options"). Default: the
   * system clock (`performance.now()`, `Date.now()`, the global timers).
   * Staleness, timeouts and backoff are measured on its monotonic `now()`;
   * the times in `status()` and on the cache file come from `wallNow()`.
   */
  clock?: Clock;
  /** A source of numbers in [0, 1) for jitter and decision sampling. Default: `Math.random`. */
  random?: () => number;
}

/** What `onPoll` receives after each poll, and `refresh()` resolves with. */
export type PollResult =
  | {
    /** A new verified bundle is in force. */
    outcome: "updated";
    httpStatus: 200;
    error: null;
    /** The origin that served it. */
    servedBy: string;
    /** The client's status after the poll. */
    status: RemoteClientStatus;
  }
  | {
    /** A 304, or the same bytes again: the bundle in force is confirmed. */
    outcome: "unchanged";
    httpStatus: 200 | 304;
    error: null;
    /** The origin that confirmed it. */
    servedBy: string;
    /** The client's status after the poll. */
    status: RemoteClientStatus;
  }
  | {
    /** Every origin failed; the bundle in force stays. */
    outcome: "failed";
    /** The first origin's HTTP status, or null when no answer came. */
    httpStatus: number | null;
    /** The first origin's failure (every origin's went to `onError`). */
    error: PolicyError;
    servedBy: null;
    /** The client's status after the poll. */
    status: RemoteClientStatus;
  };
