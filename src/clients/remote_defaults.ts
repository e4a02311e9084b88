// This module is browser compatible.
/**
 * The remote client's defaults and limits (docs/remote.md "Options"), public
 * so that callers can reason about them.
 *
 * @module
 */

/** Default `poll.intervalMs`: 30 s (each wait is jittered by ±10 %). */
export const DEFAULT_POLL_INTERVAL_MS = 30_000;
/** Default `requestTimeoutMs`: 10 s for a whole request, body included. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 10_000;
/** Default `maxBackoffMs`: 5 min, the longest wait between polls after failures. */
export const DEFAULT_MAX_BACKOFF_MS = 300_000;
/**
 * Default `startTimeoutMs`: 15 s, the longest `createRemoteClient` takes.
 * It is longer than the request timeout so that a control plane that does
 * not answer still leaves time to start from the cache file.
 */
export const DEFAULT_START_TIMEOUT_MS = 15_000;
/** The most origins `baseUrl` may list. */
export const MAX_ORIGINS = 8;

/** Consecutive failed polls after which the remote client reports `degraded: true`. */
export const DEGRADED_AFTER_FAILURES = 3;
