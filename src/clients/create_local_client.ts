/**
 * The local client: a bundle read from a file on disk, verified, evaluated
 * in-process, and optionally watched for changes. See `docs/local-client.md`.
 *
 * Uses `node:fs/promises` and web standards only (never the `Deno`
 * namespace), so it runs on Deno and on Node 20+. On Deno it needs read
 * permission for the bundle file and nothing else.
 *
 * @module
 */
import { isPolicyError, PolicyError } from "../public/policy_error.ts";
import type { Decision, EvaluationRequest } from "../engine/types.ts";
import {
  DEFAULT_MAX_FILE_BYTES,
  loadBundle,
  type LoadBundleOptions,
  type LoadedBundle,
} from "../verify/load_bundle.ts";
import { BundleSlot } from "./_bundle_slot.ts";
import { callSafely } from "../_internal/call_safely.ts";
import { ClientEvents } from "./_client_events.ts";
import {
  booleanField,
  checkOptions,
  describeValue,
  type Fields,
  MAX_DELAY_MS,
  objectField,
  required,
  stringField,
} from "../_internal/check_options.ts";
import { COMMON_FIELDS, importTrustedKeys } from "./_check_client_options.ts";
import { type BundleFile, racyBytes, readBundleFile, readError } from "./_read_bundle_file.ts";
import { statVersion } from "../io/file_version.ts";
import { sameBytes } from "./_same_bytes.ts";
import { systemErrorCode } from "../io/system_error.ts";
import type { ClientListener, ClientOptions, LocalClientStatus, PolicyClient } from "./types.ts";
import { describeThrown } from "../_internal/describe_thrown.ts";
import { type Clock, SYSTEM_CLOCK } from "../public/clock.ts";
import { clockField } from "../_internal/check_options.ts";
import { clientState, type LoadAttempt, startLoad } from "./_client_telemetry.ts";
import type { Telemetry } from "../telemetry/types.ts";

/** Poll interval of `watch: true` and `watch: {}`: one second. */
export const DEFAULT_WATCH_INTERVAL_MS = 1000;

/** How the local client watches its bundle file. */
export interface WatchOptions {
  /**
   * Milliseconds between the end of one check of the file and the start of the
   * next. Default {@link DEFAULT_WATCH_INTERVAL_MS} (1000).
   */
  intervalMs?: number;
}

/** Options of {@link createLocalClient}. */
export interface LocalClientOptions extends ClientOptions {
  /**
   * Path of the bundle file. A relative path resolves from the current
   * directory, at every read. Symlinks are followed.
   */
  bundlePath: string;
  /**
   * Poll the file and reload it when it changes. `true` or `{}` polls every
   * {@link DEFAULT_WATCH_INTERVAL_MS} ms; absent or `false` reads the file once.
   * A change is any change of the file's modification time, size, inode,
   * device or change time, so writes by atomic rename and symlink swaps are
   * seen. A reload that fails calls `onError` and keeps the bundle in force.
   */
  watch?: boolean | WatchOptions;
  /**
   * The clock and timers to use (docs/local-client.md "Options"). Default:
   * the system clock. The watch interval runs on its timers; the file's
   * modification time is compared with its `wallNow()`.
   */
  clock?: Clock;
}

/** A client whose bundle comes from a file. */
export interface LocalClient extends PolicyClient {
  /** The bundle in force, and the last older bundle refused. */
  status(): LocalClientStatus;
}

/** `watch: { intervalMs }`: 1 ms to 2^31 - 1 ms (setTimeout fires at once beyond). */
const WATCH_OBJECT = objectField({
  intervalMs: {
    check: (value) =>
      typeof value === "number" && Number.isFinite(value) && value >= 1 && value <= MAX_DELAY_MS
        ? undefined
        : `must be a number of milliseconds from 1 to ${MAX_DELAY_MS}; got ${describeValue(value)}`,
  },
}, "{ intervalMs }, or true or false");

/** The local client's fields, on top of the common ones. */
const LOCAL_FIELDS: Fields = {
  ...COMMON_FIELDS,
  bundlePath: required(stringField),
  allowUnsigned: booleanField,
  clock: clockField,
  watch: {
    check: (value, name) =>
      typeof value === "boolean" ? undefined : WATCH_OBJECT.check(value, name),
  },
};

/**
 * Creates a client for the bundle file at `options.bundlePath`. The file is
 * read once, here: its size is checked with `stat` before it is read
 * (`BUNDLE_TOO_LARGE` over `maxFileBytes`, default 8 MiB), then it goes
 * through the load pipeline (parse, validation, checksum, signature). The
 * promise rejects with the `PolicyError` of the first failing check; a
 * missing or unreadable file, or a denied permission, is `BUNDLE_READ_ERROR`.
 *
 * With `watch`, the file is polled (see {@link LocalClientOptions.watch}); the
 * poll timer keeps the process alive until `close()`.
 *
 * Every option is checked first, key material included, before the file
 * is read: an unknown option (`watch: { interval: 5 }`) or a key that
 * cannot be imported fails at once.
 *
 * @throws {PolicyError} `INVALID_OPTIONS`, `INVALID_KEY`, or a bundle load code.
 *
 * @example Evaluating a bundle file
 * ```ts ignore
 * import { createLocalClient } from "./create_local_client.ts";
 *
 * await using client = await createLocalClient({
 *   bundlePath: "./policy-bundle.json",
 *   verify: { algorithm: "ECDSA_SHA_256", publicKey: await Deno.readTextFile("./public.pem") },
 *   watch: { intervalMs: 2000 },
 *   onError: (error) => console.warn(`bundle reload failed: ${error.code}`),
 * });
 * const decision = client.evaluate({
 *   target: { service: "billing", resource: "invoice", action: "create" },
 *   context: { plan: "pro" },
 * });
 * ```
 *
 * @example An unsigned bundle, allowed
 * ```ts
 * import { createLocalClient } from "./create_local_client.ts";
 * import assert from "node:assert/strict";
 *
 * const bundlePath = new URL("../../examples/bundle.json", import.meta.url).pathname;
 * const client = await createLocalClient({ bundlePath, allowUnsigned: true });
 * const target = { service: "billing", resource: "invoice", action: "create" };
 * assert.equal(client.evaluate({ target, context: { plan: "pro" } }).decision, "allow");
 * assert.equal(client.status().origin, "local");
 * assert.equal(client.status().signature.status, "unsigned");
 * await client.close();
 *
 * await assert.rejects(
 *   createLocalClient({ bundlePath: "./no-such-bundle.json", allowUnsigned: true }),
 *   { code: "BUNDLE_READ_ERROR" },
 * );
 * ```
 */
export async function createLocalClient(options: LocalClientOptions): Promise<LocalClient> {
  checkOptions(options, LOCAL_FIELDS, "createLocalClient");
  const verify = await importTrustedKeys(options.verify);
  const { bundlePath } = options;
  const watch = options.watch;
  const intervalMs = watch === undefined || watch === false
    ? null
    : watch === true
    ? DEFAULT_WATCH_INTERVAL_MS
    : watch.intervalMs ?? DEFAULT_WATCH_INTERVAL_MS;
  const maxFileBytes = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
  const clock = options.clock ?? SYSTEM_CLOCK;
  // One object for every load, with the keys imported once.
  const loadOptions: LoadBundleOptions = {
    maxFileBytes,
    clock,
    ...(verify !== undefined && { verify }),
    ...(options.allowUnsigned !== undefined && { allowUnsigned: options.allowUnsigned }),
    ...(options.requireFreshness !== undefined && { requireFreshness: options.requireFreshness }),
    ...(options.clockSkewMs !== undefined && { clockSkewMs: options.clockSkewMs }),
  };
  const telemetry = options.telemetry;
  const load = startLoad(telemetry, clock, "local");
  let file: BundleFile;
  let loaded: LoadedBundle;
  try {
    file = await readBundleFile(bundlePath, maxFileBytes);
    loaded = await loadBundle(file.bytes, loadOptions);
  } catch (error) {
    load.failed(error);
    throw error;
  }
  load.succeeded("updated", loaded.status);
  // A copy: changing the caller's object later changes nothing, reloads included.
  const slot = new BundleSlot(loaded, { ...options }, {
    now: () => clock.wallNow(),
    random: Math.random,
  }, clock);
  return new LocalClientImpl({
    bundlePath,
    maxFileBytes,
    loadOptions,
    slot,
    version: file.version,
    racy: racyBytes(file, clock.wallNow()),
    intervalMs,
    clock,
    onError: options.onError ?? defaultOnError(bundlePath),
    telemetry,
  });
}

/** Without `onError`, a failed reload is still visible: one warning on the console. */
function defaultOnError(bundlePath: string): (error: PolicyError) => void {
  return (error) => {
    console.warn(
      `policy: reloading "${bundlePath}" failed (${error.code}): ${error.message}; the previous bundle stays in force`,
    );
  };
}

interface LocalClientInit {
  bundlePath: string;
  maxFileBytes: number;
  loadOptions: LoadBundleOptions;
  slot: BundleSlot;
  version: string;
  /** The bytes read at creation, while the file is racy (see `racyBytes`). */
  racy: Uint8Array | null;
  intervalMs: number | null;
  clock: Clock;
  onError: (error: PolicyError) => void;
  telemetry: Telemetry | undefined;
}

/** `error` itself, or, should anything else ever be thrown, a PolicyError wrapping it. */
function asPolicyError(error: unknown, bundlePath: string): PolicyError {
  if (isPolicyError(error)) return error;
  const detail = describeThrown(error);
  return new PolicyError(
    "BUNDLE_READ_ERROR",
    `reloading the bundle file "${bundlePath}" failed: ${detail}`,
    { cause: error },
  );
}

/** The version key of a path that cannot be statted, by error code. */
const unreadable = (error: unknown) => `unreadable:${systemErrorCode(error) ?? String(error)}`;

class LocalClientImpl implements LocalClient {
  readonly #init: LocalClientInit;
  readonly #slot: BundleSlot;
  /**
   * The last state of the file acted upon: a file version (loaded, or whose
   * load failed) or `unreadable:<code>`. A poll that sees the same state again
   * does nothing: an unchanged file is not re-read, and one failure is reported
   * once.
   */
  #seen: string;
  /**
   * The bytes last read, kept while the file was read too soon after its last
   * change to trust its stat: a same-size rewrite in the same timestamp tick
   * leaves the stat unchanged, so checks compare bytes until the window ends.
   */
  #racy: Uint8Array | null;
  #timer: unknown;
  #polling: Promise<void> | undefined;
  #closed = false;
  readonly #events = new ClientEvents();
  /** Failed reloads since the last successful one (for the telemetry's gauges). */
  #failures = 0;
  /** Removes this client from the telemetry's gauges. */
  readonly #unobserve: () => void;

  constructor(init: LocalClientInit) {
    this.#init = init;
    this.#slot = init.slot;
    this.#seen = init.version;
    this.#racy = init.racy;
    this.#slot.onExpired = (error) => {
      this.#events.emit(() => ({ type: "expired", error, status: this.status() }));
    };
    this.#unobserve =
      init.telemetry?.observeClient(() => clientState(this.status(), init.clock, this.#failures)) ??
        (() => {});
    this.#schedule();
  }

  evaluate(request: EvaluationRequest): Decision {
    return this.#slot.current.evaluate(request);
  }

  status(): LocalClientStatus {
    const { status } = this.#slot.current;
    const refused = this.#slot.rollbackRefused;
    return {
      origin: "local",
      ...status,
      signature: { ...status.signature },
      freshness: status.freshness === null ? null : { ...status.freshness },
      expired: this.#slot.expired,
      rollbackRefused: refused === null ? null : { ...refused },
    };
  }

  subscribe(listener: ClientListener): () => void {
    return this.#events.subscribe(listener);
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#unobserve();
    this.#slot.close();
    this.#events.close();
    if (this.#timer !== undefined) {
      this.#init.clock.clearTimeout(this.#timer);
      this.#timer = undefined;
    }
    // A check in progress finishes (it touches nothing once closed), so no
    // file operation is left running when close() resolves.
    await this.#polling;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  /** Starts the next check after the interval; a chain, so checks never overlap. */
  #schedule(): void {
    const { intervalMs } = this.#init;
    if (intervalMs === null || this.#closed) return;
    this.#timer = this.#init.clock.setTimeout(() => {
      this.#timer = undefined;
      this.#polling = this.#poll().catch((error) => {
        this.#report(asPolicyError(error, this.#init.bundlePath));
      }).finally(() => {
        this.#polling = undefined;
        this.#schedule();
      });
    }, intervalMs);
  }

  /** One check of the file. Reports its failures itself. */
  async #poll(): Promise<void> {
    const { bundlePath, maxFileBytes, loadOptions } = this.#init;
    let version: string;
    try {
      version = await statVersion(bundlePath);
    } catch (error) {
      const state = unreadable(error);
      if (state !== this.#seen) {
        this.#seen = state;
        this.#report(readError(bundlePath, error));
      }
      return;
    }
    let file: BundleFile;
    let load: LoadAttempt;
    if (version === this.#seen) {
      const racy = this.#racy;
      if (racy === null) return;
      // The stat cannot be trusted yet: compare the bytes. A read that fails
      // here is left to the next check's stat.
      try {
        file = await readBundleFile(bundlePath, maxFileBytes);
      } catch {
        return;
      }
      if (sameBytes(file.bytes, racy)) {
        this.#racy = racyBytes(file, this.#init.clock.wallNow());
        return;
      }
      load = this.#startLoad();
    } else {
      this.#seen = version;
      load = this.#startLoad();
      try {
        file = await readBundleFile(bundlePath, maxFileBytes);
      } catch (error) {
        // Removed between the stat and the read: the next stat fails the same
        // way, and must not report it a second time.
        const code = systemErrorCode(isPolicyError(error) ? error.cause : undefined);
        if (code === "ENOENT" || code === "ENOTDIR") this.#seen = `unreadable:${code}`;
        this.#report(asPolicyError(error, bundlePath), load);
        return;
      }
    }
    // The version of the bytes actually read: the file may have changed since
    // the stat above (then the next check sees it again).
    this.#seen = file.version;
    this.#racy = racyBytes(file, this.#init.clock.wallNow());
    let loaded: LoadedBundle;
    try {
      // The bundle in force lends its compiled form to the same policies (a renewed statement).
      loaded = await loadBundle(file.bytes, { ...loadOptions, inForce: this.#slot.current.loaded });
      const refusal = this.#slot.refuse(loaded.status, `the bundle file "${bundlePath}"`);
      if (refusal !== null) throw refusal;
    } catch (error) {
      this.#report(asPolicyError(error, bundlePath), load);
      return;
    }
    if (this.#closed) return load.abandoned();
    const previous = this.#slot.replace(loaded);
    this.#failures = 0;
    load.succeeded(
      previous.status.checksum === loaded.status.checksum &&
        previous.status.bundleVersion === loaded.status.bundleVersion
        ? "unchanged"
        : "updated",
      loaded.status,
    );
    this.#events.reloaded(previous, loaded, () => this.status());
  }

  /** A reload of a changed file starts (its span and update record, with telemetry). */
  #startLoad(): LoadAttempt {
    return startLoad(this.#init.telemetry, this.#init.clock, "local");
  }

  /**
   * A failed reload: its load span (started here when the failure came
   * before any read: a file that went, a check that threw) and the
   * telemetry's count of it, `onError`, then the `reload-failed` event.
   */
  #report(error: PolicyError, load?: LoadAttempt): void {
    if (this.#closed) return load?.abandoned();
    this.#failures++;
    (load ?? this.#startLoad()).failed(error);
    callSafely(this.#init.onError, error);
    this.#events.emit(() => ({ type: "reload-failed", error, status: this.status() }));
  }
}
