// This module is browser compatible.
/**
 * The OpenFeature web provider: flags resolved in the browser, through
 * `@openfeature/web-sdk`, from a bundle fetched and verified on the page with
 * WebCrypto, or given as bytes (docs/openfeature.md "In the browser").
 *
 * The SDK is a peer dependency: install `@openfeature/web-sdk` (and its peer
 * `@openfeature/core`) beside this package. Nothing else of the package
 * loads it.
 *
 * @example A page's flag from a bundle
 * ```ts
 * import { OpenFeature } from "@openfeature/web-sdk";
 * import { createWebOpenFeatureProvider } from "./create_web_open_feature_provider.ts";
 * import assert from "node:assert/strict";
 *
 * // A page fetches its bundle (`url`) and verifies it with a public key (`verify`); here it is
 * // given as text, unsigned.
 * const bundle = JSON.stringify({
 *   schemaVersion: 1,
 *   env: "prod",
 *   policies: [{
 *     policyKey: "checkout",
 *     activeVersion: 1,
 *     rules: [{
 *       id: "pro-plans",
 *       status: "active",
 *       priority: 10,
 *       target: { service: "checkout", resource: "page", action: "new-flow" },
 *       when: { op: "eq", path: "plan", value: "pro" },
 *       effect: { type: "allow" },
 *     }],
 *   }],
 * });
 * await OpenFeature.setContext({ targetingKey: "cus-2", plan: "pro" });
 * await OpenFeature.setProviderAndWait(createWebOpenFeatureProvider({
 *   bundle,
 *   allowUnsigned: true,
 *   flags: { "new-checkout": { service: "checkout", resource: "page", action: "new-flow" } },
 * }));
 * assert.equal(OpenFeature.getClient().getBooleanValue("new-checkout", false), true);
 * await OpenFeature.setContext({ targetingKey: "cus-3", plan: "free" });
 * assert.equal(OpenFeature.getClient().getBooleanValue("new-checkout", false), false);
 * await OpenFeature.close();
 * ```
 *
 * @module
 */
import {
  type EvaluationContext,
  GeneralError,
  type JsonValue,
  OpenFeatureEventEmitter,
  type Provider,
  ProviderEvents,
  ProviderFatalError,
  type ResolutionDetails,
} from "@openfeature/web-sdk";
import type { ContextPolicy, Decision, EvaluationRequest } from "../engine/types.ts";
import { createEvaluator, EVALUATE_FIELDS } from "../engine/evaluate.ts";
import { isPolicyError, PolicyError } from "../public/policy_error.ts";
import {
  booleanField,
  bytesField,
  checkOptions,
  clockField,
  describeValue,
  type Fields,
  functionField,
  invalidOption,
} from "../_internal/check_options.ts";
import { type Clock, SYSTEM_CLOCK } from "../public/clock.ts";
import { DEFAULT_MAX_FILE_BYTES, loadBundle } from "../verify/load_bundle.ts";
import {
  DEFAULT_CLOCK_SKEW_MS,
  expiredError,
  FRESHNESS_FIELDS,
} from "../verify/verify_freshness.ts";
import { watchExpiry } from "../verify/watch_expiry.ts";
import type { VerifyKeySet } from "../verify/verify_bundle_signature.ts";
import { verifyField } from "../verify/verify_keys.ts";
import { describeFetchFailure } from "../io/describe_fetch_failure.ts";
import { discardBody, readBodyLimited } from "../io/read_body_limited.ts";
import { PACKAGE_NAME } from "../_internal/version.ts";
import {
  type BundleFacts,
  FLAG_MAPPING_FIELDS,
  FlagResolver,
  type FlagType,
} from "./_flag_resolver.ts";
import type { FlagMappingOptions } from "./types.ts";
import type { Telemetry } from "../telemetry/types.ts";
import { telemetryField } from "../telemetry/telemetry_field.ts";
import { flagEvaluation } from "./_flag_telemetry.ts";

export type { FlagMappingOptions, PolicyFlagMetadata } from "./types.ts";
// The telemetry interface of the `telemetry` option (docs/observability.md).
export type * from "../telemetry/types.ts";

/**
 * What {@link createWebOpenFeatureProvider} returns: the `Provider` of
 * `@openfeature/web-sdk`, for `OpenFeature.setProvider`.
 */
export type OpenFeatureWebProvider = Provider;

/** The `fetch` the web provider calls (the page's own unless injected). */
export type WebFetch = (url: string, init: RequestInit) => Promise<Response>;

/** Options of {@link createWebOpenFeatureProvider}: `url` or `bundle`, and how to verify it. */
export interface WebOpenFeatureProviderOptions extends FlagMappingOptions {
  /** Where to fetch the bundle (`GET`, same origin or CORS). Exactly one of `url` and `bundle`. */
  url?: string | URL;
  /** The bundle itself, as bytes or text. Exactly one of `url` and `bundle`. */
  bundle?: Uint8Array | string;
  /**
   * The trusted public key (SPKI PEM text or a `CryptoKey`), or a list of
   * them: the bundle must carry a signature one of them verifies. Never put
   * an HMAC secret in a page.
   */
  verify?: VerifyKeySet;
  /** Accept a bundle without a signature (only when no `verify` key is set). */
  allowUnsigned?: boolean;
  /** Largest bundle accepted, in bytes. Default 8 MiB. */
  maxFileBytes?: number;
  /** Top-level context keys allowed; any other key is `INVALID_CONTEXT`. */
  contextPolicy?: ContextPolicy;
  /** The `fetch` to use. Default: the global `fetch`. */
  fetch?: WebFetch;
  /**
   * Refuse a bundle without a signed freshness statement
   * (`BUNDLE_FRESHNESS_MISSING`); a statement present is always verified,
   * with the `verify` keys (docs/operations.md "Signed freshness"). Default
   * `false`.
   */
  requireFreshness?: boolean;
  /**
   * How far past a statement's `expiresAt` it is still accepted, for clocks
   * that disagree a little: 0 to 86,400,000 ms. Default 60,000.
   */
  clockSkewMs?: number;
  /**
   * The clock and timers (the library's `Clock`): the statement's expiry is
   * watched on its timers and judged on its `wallNow()`. Default: the
   * page's clock (`performance.now()`, `Date.now()`, the global timers).
   */
  clock?: Clock;
  /**
   * Where each resolution is reported as a `feature_flag.evaluation` event
   * of the OpenTelemetry semantic conventions (docs/observability.md
   * "OpenFeature"); `createTelemetry()` of `@policy/runtime/otel`.
   * Default: none.
   */
  telemetry?: Telemetry;
}

const WEB_FIELDS: Fields = {
  ...FLAG_MAPPING_FIELDS,
  url: {
    check: (value) =>
      (typeof value === "string" && value !== "") || value instanceof URL
        ? undefined
        : `must be a URL (a non-empty string, relative to the page, or a URL); got ${
          describeValue(value)
        }`,
  },
  bundle: {
    check: (value) =>
      typeof value === "string" || value instanceof Uint8Array
        ? undefined
        : `must be the bundle's bytes (Uint8Array) or text; got ${describeValue(value)}`,
  },
  verify: verifyField,
  allowUnsigned: booleanField,
  maxFileBytes: bytesField,
  contextPolicy: EVALUATE_FIELDS.contextPolicy!,
  fetch: functionField,
  ...FRESHNESS_FIELDS,
  clock: clockField,
  telemetry: telemetryField,
};

/**
 * An OpenFeature provider for browsers (`@openfeature/web-sdk`) whose flags
 * are the decisions of one verified bundle, with the mapping of the server
 * provider (docs/openfeature.md): `initialize` fetches `options.url` (or
 * takes `options.bundle`), then verifies and compiles it on the page with
 * WebCrypto; flags resolve synchronously against the SDK's static context,
 * with no request per flag.
 *
 * A bundle that does not load (bad signature, invalid, too large) puts the
 * provider in OpenFeature's `FATAL` state (the page cannot fix it); a
 * failed request (network, HTTP status), or a freshness statement expired
 * already (`BUNDLE_EXPIRED`), in its `ERROR` state. Pages that are not a
 * secure context have no WebCrypto: `WEBCRYPTO_UNAVAILABLE`.
 *
 * A bundle with a freshness statement is watched on `options.clock`, as the
 * clients watch theirs: once the statement expires (`expiresAt` plus
 * `clockSkewMs`) every flag resolves to the caller's default with
 * `BUNDLE_EXPIRED` (OpenFeature's `GENERAL` error code, the code in the
 * message and in `flagMetadata.policyErrorCode`), never to the stale
 * answer, and the provider emits `ERROR` once, with no flag evaluated. A
 * page gets a fresh statement by loading the bundle again (a new provider).
 *
 * @throws {PolicyError} `INVALID_OPTIONS`: an unknown or malformed option,
 * or not exactly one of `url` and `bundle`.
 *
 * @example A bundle given as text, unsigned (use `verify` with a real one)
 * ```ts
 * import { OpenFeature } from "@openfeature/web-sdk";
 * import { createWebOpenFeatureProvider } from "./create_web_open_feature_provider.ts";
 * import assert from "node:assert/strict";
 *
 * const target = { service: "web", resource: "checkout", action: "new-flow" };
 * const bundle = JSON.stringify({
 *   schemaVersion: 1, env: "prod", policies: [{ policyKey: "checkout", activeVersion: 1, rules: [{
 *     id: "beta", status: "active", priority: 1, target, effect: { type: "allow" },
 *     when: { op: "eq", path: "beta", value: true }, elseEffect: { type: "deny" },
 *   }] }],
 * });
 * await OpenFeature.setContext({ beta: true });
 * await OpenFeature.setProviderAndWait(
 *   createWebOpenFeatureProvider({ bundle, allowUnsigned: true, flags: { "new-checkout": target } }),
 * );
 * const details = OpenFeature.getClient().getBooleanDetails("new-checkout", false);
 * assert.equal(details.value, true);
 * assert.equal(details.variant, "beta");
 * await OpenFeature.close();
 * ```
 */
export function createWebOpenFeatureProvider(
  options: WebOpenFeatureProviderOptions,
): OpenFeatureWebProvider {
  checkOptions(options, WEB_FIELDS, "createWebOpenFeatureProvider");
  if ((options.url === undefined) === (options.bundle === undefined)) {
    throw invalidOption(
      "createWebOpenFeatureProvider: give exactly one of url (to fetch the bundle) and bundle (its bytes or text)",
    );
  }
  return new WebPolicyProvider(options);
}

class WebPolicyProvider implements Provider {
  readonly metadata = { name: PACKAGE_NAME } as const;
  readonly runsOn = "client" as const;
  readonly events = new OpenFeatureEventEmitter();
  readonly #options: WebOpenFeatureProviderOptions;
  readonly #resolver: FlagResolver;
  #evaluate: ((request: EvaluationRequest) => Decision) | null = null;
  #bundle: BundleFacts = { checksum: "", bundleVersion: null };
  #failedClosed = false;
  #stopWatching: () => void = () => {};
  #closed = false;
  readonly #onFailedClosed = (error: PolicyError): void => {
    if (this.#failedClosed) return;
    this.#failedClosed = true;
    this.events.emit(ProviderEvents.Error, {
      message: `${error.code}: ${error.message}`,
      metadata: { policyErrorCode: error.code },
    });
  };

  constructor(options: WebOpenFeatureProviderOptions) {
    this.#options = { ...options };
    this.#resolver = new FlagResolver(options);
  }

  /** Stops watching the freshness statement's expiry (OpenFeature calls it on close). */
  onClose(): Promise<void> {
    this.#closed = true;
    this.#stopWatching();
    return Promise.resolve();
  }

  /** Fetches (or takes) the bundle, verifies it and compiles it. */
  async initialize(): Promise<void> {
    const options = this.#options;
    const maxFileBytes = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
    const bytes = options.url !== undefined
      ? await fetchBundle(String(options.url), options.fetch, maxFileBytes)
      : options.bundle!;
    const clock = options.clock ?? SYSTEM_CLOCK;
    const clockSkewMs = options.clockSkewMs ?? DEFAULT_CLOCK_SKEW_MS;
    let loaded;
    try {
      loaded = await loadBundle(bytes, {
        maxFileBytes,
        clock,
        clockSkewMs,
        ...(options.verify !== undefined && { verify: options.verify }),
        ...(options.allowUnsigned !== undefined && { allowUnsigned: options.allowUnsigned }),
        ...(options.requireFreshness !== undefined &&
          { requireFreshness: options.requireFreshness }),
      });
    } catch (error) {
      if (isPolicyError(error, "BUNDLE_EXPIRED")) {
        // A time, not a bad bundle: a fresh statement (the page loaded again) fixes it.
        throw new GeneralError(`${error.code}: ${error.message}`, { cause: error });
      }
      const code = isPolicyError(error) ? `${error.code}: ` : "";
      throw new ProviderFatalError(
        `the policy bundle did not load: ${code}${
          error instanceof Error ? error.message : String(error)
        }`,
        { cause: error },
      );
    }
    this.#evaluate = createEvaluator(loaded.compiled, {
      ...(options.contextPolicy !== undefined && { contextPolicy: options.contextPolicy }),
    });
    this.#bundle = {
      checksum: loaded.status.checksum,
      bundleVersion: loaded.status.bundleVersion,
    };
    // A provider initialized again watches the new bundle alone, and tells its expiry afresh.
    this.#stopWatching();
    this.#stopWatching = () => {};
    this.#failedClosed = false;
    const freshness = loaded.status.freshness;
    if (freshness === null || this.#closed) return;
    // The clients' expiry timer: past it, the evaluator throws BUNDLE_EXPIRED (flags resolve to
    // their defaults) and OpenFeature hears ERROR at once, as from the server provider.
    this.#stopWatching = watchExpiry(freshness, clockSkewMs, clock, () => {
      const expired = expiredError(freshness, clockSkewMs, "the bundle in force");
      this.#evaluate = () => {
        throw expired;
      };
      this.#onFailedClosed(expired);
    });
  }

  resolveBooleanEvaluation(
    flagKey: string,
    defaultValue: boolean,
    context: EvaluationContext,
  ): ResolutionDetails<boolean> {
    return this.#resolve("boolean", flagKey, defaultValue, context);
  }

  resolveStringEvaluation(
    flagKey: string,
    defaultValue: string,
    context: EvaluationContext,
  ): ResolutionDetails<string> {
    return this.#resolve("string", flagKey, defaultValue, context);
  }

  resolveNumberEvaluation(
    flagKey: string,
    defaultValue: number,
    context: EvaluationContext,
  ): ResolutionDetails<number> {
    return this.#resolve("number", flagKey, defaultValue, context);
  }

  resolveObjectEvaluation<T extends JsonValue>(
    flagKey: string,
    defaultValue: T,
    context: EvaluationContext,
  ): ResolutionDetails<T> {
    return this.#resolve("object", flagKey, defaultValue, context);
  }

  #resolve<T extends boolean | string | number | JsonValue>(
    type: FlagType,
    flagKey: string,
    defaultValue: T,
    context: EvaluationContext,
  ): ResolutionDetails<T> {
    const details = this.#resolver.resolve(
      type,
      flagKey,
      defaultValue,
      context,
      this.#evaluate,
      this.#bundle,
      this.#onFailedClosed,
    );
    this.#options.telemetry?.recordFlagEvaluation(
      flagEvaluation(PACKAGE_NAME, flagKey, details, context, this.#bundle),
    );
    return details;
  }
}

/**
 * `GET url` and the body, read under `maxFileBytes`. A failed request is a
 * `GeneralError` (OpenFeature's `ERROR` state) whose cause is the
 * `PolicyError`: `REMOTE_UNAVAILABLE`, `REMOTE_NOT_FOUND`,
 * `REMOTE_UNAUTHORIZED` or `BUNDLE_TOO_LARGE`.
 */
async function fetchBundle(
  url: string,
  fetchFunction: WebFetch | undefined,
  maxFileBytes: number,
): Promise<Uint8Array> {
  const where = JSON.stringify(url.length > 200 ? `${url.slice(0, 200)}…` : url);
  const fail = (error: PolicyError): never => {
    throw new GeneralError(`${error.code}: ${error.message}`, { cause: error });
  };
  let response: Response;
  try {
    response = await (fetchFunction ?? ((u, init) => fetch(u, init)))(url, {
      method: "GET",
      headers: { accept: "application/json" },
      redirect: "follow",
    });
  } catch (error) {
    return fail(
      new PolicyError(
        "REMOTE_UNAVAILABLE",
        `cannot fetch the bundle at ${where}: ${describeFetchFailure(error)}`,
        { cause: error },
      ),
    );
  }
  if (response.status !== 200) {
    await discardBody(response);
    const code = response.status === 404
      ? "REMOTE_NOT_FOUND"
      : response.status === 401 || response.status === 403
      ? "REMOTE_UNAUTHORIZED"
      : "REMOTE_UNAVAILABLE";
    return fail(
      new PolicyError(code, `the bundle at ${where} answered HTTP ${response.status}, not 200`),
    );
  }
  try {
    return await readBodyLimited(
      response,
      maxFileBytes,
      (what) =>
        new PolicyError(
          "BUNDLE_TOO_LARGE",
          `the bundle at ${where} ${what}, over the limit of ${maxFileBytes} bytes; raise maxFileBytes or split the bundle`,
        ),
    );
  } catch (error) {
    return fail(
      isPolicyError(error) ? error : new PolicyError(
        "REMOTE_UNAVAILABLE",
        `reading the bundle at ${where} failed: ${describeFetchFailure(error)}`,
        { cause: error },
      ),
    );
  }
}
