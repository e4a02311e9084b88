/**
 * The OpenFeature server provider: flags resolved by a local or remote
 * client's bundle through `@openfeature/server-sdk` (docs/openfeature.md).
 *
 * @module
 */
import {
  type EvaluationContext,
  type JsonValue,
  OpenFeatureEventEmitter,
  type Provider,
  ProviderEvents,
  ProviderFatalError,
  type ResolutionDetails,
} from "@openfeature/server-sdk";
import type { ClientEvent, ClientStatus, PolicyClient } from "../clients/types.ts";
import type { Decision, EvaluationRequest } from "../engine/types.ts";
import { isPolicyError, type PolicyError } from "../public/policy_error.ts";
import {
  booleanField,
  checkOptions,
  describeValue,
  type Fields,
  invalidOption,
} from "../_internal/check_options.ts";
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

/**
 * What {@link createOpenFeatureProvider} returns: the `Provider` of
 * `@openfeature/server-sdk`, for `OpenFeature.setProvider`.
 */
export type OpenFeatureServerProvider = Provider;

/** The provider's name in OpenFeature (`metadata.name`, events, telemetry). */
export const PROVIDER_NAME: string = PACKAGE_NAME;

/** Options of {@link createOpenFeatureProvider}. */
export interface OpenFeatureProviderOptions extends FlagMappingOptions {
  /**
   * The provider owns the client: `onClose` (OpenFeature's `close()`, or a
   * provider replaced by another) closes it. Default `false`: the client
   * is yours to close.
   */
  ownsClient?: boolean;
  /**
   * Where each resolution is reported as a `feature_flag.evaluation` event
   * of the OpenTelemetry semantic conventions (docs/observability.md
   * "OpenFeature"); `createTelemetry()` of `@policy/runtime/otel`.
   * Default: none.
   */
  telemetry?: Telemetry;
}

/** The state the provider last told OpenFeature. */
type Told = "NOT_READY" | "READY" | "STALE" | "ERROR";

const PROVIDER_FIELDS: Fields = {
  ...FLAG_MAPPING_FIELDS,
  ownsClient: booleanField,
  telemetry: telemetryField,
};

/**
 * An OpenFeature provider for Node and Deno servers (`@openfeature/server-sdk`)
 * whose flags are decisions of `client`'s bundle (docs/openfeature.md): a
 * flag key names a target (`options.flags`, else `service/resource/action`),
 * the evaluation context is the request's context, and the decision is the
 * flag's value (`allow` → `true`, `deny` → `false`, a `custom` value for
 * string, number and object flags), with the rule as variant and the
 * policy, rule, decision, bundle and descriptors as flag metadata.
 *
 * `client` is a local or remote client, or the promise of one (the provider
 * is then ready when the promise resolves, and in the `FATAL` state if it
 * rejects). Events: `READY` once a bundle is in force;
 * `CONFIGURATION_CHANGED` on every reload, with the flags whose decisions
 * may change; `STALE` when a local client's reload failed (with the code)
 * and while a remote client is degraded; `ERROR` while evaluation fails
 * closed (`BUNDLE_EXPIRED`, `BUNDLE_STALE`); `READY` again on recovery.
 *
 * @throws {PolicyError} `INVALID_OPTIONS` for an unknown or malformed option,
 * or a `client` that is not a client.
 *
 * @example Two flags of a local client's bundle
 * ```ts
 * import { OpenFeature } from "@openfeature/server-sdk";
 * import { createOpenFeatureProvider } from "./create_open_feature_provider.ts";
 * import { createLocalClient } from "../clients/create_local_client.ts";
 * import assert from "node:assert/strict";
 *
 * const bundlePath = new URL("../../examples/bundle.json", import.meta.url).pathname;
 * const client = await createLocalClient({ bundlePath, allowUnsigned: true });
 * await OpenFeature.setProviderAndWait(
 *   createOpenFeatureProvider(client, {
 *     flags: { "invoices": { service: "billing", resource: "invoice", action: "create" } },
 *     ownsClient: true,
 *   }),
 * );
 * const flags = OpenFeature.getClient();
 * assert.equal(await flags.getBooleanValue("invoices", false, { plan: "pro" }), true);
 * const details = await flags.getBooleanDetails("billing/invoice/create", false, { plan: "pro" });
 * assert.equal(details.reason, "TARGETING_MATCH");
 * assert.equal(details.flagMetadata.decision, "allow");
 * assert.equal((await flags.getBooleanDetails("no-such-flag", false)).errorCode, "FLAG_NOT_FOUND");
 * await OpenFeature.close(); // closes the client too: ownsClient
 * ```
 */
export function createOpenFeatureProvider(
  client: PolicyClient | Promise<PolicyClient>,
  options: OpenFeatureProviderOptions = {},
): OpenFeatureServerProvider {
  checkOptions(options, PROVIDER_FIELDS, "createOpenFeatureProvider");
  if (!(client instanceof Promise)) checkClient(client);
  return new PolicyProvider(client, options);
}

/** Refuses what is not a client (a missed `await`, a decision, an evaluator). */
function checkClient(client: unknown): asserts client is PolicyClient {
  const methods = ["evaluate", "status", "subscribe", "close"];
  const has = typeof client === "object" && client !== null &&
    methods.every((m) => typeof (client as Record<string, unknown>)[m] === "function");
  if (!has) {
    throw invalidOption(
      `createOpenFeatureProvider: client must be a local or remote client (with ${
        methods.join(", ")
      }), or the promise of one; got ${describeValue(client)}`,
    );
  }
}

function factsOf(status: ClientStatus): BundleFacts {
  return { checksum: status.checksum, bundleVersion: status.bundleVersion };
}

class PolicyProvider implements Provider {
  readonly metadata = { name: PROVIDER_NAME } as const;
  readonly runsOn = "server" as const;
  readonly events = new OpenFeatureEventEmitter();
  readonly #source: PolicyClient | Promise<PolicyClient>;
  readonly #resolver: FlagResolver;
  readonly #ownsClient: boolean;
  readonly #telemetry: Telemetry | null;
  #client: PolicyClient | null = null;
  #bundle: BundleFacts = { checksum: "", bundleVersion: null };
  #unsubscribe: (() => void) | null = null;
  #told: Told = "NOT_READY";
  /**
   * The error with which evaluation last failed closed (from an evaluation,
   * or the client's `expired` event), for the `ERROR` event's message.
   */
  #failedClosed: PolicyError | null = null;
  /** A local client's last reload failed (`reload-failed`), until a bundle loads. */
  #reloadFailed: PolicyError | null = null;
  #closed = false;
  readonly #evaluate = (request: EvaluationRequest): Decision => this.#client!.evaluate(request);
  readonly #onFailedClosed = (error: PolicyError): void => this.#failClosed(error);

  constructor(client: PolicyClient | Promise<PolicyClient>, options: OpenFeatureProviderOptions) {
    this.#source = client;
    // A rejected client promise is reported by initialize(), not as an unhandled rejection.
    if (client instanceof Promise) client.catch(() => {});
    this.#resolver = new FlagResolver(options);
    this.#ownsClient = options.ownsClient === true;
    this.#telemetry = options.telemetry ?? null;
  }

  /**
   * Waits for the client (when given a promise), reads its bundle and
   * subscribes to its events. OpenFeature then marks the provider `READY`;
   * a client that is degraded or stale already is told right after.
   */
  initialize(): Promise<void> {
    const ready = this.#start();
    // OpenFeature marks the provider READY in its own reaction to `ready`,
    // registered after this one: a state other than READY is told one step later.
    ready.then(() => Promise.resolve().then(() => this.#tellState(false)), () => {});
    return ready;
  }

  async #start(): Promise<void> {
    let client: PolicyClient;
    try {
      client = await this.#source;
      checkClient(client);
    } catch (error) {
      const code = isPolicyError(error) ? `${error.code}: ` : "";
      throw new ProviderFatalError(
        `the policy client could not be created: ${code}${
          error instanceof Error ? error.message : String(error)
        }`,
        { cause: error },
      );
    }
    if (this.#closed) return;
    this.#client = client;
    this.#bundle = factsOf(client.status());
    this.#unsubscribe = client.subscribe((event) => this.#onClientEvent(event));
    this.#told = "READY";
  }

  /** Unsubscribes from the client, and closes it when the provider owns it. */
  async onClose(): Promise<void> {
    this.#closed = true;
    this.#unsubscribe?.();
    this.#unsubscribe = null;
    if (!this.#ownsClient) return;
    const client = this.#client ?? await Promise.resolve(this.#source).catch(() => null);
    await client?.close();
  }

  resolveBooleanEvaluation(
    flagKey: string,
    defaultValue: boolean,
    context: EvaluationContext,
  ): Promise<ResolutionDetails<boolean>> {
    return Promise.resolve(this.#resolve("boolean", flagKey, defaultValue, context));
  }

  resolveStringEvaluation(
    flagKey: string,
    defaultValue: string,
    context: EvaluationContext,
  ): Promise<ResolutionDetails<string>> {
    return Promise.resolve(this.#resolve("string", flagKey, defaultValue, context));
  }

  resolveNumberEvaluation(
    flagKey: string,
    defaultValue: number,
    context: EvaluationContext,
  ): Promise<ResolutionDetails<number>> {
    return Promise.resolve(this.#resolve("number", flagKey, defaultValue, context));
  }

  resolveObjectEvaluation<T extends JsonValue>(
    flagKey: string,
    defaultValue: T,
    context: EvaluationContext,
  ): Promise<ResolutionDetails<T>> {
    return Promise.resolve(this.#resolve("object", flagKey, defaultValue, context));
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
      this.#client === null ? null : this.#evaluate,
      this.#bundle,
      this.#onFailedClosed,
    );
    this.#telemetry?.recordFlagEvaluation(
      flagEvaluation(PROVIDER_NAME, flagKey, details, context, this.#bundle),
    );
    return details;
  }

  /** An evaluation failed closed: OpenFeature hears `ERROR` (once, until recovery). */
  #failClosed(error: PolicyError): void {
    this.#failedClosed = error;
    this.#tellState(false);
  }

  #onClientEvent(event: ClientEvent): void {
    if (this.#closed) return;
    if (event.type === "reload") {
      this.#bundle = factsOf(event.status);
      this.#failedClosed = null;
      this.#reloadFailed = null;
      this.events.emit(ProviderEvents.ConfigurationChanged, {
        flagsChanged: this.#resolver.flagsOf(event.changedTargets),
        message: `bundle ${event.status.checksum} in force (was ${event.previous.checksum})`,
        metadata: {
          checksum: event.status.checksum,
          previousChecksum: event.previous.checksum,
          ...(event.status.bundleVersion !== null &&
            { bundleVersion: event.status.bundleVersion }),
        },
      });
    } else if (event.type === "reload-failed") {
      this.#reloadFailed = event.error;
    } else if (event.type === "expired") {
      this.#failedClosed = event.error;
    } else if (event.type === "recovered" && this.#failedClosed?.code === "BUNDLE_STALE") {
      // Confirmed again: no longer stale (an expired statement needs a reload).
      this.#failedClosed = null;
    }
    // Every failed reload is told, with its code, also while STALE already.
    this.#tellState(event.type === "reload-failed");
  }

  /**
   * Tells OpenFeature the state the client is in, when it differs from the
   * last one told (or, with `retell`, again when it is `STALE`): `ERROR`
   * while evaluation fails closed (the statement in force expired, or a
   * remote client's bundle is stale), `STALE` while a remote client is
   * degraded or a local client's last reload failed, else `READY`.
   */
  #tellState(retell: boolean): void {
    const client = this.#client;
    if (client === null || this.#closed || this.#told === "NOT_READY") return;
    const status = client.status();
    const remote = status.origin === "remote" ? status : null;
    const failing = status.expired
      ? "BUNDLE_EXPIRED"
      : remote !== null && remote.stale
      ? "BUNDLE_STALE"
      : this.#failedClosed?.code ?? null;
    const state: Told = failing !== null
      ? "ERROR"
      : remote?.degraded === true || this.#reloadFailed !== null
      ? "STALE"
      : "READY";
    if (state === this.#told && !(retell && state === "STALE")) return;
    this.#told = state;
    if (state === "ERROR") {
      const known = this.#failedClosed?.code === failing ? this.#failedClosed : null;
      const message = known?.message ??
        (failing === "BUNDLE_EXPIRED"
          ? "the freshness statement of the bundle in force has expired"
          : "the bundle in force was not confirmed by the control plane within maxStalenessMs");
      this.events.emit(ProviderEvents.Error, {
        message: `${failing}: ${message}; flags resolve to their defaults until it recovers`,
        metadata: { policyErrorCode: failing! },
      });
    } else if (state === "STALE") {
      const failed = remote === null ? this.#reloadFailed : null;
      this.events.emit(
        ProviderEvents.Stale,
        failed !== null
          ? {
            message:
              `${failed.code}: ${failed.message}; flags resolve from the last good bundle (${status.checksum}) until a good one loads`,
            metadata: { policyErrorCode: failed.code },
          }
          : {
            message:
              `the policy client is degraded (${remote?.lastErrorCode}): flags resolve from the last verified bundle, which may be out of date`,
            ...(remote !== null && remote.lastErrorCode !== null &&
              { metadata: { policyErrorCode: remote.lastErrorCode } }),
          },
      );
    } else {
      this.events.emit(ProviderEvents.Ready, { message: "the policy client recovered" });
    }
  }
}
