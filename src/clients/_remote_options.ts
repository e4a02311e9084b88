// The remote client's options (docs/remote.md "Options"): its fields for the
// shared checker, and the configuration they resolve to.
import { ENVS } from "../public/vocabulary.ts";
import { PolicyError } from "../public/policy_error.ts";
import type { Env } from "../engine/types.ts";
import { DEFAULT_MAX_FILE_BYTES } from "../verify/load_bundle.ts";
import type { VerifyKeyOptions } from "../verify/verify_bundle_signature.ts";
import { verifyKeyList } from "../verify/verify_keys.ts";
import { DEFAULT_CLOCK_SKEW_MS } from "../verify/verify_freshness.ts";
import {
  checkOptions,
  describeValue,
  durationField,
  type Field,
  type Fields,
  functionField,
  objectField,
  refusedField,
  required,
  stringField,
} from "../_internal/check_options.ts";
import { COMMON_FIELDS, importTrustedKeys } from "./_check_client_options.ts";
import { verifyField } from "../verify/verify_keys.ts";
import {
  DEFAULT_MAX_BACKOFF_MS,
  DEFAULT_POLL_INTERVAL_MS,
  DEFAULT_REQUEST_TIMEOUT_MS,
  DEFAULT_START_TIMEOUT_MS,
  MAX_ORIGINS,
} from "./remote_defaults.ts";
import { userAgent } from "../_internal/user_agent.ts";
import type { ClientOptions, FetchFunction } from "./types.ts";
import type { PollResult, RemoteClientOptions } from "./remote_client_options.ts";
import { type Clock, SYSTEM_CLOCK } from "../public/clock.ts";
import { clockField } from "../_internal/check_options.ts";
import type { Telemetry } from "../telemetry/types.ts";

/** One origin of `baseUrl`. */
export interface Origin {
  /** The base URL as given, normalised (`URL.href`): what `status().servedBy` names. */
  base: string;
  /** `{base}/v1/{orgId}/{projectId}/{env}/bundle.json`. */
  url: string;
  /** `host:port`, for permission messages. */
  host: string;
  /** The host name and the port (the scheme's default when none is written), for telemetry. */
  serverAddress: string;
  serverPort: number;
}

/** The checked options of a remote client. */
export interface RemoteConfig {
  origins: readonly Origin[];
  runtimeKey: string;
  userAgent: string;
  orgId: string;
  projectId: string;
  env: Env;
  /** The imported trusted keys (ECDSA only). */
  verify: readonly VerifyKeyOptions[];
  intervalMs: number;
  requestTimeoutMs: number;
  maxBackoffMs: number;
  startTimeoutMs: number;
  /** `maxStalenessMs`, or null when evaluation never goes stale. */
  maxStalenessMs: number | null;
  maxFileBytes: number;
  allowRollback: boolean;
  requireFreshness: boolean;
  clockSkewMs: number;
  cachePath: string | null;
  onError: ((error: PolicyError) => void) | null;
  onPoll: ((result: PollResult) => void) | null;
  fetch: FetchFunction;
  clock: Clock;
  random: () => number;
  /** Where the client reports (docs/observability.md), or null. */
  telemetry: Telemetry | null;
  /** What the bundle slot reads: parseCustomEffect, contextPolicy, the decision log, telemetry. */
  slotOptions: ClientOptions;
}

const CALLER = "createRemoteClient";

/** An absolute http(s) URL without query, fragment or credentials. */
function baseUrlProblem(value: unknown): string | undefined {
  let url: URL;
  try {
    url = new URL(value as string | URL);
  } catch {
    return `must be an absolute http(s) URL; got ${describeValue(value)}`;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return `must use http: or https:; got ${JSON.stringify(url.protocol)}`;
  }
  if (url.search !== "" || url.hash !== "" || url.username !== "" || url.password !== "") {
    return "cannot carry a query, a fragment or credentials; the runtime key is sent as a bearer token";
  }
  return undefined;
}

const baseUrlField: Field = {
  check(value, name) {
    if (!Array.isArray(value)) return baseUrlProblem(value);
    if (value.length === 0 || value.length > MAX_ORIGINS) {
      return `must be a URL or a list of 1 to ${MAX_ORIGINS} URLs; got ${value.length}`;
    }
    for (const [index, item] of value.entries()) {
      const problem = baseUrlProblem(item);
      if (problem !== undefined) return `${name}[${index}] ${problem}`;
    }
    return undefined;
  },
};

/** A scope segment: non-empty, and not "." or ".." (URL parsing would resolve them away). */
const segmentField: Field = {
  check: (value) =>
    stringField.check(value, "") ??
      (value === "." || value === ".." ? 'cannot be "." or ".."' : undefined),
};

/** The remote client's fields, on top of the common ones. */
const REMOTE_FIELDS: Fields = {
  ...COMMON_FIELDS,
  verify: required({
    check(value, name) {
      const problem = verifyField.check(value, name);
      if (problem !== undefined) return problem;
      if (verifyKeyList(value).some((key) => key.algorithm === "HMAC_SHA256")) {
        throw new PolicyError(
          "REMOTE_HMAC_REFUSED",
          `${CALLER}: an HMAC_SHA256 verify key is refused for remote delivery (whoever can verify an HMAC signature can forge one); configure the control plane's ECDSA_SHA_256 public key`,
        );
      }
      return undefined;
    },
  }),
  allowUnsigned: refusedField(
    "does not apply to the remote client: remote bundles are always verified with verify",
  ),
  baseUrl: required(baseUrlField),
  runtimeKey: required({
    check: (value) =>
      typeof value === "string" && /^[\x21-\x7e]+$/.test(value)
        ? undefined
        : "must be a non-empty string of printable ASCII characters without spaces",
  }),
  orgId: required(segmentField),
  projectId: required(segmentField),
  env: required({
    check: (value) =>
      (ENVS as readonly unknown[]).includes(value)
        ? undefined
        : `must be one of ${ENVS.join(", ")}; got ${describeValue(value)}`,
  }),
  poll: objectField({ intervalMs: durationField }, "{ intervalMs }"),
  cachePath: stringField,
  requestTimeoutMs: durationField,
  maxBackoffMs: durationField,
  startTimeoutMs: durationField,
  maxStalenessMs: durationField,
  onPoll: functionField,
  fetch: functionField,
  clock: clockField,
  random: functionField,
};

/**
 * Checks every option (unknown keys included) and imports the trusted keys,
 * before any request.
 *
 * @throws {PolicyError} `INVALID_OPTIONS`, `INVALID_KEY`, `REMOTE_HMAC_REFUSED`.
 */
export async function resolveRemoteOptions(options: RemoteClientOptions): Promise<RemoteConfig> {
  checkOptions(options, REMOTE_FIELDS, CALLER);
  const verify = (await importTrustedKeys(options.verify))!;
  const { orgId, projectId, env } = options;
  const path = [orgId, projectId, env].map(encodeURIComponent).join("/");
  const bases = Array.isArray(options.baseUrl) ? options.baseUrl : [options.baseUrl];
  const origins = bases.map((base: string | URL): Origin => {
    const href = new URL(base).href;
    const url = `${href.replace(/\/+$/, "")}/v1/${path}/bundle.json`;
    const parsed = new URL(url);
    return {
      base: href,
      url,
      host: parsed.host,
      serverAddress: parsed.hostname,
      serverPort: parsed.port !== ""
        ? Number(parsed.port)
        : parsed.protocol === "https:"
        ? 443
        : 80,
    };
  });
  return {
    origins,
    runtimeKey: options.runtimeKey,
    userAgent: userAgent(),
    orgId,
    projectId,
    env,
    verify,
    intervalMs: options.poll?.intervalMs ?? DEFAULT_POLL_INTERVAL_MS,
    requestTimeoutMs: options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
    maxBackoffMs: options.maxBackoffMs ?? DEFAULT_MAX_BACKOFF_MS,
    startTimeoutMs: options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS,
    maxStalenessMs: options.maxStalenessMs ?? null,
    maxFileBytes: options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES,
    allowRollback: options.allowRollback ?? false,
    requireFreshness: options.requireFreshness ?? false,
    clockSkewMs: options.clockSkewMs ?? DEFAULT_CLOCK_SKEW_MS,
    cachePath: options.cachePath ?? null,
    onError: options.onError ?? null,
    onPoll: options.onPoll ?? null,
    fetch: options.fetch ?? ((input, init) => fetch(input, init)),
    clock: options.clock ?? SYSTEM_CLOCK,
    random: options.random ?? Math.random,
    telemetry: options.telemetry ?? null,
    // A copy: changing the caller's object later changes nothing.
    slotOptions: { ...options },
  };
}
