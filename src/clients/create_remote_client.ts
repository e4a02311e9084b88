/**
 * The remote client: polls plain HTTP origins for the project's bundle
 * (`docs/remote.md`), verifies every candidate with the same
 * load pipeline as the local client, and evaluates in-process. Its parts:
 * `remote_client_options.ts` (the options) and `_remote_options.ts` (their
 * check), `_origin_failover.ts` (one poll across the origins),
 * `_poll_delay.ts` and `_poll_timer.ts` (the schedule), `_cache_start.ts`
 * (start-up from the cache file).
 *
 * Uses only web standards (`fetch`, `AbortController`, `setTimeout`) and,
 * for `cachePath`, `node:fs/promises`, so it runs on Deno and Node 20+.
 *
 * @module
 */
import { type ErrorCode, PolicyError } from "../public/policy_error.ts";
import { restateError } from "../_internal/restate_error.ts";
import type { Decision, EvaluationRequest } from "../engine/types.ts";
import type { LoadedBundle } from "../verify/load_bundle.ts";
import { acceptRemoteBundle } from "./_accept_remote_bundle.ts";
import { BundleSlot } from "./_bundle_slot.ts";
import { callSafely } from "../_internal/call_safely.ts";
import { ClientEvents } from "./_client_events.ts";
import {
  FRESHNESS_RECORD_TYPE,
  freshnessRecordPath,
  touchCacheFile,
  writeCacheFile,
  writeFreshnessRecord,
} from "./_cache_file.ts";
import {
  type CachedBundle,
  loadCachedBundle,
  newerCachedBundle,
  statementsAtStart,
} from "./_cache_start.ts";
import { FreshnessMemory } from "./_freshness_memory.ts";
import {
  asPolicyError,
  type OriginFailure,
  type OriginSuccess,
  type PollAttempt,
  pollOrigins,
} from "./_origin_failover.ts";
import { pollDelay } from "./_poll_delay.ts";
import { DEGRADED_AFTER_FAILURES } from "./remote_defaults.ts";
import { PollTimer } from "./_poll_timer.ts";
import { type Origin, type RemoteConfig, resolveRemoteOptions } from "./_remote_options.ts";
import type { ClientListener, PolicyClient, RemoteClientStatus } from "./types.ts";
import { describeThrown } from "../_internal/describe_thrown.ts";
import type { Clock } from "../public/clock.ts";
import { clientState, type LoadAttempt, startLoad } from "./_client_telemetry.ts";
import type { PollResult, RemoteClientOptions } from "./remote_client_options.ts";

// The library's one clock (src/public/clock.ts), public with the option that takes it.
export type { Clock };
// The options and what `onPoll` receives: apart, as `_remote_options.ts` reads them too.
export type { PollResult, RemoteClientOptions };

/** What `refresh()` resolves with: the poll's result, or `closed` when `close()` ended it. */
export type RefreshResult = PollResult | {
  /** The client was closed: nothing was polled, or the poll was aborted. */
  outcome: "closed";
  httpStatus: null;
  error: null;
  servedBy: null;
  /** The client's status. */
  status: RemoteClientStatus;
};

/** A client whose bundle comes from a control plane. */
export interface RemoteClient extends PolicyClient {
  /** The bundle in force, plus the polling state. */
  status(): RemoteClientStatus;
  /**
   * Polls now, or joins the poll in flight, and resolves with its result;
   * the next scheduled poll counts from this one. Never rejects: a failure
   * is in the result (and went to `onError`). After `close()` it polls
   * nothing and resolves with `outcome: "closed"`.
   */
  refresh(): Promise<RefreshResult>;
}

/**
 * Creates a client that fetches the bundle of `orgId`/`projectId`/`env` from
 * `GET {baseUrl}/v1/{orgId}/{projectId}/{env}/bundle.json`, and resolves
 * once a verified bundle is in force. It then polls every `poll.intervalMs`
 * with `If-None-Match`, backing off after failures; a failed poll calls
 * `onError` and keeps the bundle in force. See docs/remote.md and
 * docs/operations.md.
 *
 * Every option is checked first, key material included: a mistake fails
 * before any request. Start-up: the origins are tried in order and must
 * give a verified bundle of the client's scope. If they all fail and
 * `cachePath` holds one that verifies, the client starts from it,
 * degraded, and keeps polling; otherwise creation rejects with the first
 * origin's failure. It never takes longer than `startTimeoutMs`.
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
 *   verify: { algorithm: "ECDSA_SHA_256", publicKey: pair.publicKey, keyId: "cp-1" },
 *   fetch: (url) => {
 *     assert.equal(url, "https://control-plane.example/v1/acme/shop/prod/bundle.json");
 *     return Promise.resolve(new Response(JSON.stringify(bundle), { headers: { etag: '"v1"' } }));
 *   },
 * });
 * const target = { service: "shop", resource: "cart", action: "checkout" };
 * assert.equal(client.evaluate({ target }).decision, "allow");
 * const status = client.status();
 * assert.equal(status.degraded, false);
 * if (status.source === "network") assert.equal(status.servedBy, "https://control-plane.example/");
 * assert.equal((await client.refresh()).outcome, "unchanged");
 * await client.close();
 * ```
 */
export async function createRemoteClient(options: RemoteClientOptions): Promise<RemoteClient> {
  const client = new RemoteClientImpl(await resolveRemoteOptions(options));
  await client.start();
  return client;
}

/** A settled poll: what {@link RemoteClientImpl.finish} records. */
type Settled = Exclude<PollAttempt, { kind: "aborted" }>;

class RemoteClientImpl implements RemoteClient {
  readonly #config: RemoteConfig;
  readonly #timer: PollTimer;
  #slot: BundleSlot | null = null;
  /** The exact bytes of the bundle in force. */
  #bytes: Uint8Array | null = null;
  /** The ETag each origin gave for the bundle in force: the only one sent back to it. */
  readonly #etags = new Map<Origin, string>();
  #source: "network" | "cache" = "network";
  /** The origin that last served or confirmed the bundle in force (null from the cache). */
  #servedBy: Origin | null = null;
  /** The cache file holds the bundle in force. */
  #cacheCurrent = false;
  /**
   * Whether a statement is required of every bundle: once one was in force,
   * here or (read at start-up from the freshness record or the cache file)
   * in an earlier run with the same `cachePath`.
   */
  #memory: FreshnessMemory;
  /** The freshness record beside the cache file says so already. */
  #recorded = false;
  #failures = 0;
  #lastFailureUnauthorized = false;
  #lastSuccessAt: number | null = null;
  /**
   * When an origin last confirmed the bundle in force, on the monotonic
   * clock (staleness is measured on it), and on the wall clock (for
   * messages and the cache file's time).
   */
  #confirmedAt = 0;
  #confirmedAtWall = 0;
  #lastError: { code: ErrorCode; at: number } | null = null;
  #firstFailure: PolicyError | null = null;
  #controller: AbortController | null = null;
  #starting: Promise<void> | null = null;
  #polling: Promise<RefreshResult> | null = null;
  #closed = false;
  #closing: Promise<void> | null = null;
  /** The listeners of `subscribe`, and what they were last told (kept only while there are some). */
  readonly #events = new ClientEvents((listening) => this.#listeningChanged(listening));
  #told = { degraded: false, stale: false };
  /** With listeners and `maxStalenessMs`: fires when the bundle in force goes stale. */
  readonly #staleTimer: PollTimer;
  /** The poll in progress, for the telemetry (its span and update record). */
  #load: LoadAttempt | null = null;
  /** Removes this client from the telemetry's gauges. */
  #unobserve: () => void = () => {};

  constructor(config: RemoteConfig) {
    this.#config = config;
    this.#memory = new FreshnessMemory(null, this.#undoStatements());
    this.#timer = new PollTimer(config.clock);
    this.#staleTimer = new PollTimer(config.clock);
  }

  evaluate(request: EvaluationRequest): Decision {
    if (this.#config.maxStalenessMs !== null && this.#stale()) {
      this.#config.telemetry?.recordEvaluationError("BUNDLE_STALE");
      throw this.#staleError();
    }
    return this.#slot!.current.evaluate(request);
  }

  status(): RemoteClientStatus {
    const bundle = this.#slot!.current.status;
    const refused = this.#slot!.rollbackRefused;
    const fromCache = this.#source === "cache";
    const { degraded, stale } = this.#state();
    return {
      origin: "remote",
      bundleVersion: bundle.bundleVersion,
      checksum: bundle.checksum,
      etag: bundle.etag,
      env: bundle.env,
      signature: { ...bundle.signature },
      freshness: bundle.freshness === null ? null : { ...bundle.freshness },
      policies: bundle.policies,
      degraded,
      stale,
      expired: this.#slot!.expired,
      consecutiveFailures: this.#failures,
      lastSuccessAt: iso(this.#lastSuccessAt),
      lastErrorCode: this.#lastError?.code ?? null,
      lastErrorAt: iso(this.#lastError?.at ?? null),
      source: this.#source,
      servedBy: fromCache ? null : this.#servedBy!.base,
      nextPollAt: iso(this.#timer.dueAt),
      rollbackRefused: refused === null ? null : { ...refused },
    } as RemoteClientStatus;
  }

  refresh(): Promise<RefreshResult> {
    if (this.#closed) return Promise.resolve(this.#closedResult());
    if (this.#polling === null) {
      this.#timer.cancel();
      this.#polling = this.#pollOnce();
    }
    return this.#polling;
  }

  subscribe(listener: ClientListener): () => void {
    return this.#events.subscribe(listener);
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
    this.#unobserve();
    this.#load?.abandoned();
    this.#timer.cancel();
    this.#slot?.close();
    this.#events.close();
    this.#staleTimer.cancel();
    this.#controller?.abort(new Error("the remote client was closed"));
    // Wait for the aborted request (and a cache write) to settle, so that
    // nothing outlives close(): no timer, no socket, no file handle.
    await Promise.all([this.#starting?.catch(() => {}), this.#polling]);
  }

  /** Start-up: resolves once a bundle is in force, or rejects (and closes). */
  async start(): Promise<void> {
    const { clock, startTimeoutMs } = this.#config;
    let deadlineHandle: unknown;
    const deadline = new Promise<never>((_, reject) => {
      deadlineHandle = clock.setTimeout(() => reject(this.#startTimeoutError()), startTimeoutMs);
    });
    const work = this.#startWork();
    this.#starting = work;
    try {
      await Promise.race([work, deadline]);
    } catch (error) {
      this.#load?.failed(error);
      this.#closed = true;
      this.#timer.cancel();
      this.#slot?.close();
      this.#controller?.abort(new Error("the remote client did not start"));
      work.catch(() => {});
      throw error;
    } finally {
      clock.clearTimeout(deadlineHandle);
      this.#starting = null;
    }
    const { telemetry } = this.#config;
    if (telemetry !== null && !this.#closed) {
      this.#unobserve = telemetry.observeClient(() =>
        clientState(this.status(), clock, this.#failures)
      );
    }
  }

  /** How an operator stops requiring statements, for messages. */
  #undoStatements(): string {
    const { cachePath } = this.#config;
    return cachePath === null
      ? "restart the client"
      : `stop the client and delete its freshness record ${
        freshnessRecordPath(cachePath)
      } and its cache file ${cachePath}`;
  }

  async #startWork(): Promise<void> {
    const { cachePath: recordOf } = this.#config;
    if (recordOf !== null) {
      // Before any bundle is accepted: a statement once in force stays required.
      const known = await statementsAtStart(recordOf, this.#config.maxFileBytes);
      this.#memory = new FreshnessMemory(known.because, this.#undoStatements());
      this.#recorded = known.recorded;
      if (this.#closed) return;
    }
    const attempt = await this.#pollOrigins();
    if (this.#closed || attempt.kind === "aborted") return;
    const success = attempt.kind === "success" && attempt.success.kind === "updated"
      ? attempt.success
      : null;
    const { cachePath } = this.#config;
    if (success !== null) {
      // The cache keeps the highest: a newer verified bundle there wins over an older one.
      let newer = cachePath === null || this.#config.allowRollback
        ? null
        : await newerCachedBundle(cachePath, this.#config, success.loaded.status);
      if (this.#closed) return;
      // A cache bundle stripped of its statement is not taken over the origin's.
      if (newer !== null && this.#memory.refuse(newer.loaded.status, "the cache") !== null) {
        newer = null;
      }
      if (newer !== null) {
        this.#installFromCache(newer);
        const refusal = this.#slot!.refuse(
          success.loaded.status,
          `the bundle served at ${success.origin.url}`,
        );
        if (refusal !== null) {
          this.#finish({ kind: "failed", failures: [failure(success.origin, refusal, 200)] });
          return;
        }
      }
      this.#install(success.loaded, success.bytes, success);
      await this.#syncCache();
      if (!this.#closed) this.#finish(attempt);
      return;
    }
    const failures = attempt.kind === "failed" ? attempt.failures : [failure(
      this.#config.origins[0]!,
      new PolicyError("REMOTE_UNAVAILABLE", "the control plane sent no bundle"),
      attempt.kind === "success" ? attempt.success.httpStatus : null,
    )] as [OriginFailure];
    const first = failures[0].error;
    this.#firstFailure = first;
    const others = failures.slice(1).map((f) => `${f.origin.url} (${f.error.code})`);
    const summary = others.length === 0
      ? ""
      : `; the other origins failed too: ${others.join(", ")}`;
    if (cachePath === null) {
      throw others.length === 0 ? first : restateError(first, `${first.message}${summary}`);
    }
    let cached: CachedBundle;
    try {
      cached = await loadCachedBundle(cachePath, this.#config);
      const refusal = this.#memory.refuse(cached.loaded.status, `the cache file ${cachePath}`);
      if (refusal !== null) throw refusal;
    } catch (cacheError) {
      throw restateError(
        first,
        `${first.message}${summary}; the cache file could not be used either: ${
          describeThrown(cacheError)
        }`,
      );
    }
    if (this.#closed) return;
    this.#installFromCache(cached);
    this.#finish({ kind: "failed", failures });
  }

  #startTimeoutError(): PolicyError {
    const first = this.#firstFailure;
    const message =
      `no verified bundle within startTimeoutMs (${this.#config.startTimeoutMs} ms) from ${
        this.#config.origins.map((origin) => origin.url).join(", ")
      }`;
    return first === null
      ? new PolicyError("REMOTE_UNAVAILABLE", message)
      : restateError(first, `${message}: ${first.message}`);
  }

  /** One scheduled or requested poll; never rejects. */
  async #pollOnce(): Promise<RefreshResult> {
    let attempt: PollAttempt;
    try {
      attempt = await this.#pollOrigins();
      if (this.#closed || attempt.kind === "aborted") return this.#closedResult();
      if (attempt.kind === "success") {
        const { success } = attempt;
        if (success.kind === "updated") this.#install(success.loaded, success.bytes, success);
        await this.#syncCache();
      }
    } catch (error) {
      // Not expected: every failure is an attempt. Keep polling regardless.
      attempt = {
        kind: "failed",
        failures: [failure(
          this.#config.origins[0]!,
          new PolicyError("REMOTE_UNAVAILABLE", `the poll failed unexpectedly: ${error}`, {
            cause: error,
          }),
          null,
        )],
      };
    }
    if (this.#closed) return this.#closedResult();
    return this.#finish(attempt);
  }

  #pollOrigins(): Promise<PollAttempt> {
    this.#load = startLoad(this.#config.telemetry ?? undefined, this.#config.clock, "remote");
    return pollOrigins({
      span: this.#load.span,
      config: this.#config,
      bytesInForce: this.#bytes,
      etagOf: (origin) => this.#etags.get(origin) ?? null,
      accept: async (bytes, what) => {
        const loaded = await acceptRemoteBundle(
          bytes,
          what,
          this.#config,
          this.#slot?.current.loaded,
        );
        const refusal = this.#slot === null
          ? this.#memory.refuse(loaded.status, what)
          : this.#slot.refuse(loaded.status, what);
        if (refusal !== null) throw refusal;
        return loaded;
      },
      track: (controller) => this.#controller = controller,
      closed: () => this.#closed,
    });
  }

  /** Puts a bundle from an origin in force. */
  #install(loaded: LoadedBundle, bytes: Uint8Array, from: OriginSuccess): void {
    const previous = this.#put(loaded, bytes);
    if (from.etag !== null) this.#etags.set(from.origin, from.etag);
    this.#source = "network";
    this.#servedBy = from.origin;
    this.#confirmed(this.#config.clock);
    if (previous !== null) this.#events.reloaded(previous, loaded, () => this.status());
  }

  /** An origin confirmed the bundle in force now. */
  #confirmed(clock: Clock): void {
    this.#confirmedAt = clock.now();
    this.#lastSuccessAt = this.#confirmedAtWall = clock.wallNow();
  }

  /** Puts the cache file's bundle in force: degraded until an origin confirms one. */
  #installFromCache(cached: CachedBundle): void {
    // Only at start-up, before anyone can subscribe: no event.
    this.#put(cached.loaded, cached.bytes);
    this.#source = "cache";
    this.#servedBy = null;
    // The cache file's time is from disk, on the wall clock: its age counts
    // from now on the monotonic clock, and a time in the future is never
    // trusted (it is taken as now, so the bound still ends maxStalenessMs
    // after start; docs/security.md "Freshness").
    const { clock } = this.#config;
    const wallNow = clock.wallNow();
    this.#confirmedAtWall = Math.min(cached.confirmedAt, wallNow);
    this.#confirmedAt = clock.now() - (wallNow - this.#confirmedAtWall);
    this.#cacheCurrent = true;
  }

  /** Puts a bundle in force; returns the one it replaced, or null for the first. */
  #put(loaded: LoadedBundle, bytes: Uint8Array): LoadedBundle | null {
    const config = this.#config;
    let previous: LoadedBundle | null = null;
    if (this.#slot === null) {
      this.#slot = new BundleSlot(
        loaded,
        config.slotOptions,
        {
          now: () => config.clock.wallNow(),
          random: () => config.random(),
        },
        config.clock,
        this.#memory,
      );
      this.#slot.onExpired = (error) => {
        this.#events.emit(() => ({ type: "expired", error, status: this.status() }));
      };
    } else {
      previous = this.#slot.replace(loaded);
    }
    this.#bytes = bytes;
    this.#etags.clear();
    this.#cacheCurrent = false;
    return previous;
  }

  /**
   * After a successful poll: writes the freshness record when statements
   * became required and it does not say so yet, then the bundle in force to
   * `cachePath` unless it holds it already, and with `maxStalenessMs` records
   * the confirmation as the file's modification time.
   */
  async #syncCache(): Promise<void> {
    const { cachePath, maxStalenessMs, clock } = this.#config;
    if (cachePath === null || this.#bytes === null) return;
    try {
      const inForce = this.#slot!.current.status;
      if (this.#memory.required && !this.#recorded && inForce.freshness !== null) {
        // Before the cache: a restart between the two still finds the statement required.
        const first = this.#memory.first;
        await writeFreshnessRecord(cachePath, {
          type: FRESHNESS_RECORD_TYPE,
          requireFreshness: true,
          since: new Date(first?.at ?? clock.wallNow()).toISOString(),
          bundleVersion: first?.bundleVersion ?? inForce.freshness.bundleVersion,
          checksum: first?.checksum ?? inForce.checksum,
          orgId: this.#config.orgId,
          projectId: this.#config.projectId,
          env: this.#config.env,
        }, clock);
        this.#recorded = true;
      }
      if (!this.#cacheCurrent) {
        await writeCacheFile(cachePath, this.#bytes, clock);
        this.#cacheCurrent = true;
      }
      if (maxStalenessMs !== null) await touchCacheFile(cachePath, clock.wallNow());
    } catch (error) {
      // Written again after the next successful poll.
      this.#cacheCurrent = false;
      callSafely(this.#config.onError, asPolicyError(error));
    }
  }

  /** Records a settled poll, schedules the next and tells the callbacks. Synchronous. */
  #finish(attempt: Settled): PollResult {
    const { clock } = this.#config;
    const first = attempt.failures[0];
    if (attempt.kind === "failed") {
      this.#failures += 1;
      this.#lastFailureUnauthorized = attempt.failures.every((f) =>
        f.error.code === "REMOTE_UNAUTHORIZED"
      );
      this.#lastError = { code: first!.error.code, at: clock.wallNow() };
    } else {
      const { success } = attempt;
      this.#failures = 0;
      this.#lastFailureUnauthorized = false;
      this.#confirmed(clock);
      this.#servedBy = success.origin;
      // Even the same bytes as the cache file, confirmed by an origin, are synchronised.
      this.#source = "network";
      // A 200 with the same bytes: remember the origin's current ETag (or its absence).
      if (success.kind === "unchanged" && success.httpStatus === 200) {
        if (success.etag === null) this.#etags.delete(success.origin);
        else this.#etags.set(success.origin, success.etag);
      }
    }
    this.#polling = null;
    this.#timer.schedule(
      pollDelay({
        failures: this.#failures,
        intervalMs: this.#config.intervalMs,
        maxBackoffMs: this.#config.maxBackoffMs,
        unauthorized: this.#lastFailureUnauthorized,
        retryAfterMs: attempt.kind === "failed" ? first!.retryAfterMs : null,
        random: this.#config.random(),
      }),
      () => void this.refresh(),
    );
    for (const { error } of attempt.failures) callSafely(this.#config.onError, error);
    const status = this.status();
    const load = this.#load;
    this.#load = null;
    if (attempt.kind === "failed") load?.failed(first!.error);
    else load?.succeeded(attempt.success.kind, this.#slot!.current.status);
    const result: PollResult = attempt.kind === "failed"
      ? {
        outcome: "failed",
        httpStatus: first!.httpStatus,
        error: first!.error,
        servedBy: null,
        status,
      }
      : attempt.success.kind === "updated"
      ? {
        outcome: "updated",
        httpStatus: 200,
        error: null,
        servedBy: attempt.success.origin.base,
        status,
      }
      : {
        outcome: "unchanged",
        httpStatus: attempt.success.httpStatus,
        error: null,
        servedBy: attempt.success.origin.base,
        status,
      };
    callSafely(this.#config.onPoll, result);
    this.#checkState();
    return result;
  }

  #closedResult(): RefreshResult {
    return {
      outcome: "closed",
      httpStatus: null,
      error: null,
      servedBy: null,
      status: this.status(),
    };
  }

  /** The degraded and stale flags of `status()`. */
  #state(): { degraded: boolean; stale: boolean } {
    return {
      degraded: this.#source === "cache" || this.#failures >= DEGRADED_AFTER_FAILURES,
      stale: this.#config.maxStalenessMs !== null && this.#stale(),
    };
  }

  /** The first listener came, or the last went. */
  #listeningChanged(listening: boolean): void {
    if (listening) {
      // Listeners hear of changes from now on; the state so far is in status().
      this.#told = this.#state();
      this.#armStaleTimer();
    } else {
      this.#staleTimer.cancel();
    }
  }

  /**
   * Tells the listeners what changed since they were last told: `degraded`,
   * `stale` (each when it turns true), `recovered` (when both turned false),
   * then re-arms the staleness timer. Called after every poll and by that
   * timer; does nothing without listeners.
   */
  #checkState(): void {
    if (this.#closed || !this.#events.listening) return;
    const was = this.#told;
    const now = this.#told = this.#state();
    if (now.degraded && !was.degraded) {
      this.#events.emit(() => ({ type: "degraded", status: this.status() }));
    }
    if (now.stale && !was.stale) {
      this.#events.emit(() => ({ type: "stale", status: this.status() }));
    }
    if ((was.degraded || was.stale) && !now.degraded && !now.stale) {
      this.#events.emit(() => ({ type: "recovered", status: this.status() }));
    }
    this.#armStaleTimer();
  }

  /**
   * Staleness comes with time, not with a poll: while there are listeners
   * and the bundle in force is not stale yet, a timer on the client's clock
   * fires 1 ms after it turns stale (re-armed at every confirmation).
   */
  #armStaleTimer(): void {
    const max = this.#config.maxStalenessMs;
    if (max === null || this.#closed || !this.#events.listening || this.#told.stale) {
      this.#staleTimer.cancel();
      return;
    }
    const due = this.#confirmedAt + max + 1 - this.#config.clock.now();
    // The timer cuts a delay to what a timer can hold, and this re-arms when it fires early.
    this.#staleTimer.schedule(Math.max(0, due), () => this.#checkState());
  }

  /** The bundle in force was last confirmed longer ago than `maxStalenessMs`. */
  #stale(): boolean {
    return this.#config.clock.now() - this.#confirmedAt > this.#config.maxStalenessMs!;
  }

  #staleError(): PolicyError {
    return new PolicyError(
      "BUNDLE_STALE",
      `the bundle in force was last confirmed by the control plane at ${
        new Date(this.#confirmedAtWall).toISOString()
      }, longer ago than maxStalenessMs (${this.#config.maxStalenessMs} ms); evaluate fails closed until a poll succeeds (see status().lastErrorCode for why polls fail)`,
    );
  }
}

function iso(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}

function failure(origin: Origin, error: PolicyError, httpStatus: number | null): OriginFailure {
  return { kind: "failed", origin, httpStatus, error, retryAfterMs: null };
}
