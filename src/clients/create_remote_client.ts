/**
 * The remote client: polls a plain HTTP origin for the project's bundle
 * (CONTRACT.md §4, docs/remote.md), verifies every candidate with the same
 * load pipeline as the local client, and evaluates in-process.
 *
 * Uses only web standards (`fetch`, `AbortController`, `setTimeout`) and,
 * for `cachePath`, `node:fs/promises`, so it runs on Deno and Node 20+.
 *
 * @module
 */
import { type ErrorCode, isPolicyError, PolicyError } from "../engine/policy_error.ts";
import type { Decision, Env, EvaluationRequest } from "../engine/types.ts";
import {
  DEFAULT_MAX_FILE_BYTES,
  loadBundle,
  type LoadedBundle,
  parseBundleBytes,
} from "../verify/load_bundle.ts";
import { importPublicKey } from "../verify/import_public_key.ts";
import type { VerifyKeyOptions } from "../verify/verify_bundle_signature.ts";
import { BundleSlot } from "./_bundle_slot.ts";
import { callSafely } from "./_call_safely.ts";
import { readCacheFile, writeCacheFile } from "./_cache_file.ts";
import { DEGRADED_AFTER_FAILURES, parseRetryAfter, pollDelay } from "./_poll_delay.ts";
import { type BundleAnswer, type FetchFunction, requestBundle } from "./_request_bundle.ts";
import { userAgent } from "./_user_agent.ts";
import type { ClientOptions, ClientStatus, PolicyClient } from "./types.ts";
import { checkClientOptions } from "./_check_client_options.ts";
import { describeFetchFailure } from "../_io/describe_fetch_failure.ts";

export { DEGRADED_AFTER_FAILURES } from "./_poll_delay.ts";
export type { FetchFunction } from "./_request_bundle.ts";

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

/** The largest delay a timer accepts (setTimeout fires at once beyond it). */
const MAX_DELAY_MS = 2_147_483_647;

const ENVS: readonly Env[] = ["prod", "staging", "dev", "test"];

/**
 * Time as the remote client sees it. The default is the system clock with
 * the global `setTimeout`; tests inject a fake one.
 */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
  /** Calls `callback` once after `delayMs`; returns a handle for {@link Clock.clearTimeout}. */
  setTimeout(callback: () => void, delayMs: number): unknown;
  /** Cancels a pending callback. */
  clearTimeout(handle: unknown): void;
}

/** Options of {@link createRemoteClient}. */
export interface RemoteClientOptions extends Omit<ClientOptions, "verify" | "allowUnsigned"> {
  /** The control plane's base URL (`http:` or `https:`); `/v1/...` is appended to it. */
  baseUrl: string | URL;
  /** The runtime key, sent as `Authorization: Bearer <runtimeKey>`. Never logged. */
  runtimeKey: string;
  /** The organisation: the bundle's `orgId` must equal it. */
  orgId: string;
  /** The project: the bundle's `projectId` must equal it. */
  projectId: string;
  /** The environment: the bundle's `env` must equal it. */
  env: Env;
  /**
   * Required: the ECDSA P-256 public key of the control plane. An HMAC key is
   * refused (`REMOTE_HMAC_REFUSED`). Without a key no bundle ever loads: each
   * fails with the load code the local client gives (`BUNDLE_SIGNATURE_UNVERIFIED`,
   * `BUNDLE_UNSIGNED`). There is no `allowUnsigned`: remote bundles are always
   * verified (JavaScript callers that pass it anyway see it ignored).
   */
  verify: VerifyKeyOptions;
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
  /** Called after every poll, successful or not, with its outcome. */
  onPoll?: (result: PollResult) => void;
  /** The `fetch` to use. Default: the global `fetch`. */
  fetch?: FetchFunction;
  /** The clock and timers to use. Default: `Date.now` and the global timers. */
  clock?: Clock;
  /** A source of numbers in [0, 1) for jitter. Default: `Math.random`. */
  random?: () => number;
}

/** What `status()` of the remote client returns. */
export interface RemoteClientStatus extends ClientStatus {
  /** Always `remote`. */
  origin: "remote";
  /**
   * True after {@link DEGRADED_AFTER_FAILURES} consecutive failed polls, and
   * while running from the cache file; the first successful poll clears it.
   * The bundle in force keeps being served either way.
   */
  degraded: boolean;
  /** Failed polls since the last successful one. */
  consecutiveFailures: number;
  /** When a poll last succeeded (200 verified, or 304), ISO 8601; null if never. */
  lastSuccessAt: string | null;
  /** The code of the most recent failed poll; null if none has failed. */
  lastErrorCode: ErrorCode | null;
  /** When that failure happened, ISO 8601; null if none has failed. */
  lastErrorAt: string | null;
  /**
   * Where the bundle in force came from: `network` (verified from the
   * control plane), or `cache` (started from `cachePath` because the first
   * request failed; not yet synchronised with the control plane).
   */
  source: "network" | "cache";
  /** When the next poll is due, ISO 8601; null while a poll runs or after `close()`. */
  nextPollAt: string | null;
}

/** What `onPoll` receives after each poll. */
export interface PollResult {
  /** `updated`: a new verified bundle is in force; `unchanged`: 304, or the same bytes again. */
  outcome: "updated" | "unchanged" | "failed";
  /** The HTTP status, or null when no answer came (network error, timeout). */
  httpStatus: number | null;
  /** Why the poll failed; null unless `outcome` is `failed`. */
  error: PolicyError | null;
  /** The client's status after the poll. */
  status: RemoteClientStatus;
}

/** A client whose bundle comes from a control plane. */
export interface RemoteClient extends PolicyClient {
  /** The bundle in force, plus the polling state. */
  status(): RemoteClientStatus;
  /**
   * Polls now (or joins the poll in flight) and resolves with the status
   * after it; never rejects: failures go to `onError` and the status. After
   * `close()` it polls nothing.
   */
  refresh(): Promise<RemoteClientStatus>;
}

/**
 * Creates a client that fetches the bundle of `orgId`/`projectId`/`env` from
 * `GET {baseUrl}/v1/{orgId}/{projectId}/{env}/bundle.json`, and resolves
 * once a verified bundle is in force. It then polls every `poll.intervalMs`
 * with `If-None-Match`, backing off after failures; a failed poll calls
 * `onError` and keeps the bundle in force. See docs/remote.md.
 *
 * Start-up: the first request must give a verified bundle of the client's
 * scope. If it fails and `cachePath` holds one that verifies, the client
 * starts from it, degraded, and keeps polling; otherwise creation rejects
 * with the failure's code. It never takes longer than `startTimeoutMs`.
 *
 * @throws {PolicyError} `INVALID_OPTIONS`, `INVALID_KEY`, `REMOTE_HMAC_REFUSED`
 * (an HMAC `verify` option), or the code of the failed first request:
 * `REMOTE_UNAUTHORIZED`, `REMOTE_NOT_FOUND`, `REMOTE_UNAVAILABLE`,
 * `BUNDLE_TOO_LARGE`, `BUNDLE_SCOPE_MISMATCH`, or a bundle load code.
 *
 * @example Against an injected fetch (in production, the control plane's URL)
 * ```ts
 * import { createRemoteClient, signBundle } from "../../mod.ts";
 * import assert from "node:assert/strict";
 *
 * const pair = await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, false, ["sign", "verify"]);
 * const bundle = await signBundle({
 *   schemaVersion: 1, orgId: "acme", projectId: "shop", env: "prod",
 *   policies: [{ policyKey: "checkout", activeVersion: 1, rules: [{
 *     id: "open", status: "active", priority: 1,
 *     target: { service: "shop", resource: "cart", action: "checkout" },
 *     effect: { type: "allow" },
 *   }] }],
 * }, { algorithm: "ECDSA_SHA_256", key: pair.privateKey, keyId: "cp-1" });
 *
 * const client = await createRemoteClient({
 *   baseUrl: "https://control-plane.example",
 *   runtimeKey: "rk_example",
 *   orgId: "acme", projectId: "shop", env: "prod",
 *   verify: { algorithm: "ECDSA_SHA_256", publicKey: pair.publicKey },
 *   fetch: (url) => {
 *     assert.equal(url, "https://control-plane.example/v1/acme/shop/prod/bundle.json");
 *     return Promise.resolve(new Response(JSON.stringify(bundle), { headers: { etag: '"v1"' } }));
 *   },
 * });
 * const target = { service: "shop", resource: "cart", action: "checkout" };
 * assert.equal(client.evaluate({ target }).decision, "allow");
 * assert.equal(client.status().origin, "remote");
 * assert.equal(client.status().degraded, false);
 * await client.close();
 * ```
 */
export async function createRemoteClient(options: RemoteClientOptions): Promise<RemoteClient> {
  const config = await resolveOptions(options);
  const client = new RemoteClientImpl(config);
  await client.start();
  return client;
}

interface Config {
  url: string;
  host: string;
  runtimeKey: string;
  userAgent: string;
  orgId: string;
  projectId: string;
  env: Env;
  /** The imported key, or null when none was configured (then nothing loads). */
  verify: VerifyKeyOptions | null;
  intervalMs: number;
  requestTimeoutMs: number;
  maxBackoffMs: number;
  startTimeoutMs: number;
  maxFileBytes: number;
  cachePath: string | null;
  onError: ((error: PolicyError) => void) | null;
  onPoll: ((result: PollResult) => void) | null;
  fetch: FetchFunction;
  clock: Clock;
  random: () => number;
  slotOptions: ClientOptions;
}

type Attempt =
  | {
    kind: "updated";
    httpStatus: 200;
    loaded: LoadedBundle;
    bytes: Uint8Array;
    etag: string | null;
  }
  | { kind: "unchanged"; httpStatus: 200 | 304; etag: string | null }
  | {
    kind: "failed";
    httpStatus: number | null;
    error: PolicyError;
    retryAfterMs: number | null;
  }
  | { kind: "aborted" };
type Settled = Exclude<Attempt, { kind: "aborted" }>;
type Failed = Extract<Attempt, { kind: "failed" }>;

class RemoteClientImpl implements RemoteClient {
  readonly #config: Config;
  #slot: BundleSlot | null = null;
  /** The exact bytes of the bundle in force. */
  #bytes: Uint8Array | null = null;
  /** The server's ETag for the bundle in force: the only ETag ever sent back. */
  #serverEtag: string | null = null;
  #source: "network" | "cache" = "network";
  /** The cache file holds the bundle in force. */
  #cacheCurrent = false;
  #failures = 0;
  #lastFailureUnauthorized = false;
  #lastSuccessAt: number | null = null;
  #lastError: { code: ErrorCode; at: number } | null = null;
  #firstFailure: PolicyError | null = null;
  #timer: { handle: unknown } | null = null;
  #nextPollAt: number | null = null;
  #controller: AbortController | null = null;
  #inFlight: Promise<unknown> | null = null;
  #closed = false;
  #closing: Promise<void> | null = null;

  constructor(config: Config) {
    this.#config = config;
  }

  evaluate(request: EvaluationRequest): Decision {
    return this.#slot!.current.evaluate(request);
  }

  status(): RemoteClientStatus {
    const bundle = this.#slot!.current.status;
    const iso = (ms: number | null) => ms === null ? null : new Date(ms).toISOString();
    return {
      origin: "remote",
      bundleVersion: bundle.bundleVersion,
      checksum: bundle.checksum,
      etag: bundle.etag,
      env: bundle.env,
      signature: { ...bundle.signature },
      policies: bundle.policies,
      degraded: this.#source === "cache" || this.#failures >= DEGRADED_AFTER_FAILURES,
      consecutiveFailures: this.#failures,
      lastSuccessAt: iso(this.#lastSuccessAt),
      lastErrorCode: this.#lastError?.code ?? null,
      lastErrorAt: iso(this.#lastError?.at ?? null),
      source: this.#source,
      nextPollAt: iso(this.#nextPollAt),
    };
  }

  refresh(): Promise<RemoteClientStatus> {
    if (this.#closed) return Promise.resolve(this.status());
    if (this.#inFlight === null) {
      this.#cancelTimer();
      this.#inFlight = this.#pollOnce();
    }
    return this.#inFlight.then(() => this.status());
  }

  close(): Promise<void> {
    this.#closing ??= this.#shutdown();
    return this.#closing;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  async #shutdown(): Promise<void> {
    this.#closed = true;
    this.#cancelTimer();
    this.#controller?.abort(new Error("the remote client was closed"));
    // Wait for the aborted request (and a cache write) to settle, so that
    // nothing outlives close(): no timer, no socket, no file handle.
    await this.#inFlight?.catch(() => {});
  }

  /** Start-up: resolves once a bundle is in force, or rejects (and closes). */
  async start(): Promise<void> {
    const { clock, startTimeoutMs } = this.#config;
    let deadlineHandle: unknown;
    const deadline = new Promise<never>((_, reject) => {
      deadlineHandle = clock.setTimeout(() => reject(this.#startTimeoutError()), startTimeoutMs);
    });
    const work = this.#startWork();
    this.#inFlight = work;
    try {
      await Promise.race([work, deadline]);
    } catch (error) {
      this.#closed = true;
      this.#cancelTimer();
      this.#controller?.abort(new Error("the remote client did not start"));
      work.catch(() => {});
      throw error;
    } finally {
      clock.clearTimeout(deadlineHandle);
    }
  }

  async #startWork(): Promise<void> {
    const attempt = await this.#attempt();
    if (this.#closed || attempt.kind === "aborted") return;
    if (attempt.kind === "updated") {
      this.#install(attempt.loaded, attempt.bytes, attempt.etag, "network");
      await this.#writeCache();
      if (!this.#closed) this.#finish(attempt);
      return;
    }
    const failure = attempt.kind === "failed" ? attempt : {
      kind: "failed" as const,
      httpStatus: attempt.httpStatus,
      error: new PolicyError("REMOTE_UNAVAILABLE", "the control plane sent no bundle"),
      retryAfterMs: null,
    };
    this.#firstFailure = failure.error;
    const cachePath = this.#config.cachePath;
    if (cachePath === null) throw failure.error;
    let bytes: Uint8Array;
    let loaded: LoadedBundle;
    try {
      bytes = await readCacheFile(cachePath, this.#config.maxFileBytes);
      loaded = await this.#accept(bytes, `the cache file ${cachePath}`);
    } catch (cacheError) {
      throw new PolicyError(
        failure.error.code,
        `${failure.error.message}; the cache file could not be used either: ${
          cacheError instanceof Error ? cacheError.message : String(cacheError)
        }`,
        { cause: failure.error, issues: [...failure.error.issues] },
      );
    }
    if (this.#closed) return;
    this.#install(loaded, bytes, null, "cache");
    this.#cacheCurrent = true;
    this.#finish(failure);
  }

  #startTimeoutError(): PolicyError {
    const first = this.#firstFailure;
    const message =
      `no verified bundle within startTimeoutMs (${this.#config.startTimeoutMs} ms) from ${this.#config.url}`;
    return first === null
      ? new PolicyError("REMOTE_UNAVAILABLE", message)
      : new PolicyError(first.code, `${message}: ${first.message}`, {
        cause: first,
        issues: [...first.issues],
      });
  }

  /** One scheduled or requested poll; never rejects. */
  async #pollOnce(): Promise<void> {
    let attempt: Settled;
    try {
      const result = await this.#attempt();
      if (this.#closed || result.kind === "aborted") return;
      attempt = result;
      if (attempt.kind === "updated") {
        this.#install(attempt.loaded, attempt.bytes, attempt.etag, "network");
      }
      if (attempt.kind !== "failed") await this.#writeCache();
    } catch (error) {
      // Not expected: every failure is an Attempt. Keep polling regardless.
      attempt = failed(
        new PolicyError("REMOTE_UNAVAILABLE", `the poll failed unexpectedly: ${error}`, {
          cause: error,
        }),
        null,
      );
    }
    if (!this.#closed) this.#finish(attempt);
  }

  /** One request and, for a 200, the verification of its body. Never rejects. */
  async #attempt(): Promise<Attempt> {
    const { clock, requestTimeoutMs, url } = this.#config;
    const controller = new AbortController();
    this.#controller = controller;
    let timedOut = false;
    const timer = clock.setTimeout(() => {
      timedOut = true;
      controller.abort(new Error(`no answer within ${requestTimeoutMs} ms`));
    }, requestTimeoutMs);
    const conditional = this.#serverEtag;
    let answer: BundleAnswer;
    try {
      answer = await requestBundle({
        fetch: this.#config.fetch,
        url,
        headers: this.#headers(conditional),
        signal: controller.signal,
        maxFileBytes: this.#config.maxFileBytes,
      });
    } catch (error) {
      if (timedOut) {
        return failed(
          new PolicyError(
            "REMOTE_UNAVAILABLE",
            `the control plane did not answer ${url} completely within ${requestTimeoutMs} ms (requestTimeoutMs)`,
          ),
          null,
        );
      }
      if (this.#closed) return { kind: "aborted" };
      if (error instanceof PolicyError) return failed(error, 200);
      return failed(this.#networkError(error), null);
    } finally {
      clock.clearTimeout(timer);
      if (this.#controller === controller) this.#controller = null;
    }
    return await this.#classify(answer, conditional);
  }

  async #classify(answer: BundleAnswer, conditional: string | null): Promise<Attempt> {
    const { url } = this.#config;
    const status = answer.status;
    if (status === 200) {
      const bytes = answer.body ?? new Uint8Array(0);
      // The same bytes as the bundle in force were verified already.
      if (this.#bytes !== null && sameBytes(bytes, this.#bytes)) {
        return { kind: "unchanged", httpStatus: 200, etag: answer.etag };
      }
      let loaded: LoadedBundle;
      try {
        loaded = await this.#accept(bytes, `the bundle served at ${url}`);
      } catch (error) {
        return failed(asPolicyError(error), 200);
      }
      return { kind: "updated", httpStatus: 200, loaded, bytes, etag: answer.etag };
    }
    if (status === 304) {
      if (conditional !== null) return { kind: "unchanged", httpStatus: 304, etag: conditional };
      return failed(
        new PolicyError(
          "REMOTE_UNAVAILABLE",
          `${url} answered 304 Not Modified to a request without If-None-Match; the server or a cache in between is misconfigured`,
        ),
        304,
      );
    }
    if (status === 401 || status === 403) {
      return failed(
        new PolicyError(
          "REMOTE_UNAUTHORIZED",
          `${url} answered HTTP ${status}: the runtime key was refused; check runtimeKey and that it is allowed to read this project and env`,
        ),
        status,
      );
    }
    if (status === 404) {
      return failed(
        new PolicyError(
          "REMOTE_NOT_FOUND",
          `${url} answered HTTP 404: no bundle is published for orgId ${
            JSON.stringify(this.#config.orgId)
          }, projectId ${JSON.stringify(this.#config.projectId)}, env ${
            JSON.stringify(this.#config.env)
          }; check the scope and baseUrl, or publish a bundle`,
        ),
        404,
      );
    }
    const busy = status === 429 || status === 503;
    const retryAfterMs = busy ? parseRetryAfter(answer.retryAfter, this.#config.clock.now()) : null;
    const retry = retryAfterMs === null
      ? ""
      : `; retrying after ${retryAfterMs} ms at the earliest`;
    return failed(
      new PolicyError(
        "REMOTE_UNAVAILABLE",
        `${url} answered HTTP ${status}${busy ? " (busy)" : ""}${retry}`,
      ),
      status,
      retryAfterMs,
    );
  }

  /**
   * Every check a candidate must pass: the whole load pipeline with the
   * ECDSA key (never allowUnsigned), HMAC refused, scope equal to the client's.
   */
  async #accept(bytes: Uint8Array, what: string): Promise<LoadedBundle> {
    const { verify, maxFileBytes } = this.#config;
    let loaded: LoadedBundle;
    try {
      loaded = await loadBundle(
        bytes,
        verify === null ? { maxFileBytes } : { verify, maxFileBytes },
      );
    } catch (error) {
      throw refineLoadError(error, bytes, what);
    }
    const bundle = loaded.compiled.bundle;
    const wrong = (["orgId", "projectId", "env"] as const).filter((field) =>
      bundle[field] !== this.#config[field]
    );
    if (wrong.length > 0) {
      const describe = (field: typeof wrong[number]) =>
        `${field} ${
          bundle[field] === undefined ? "absent" : JSON.stringify(bundle[field])
        } (expected ${JSON.stringify(this.#config[field])})`;
      throw new PolicyError(
        "BUNDLE_SCOPE_MISMATCH",
        `${what} is for another scope: ${wrong.map(describe).join(", ")}; it is not put in force`,
      );
    }
    return loaded;
  }

  #headers(conditional: string | null): Record<string, string> {
    const headers: Record<string, string> = {
      "accept": "application/json",
      "authorization": `Bearer ${this.#config.runtimeKey}`,
      "user-agent": this.#config.userAgent,
    };
    if (conditional !== null) headers["if-none-match"] = conditional;
    return headers;
  }

  #networkError(error: unknown): PolicyError {
    const detail = error instanceof Error ? error.message : String(error);
    const name = error instanceof Error ? error.name : "";
    if (name === "NotCapable" || name === "PermissionDenied") {
      return new PolicyError(
        "REMOTE_UNAVAILABLE",
        `the runtime's permissions refused network access to ${this.#config.host}: ${detail}; on Deno, run with --allow-net=${this.#config.host}`,
        { cause: error },
      );
    }
    return new PolicyError(
      "REMOTE_UNAVAILABLE",
      `cannot fetch ${this.#config.url}: ${describeFetchFailure(error)}`,
      { cause: error },
    );
  }

  #install(
    loaded: LoadedBundle,
    bytes: Uint8Array,
    etag: string | null,
    source: "network" | "cache",
  ): void {
    if (this.#slot === null) this.#slot = new BundleSlot(loaded, this.#config.slotOptions);
    else this.#slot.replace(loaded);
    this.#bytes = bytes;
    this.#serverEtag = etag;
    this.#source = source;
    this.#cacheCurrent = false;
  }

  /** Writes the bundle in force to `cachePath` unless it holds it already. */
  async #writeCache(): Promise<void> {
    const path = this.#config.cachePath;
    if (path === null || this.#cacheCurrent || this.#bytes === null) return;
    try {
      await writeCacheFile(path, this.#bytes);
      this.#cacheCurrent = true;
    } catch (error) {
      callSafely(this.#config.onError, asPolicyError(error));
    }
  }

  /** Records a settled poll, schedules the next and tells the callbacks. Synchronous. */
  #finish(attempt: Settled): void {
    const now = this.#config.clock.now();
    if (attempt.kind === "failed") {
      this.#failures += 1;
      this.#lastFailureUnauthorized = attempt.error.code === "REMOTE_UNAUTHORIZED";
      this.#lastError = { code: attempt.error.code, at: now };
    } else {
      this.#failures = 0;
      this.#lastFailureUnauthorized = false;
      this.#lastSuccessAt = now;
      // Even the same bytes as the cache file, confirmed by the network, are synchronised.
      this.#source = "network";
      // A 200 with the same bytes: remember the server's current ETag (or its absence).
      if (attempt.kind === "unchanged" && attempt.httpStatus === 200) {
        this.#serverEtag = attempt.etag;
      }
    }
    this.#inFlight = null;
    this.#schedule(pollDelay({
      failures: this.#failures,
      intervalMs: this.#config.intervalMs,
      maxBackoffMs: this.#config.maxBackoffMs,
      unauthorized: this.#lastFailureUnauthorized,
      retryAfterMs: attempt.kind === "failed" ? attempt.retryAfterMs : null,
      random: this.#config.random(),
    }));
    const error = attempt.kind === "failed" ? attempt.error : null;
    if (error !== null) callSafely(this.#config.onError, error);
    callSafely(this.#config.onPoll, {
      outcome: attempt.kind,
      httpStatus: attempt.httpStatus,
      error,
      status: this.status(),
    });
  }

  #schedule(delayMs: number): void {
    this.#cancelTimer();
    const { clock } = this.#config;
    this.#nextPollAt = clock.now() + delayMs;
    const timer = {
      handle: clock.setTimeout(() => {
        if (this.#timer !== timer) return;
        this.#timer = null;
        this.#nextPollAt = null;
        void this.refresh();
      }, delayMs),
    };
    this.#timer = timer;
  }

  #cancelTimer(): void {
    if (this.#timer !== null) this.#config.clock.clearTimeout(this.#timer.handle);
    this.#timer = null;
    this.#nextPollAt = null;
  }

  /** Calls a user callback; what it throws must not stop polling. */
}

/**
 * The load error of a remote candidate, in the remote client's terms: an
 * HMAC-signed bundle is refused (`REMOTE_HMAC_REFUSED`; with the ECDSA key it
 * shows as an algorithm mismatch, without a key as unverified), and an
 * unsigned one is not rescued by `allowUnsigned`. Other errors pass unchanged.
 */
function refineLoadError(error: unknown, bytes: Uint8Array, what: string): unknown {
  if (
    isPolicyError(error, "BUNDLE_SIGNATURE_ALGORITHM_MISMATCH") ||
    (isPolicyError(error, "BUNDLE_SIGNATURE_UNVERIFIED") &&
      signatureAlgorithm(bytes) === "HMAC_SHA256")
  ) {
    return new PolicyError(
      "REMOTE_HMAC_REFUSED",
      `${what} is signed with HMAC_SHA256, which is refused for remote delivery (whoever can verify an HMAC signature can forge one); the control plane must sign with ECDSA_SHA_256`,
      { cause: error },
    );
  }
  if (isPolicyError(error, "BUNDLE_UNSIGNED")) {
    return new PolicyError(
      "BUNDLE_UNSIGNED",
      `${what} has no signature; bundles from a control plane must be signed with ECDSA_SHA_256 and verified with verify: { algorithm: "ECDSA_SHA_256", publicKey } (allowUnsigned does not apply to the remote client)`,
      { cause: error },
    );
  }
  return error;
}

/** The `signature.algorithm` of a bundle (one that loadBundle has parsed already). */
function signatureAlgorithm(bytes: Uint8Array): unknown {
  try {
    const document = parseBundleBytes(bytes) as { signature?: { algorithm?: unknown } } | null;
    return document?.signature?.algorithm;
  } catch {
    return undefined;
  }
}

function failed(
  error: PolicyError,
  httpStatus: number | null,
  retryAfterMs: number | null = null,
): Failed {
  return { kind: "failed", httpStatus, error, retryAfterMs };
}

function asPolicyError(error: unknown): PolicyError {
  if (error instanceof PolicyError) return error;
  return new PolicyError(
    "BUNDLE_INVALID",
    `the bundle could not be loaded: ${error instanceof Error ? error.message : String(error)}`,
    { cause: error },
  );
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.byteLength !== b.byteLength) return false;
  for (let i = 0; i < a.byteLength; i++) if (a[i] !== b[i]) return false;
  return true;
}

// ---------------------------------------------------------------------------
// Options

function invalid(message: string): PolicyError {
  return new PolicyError("INVALID_OPTIONS", `createRemoteClient: ${message}`);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function describeValue(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "string" ? JSON.stringify(value) : typeof value;
}

function duration(value: unknown, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isFinite(value) || value <= 0 || value > MAX_DELAY_MS) {
    throw invalid(
      `${name} must be a number of milliseconds above 0 and at most ${MAX_DELAY_MS}; got ${
        describeValue(value)
      }`,
    );
  }
  return value;
}

function scopeSegment(value: unknown, name: string): string {
  if (typeof value !== "string" || value === "") {
    throw invalid(`${name} must be a non-empty string; got ${describeValue(value)}`);
  }
  // "." and ".." would be resolved away by URL parsing, even percent-encoded.
  if (value === "." || value === "..") {
    throw invalid(`${name} cannot be "." or ".."`);
  }
  return value;
}

function optionalFunction<T>(value: unknown, name: string): T | null {
  if (value === undefined) return null;
  if (typeof value !== "function") {
    throw invalid(`${name} must be a function; got ${describeValue(value)}`);
  }
  return value as T;
}

async function resolveOptions(options: RemoteClientOptions): Promise<Config> {
  if (!isRecord(options)) throw invalid(`options must be an object; got ${describeValue(options)}`);
  const raw = options as unknown as Record<string, unknown>;

  checkClientOptions(options as ClientOptions);
  const verify = raw.verify;
  if (verify !== undefined && !isRecord(verify)) {
    throw invalid(
      `verify must be an object { algorithm: "ECDSA_SHA_256", publicKey }; got ${
        describeValue(verify)
      }`,
    );
  }
  if (verify !== undefined && verify.algorithm === "HMAC_SHA256") {
    throw new PolicyError(
      "REMOTE_HMAC_REFUSED",
      "createRemoteClient: an HMAC_SHA256 verify key is refused for remote delivery (whoever can verify an HMAC signature can forge one); configure the control plane's ECDSA_SHA_256 public key",
    );
  }
  if (verify !== undefined && verify.algorithm !== "ECDSA_SHA_256") {
    throw invalid(
      `verify.algorithm must be "ECDSA_SHA_256"; got ${describeValue(verify.algorithm)}`,
    );
  }
  // Import once, now: a bad key fails creation with INVALID_KEY before any
  // request, and every later load reuses the imported key.
  const publicKey = verify === undefined
    ? null
    : await importPublicKey(verify.publicKey as string | CryptoKey);

  let base: URL;
  try {
    base = new URL(raw.baseUrl as string | URL);
  } catch {
    throw invalid(`baseUrl must be an absolute http(s) URL; got ${describeValue(raw.baseUrl)}`);
  }
  if (base.protocol !== "http:" && base.protocol !== "https:") {
    throw invalid(`baseUrl must use http: or https:; got ${JSON.stringify(base.protocol)}`);
  }
  if (base.search !== "" || base.hash !== "" || base.username !== "" || base.password !== "") {
    throw invalid(
      "baseUrl cannot carry a query, a fragment or credentials; the runtime key is sent as a bearer token",
    );
  }
  if (typeof raw.runtimeKey !== "string" || !/^[\x21-\x7e]+$/.test(raw.runtimeKey)) {
    throw invalid(
      "runtimeKey must be a non-empty string of printable ASCII characters without spaces",
    );
  }
  const orgId = scopeSegment(raw.orgId, "orgId");
  const projectId = scopeSegment(raw.projectId, "projectId");
  if (!ENVS.includes(raw.env as Env)) {
    throw invalid(`env must be one of ${ENVS.join(", ")}; got ${describeValue(raw.env)}`);
  }
  const env = raw.env as Env;
  const path = [orgId, projectId, env].map(encodeURIComponent).join("/");
  const url = `${base.href.replace(/\/+$/, "")}/v1/${path}/bundle.json`;

  const poll = raw.poll as Record<string, unknown> | undefined;
  if (poll !== undefined && !isRecord(poll)) {
    throw invalid(`poll must be an object { intervalMs }; got ${describeValue(poll)}`);
  }
  const maxFileBytes = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
  const cachePath = raw.cachePath;
  if (cachePath !== undefined && (typeof cachePath !== "string" || cachePath === "")) {
    throw invalid(`cachePath must be a non-empty string; got ${describeValue(cachePath)}`);
  }
  const clock = raw.clock ?? systemClock;
  if (
    !isRecord(clock) || typeof clock.now !== "function" ||
    typeof clock.setTimeout !== "function" || typeof clock.clearTimeout !== "function"
  ) {
    throw invalid("clock must be an object with now(), setTimeout() and clearTimeout()");
  }

  return {
    url,
    host: new URL(url).host,
    runtimeKey: raw.runtimeKey,
    userAgent: userAgent(),
    orgId,
    projectId,
    env,
    verify: publicKey === null ? null : { algorithm: "ECDSA_SHA_256", publicKey },
    intervalMs: duration(poll?.intervalMs, "poll.intervalMs", DEFAULT_POLL_INTERVAL_MS),
    requestTimeoutMs: duration(
      raw.requestTimeoutMs,
      "requestTimeoutMs",
      DEFAULT_REQUEST_TIMEOUT_MS,
    ),
    maxBackoffMs: duration(raw.maxBackoffMs, "maxBackoffMs", DEFAULT_MAX_BACKOFF_MS),
    startTimeoutMs: duration(raw.startTimeoutMs, "startTimeoutMs", DEFAULT_START_TIMEOUT_MS),
    maxFileBytes,
    cachePath: cachePath ?? null,
    onError: optionalFunction(raw.onError, "onError"),
    onPoll: optionalFunction(raw.onPoll, "onPoll"),
    fetch: optionalFunction<FetchFunction>(raw.fetch, "fetch") ??
      ((input, init) => fetch(input, init)),
    clock: clock as unknown as Clock,
    random: optionalFunction<() => number>(raw.random, "random") ?? Math.random,
    // The bundle slot reads parseCustomEffect and contextPolicy from these.
    slotOptions: options,
  };
}

const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (callback, delayMs) => setTimeout(callback, delayMs),
  clearTimeout: (handle) => clearTimeout(handle as number),
};
