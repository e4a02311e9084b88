// This module is browser compatible.
// One poll of the remote client (docs/remote.md "Protocol", docs/operations.md
// "Several origins"): a request to each origin of `baseUrl` in order, until
// one gives a bundle that passes every check (or confirms the one in force).
import { PolicyError } from "../public/policy_error.ts";
import type { LoadedBundle } from "../verify/load_bundle.ts";
import { parseRetryAfter } from "./_poll_delay.ts";
import type { Origin, RemoteConfig } from "./_remote_options.ts";
import { type BundleAnswer, requestBundle } from "./_request_bundle.ts";
import { sameBytes } from "./_same_bytes.ts";
import { describeFetchFailure } from "../io/describe_fetch_failure.ts";
import { isPermissionDenial } from "../io/system_error.ts";
import { describeThrown } from "../_internal/describe_thrown.ts";
import { SPAN_ATTRIBUTES, SPAN_NAMES } from "../telemetry/names.ts";
import { startTimedSpan, type TimedSpan } from "../telemetry/timed_span.ts";

/** A failed request to one origin. */
export interface OriginFailure {
  kind: "failed";
  origin: Origin;
  /** The HTTP status, or null when no answer came. */
  httpStatus: number | null;
  error: PolicyError;
  /** The earliest next poll a `Retry-After` asked for, in ms, or null. */
  retryAfterMs: number | null;
}

/** A successful request to one origin. */
export type OriginSuccess =
  | {
    kind: "updated";
    origin: Origin;
    httpStatus: 200;
    loaded: LoadedBundle;
    bytes: Uint8Array;
    etag: string | null;
  }
  | { kind: "unchanged"; origin: Origin; httpStatus: 200 | 304; etag: string | null };

/**
 * The result of one poll: the first origin's success (after the failures of
 * the origins before it), every origin's failure, or `aborted` (by close()).
 */
export type PollAttempt =
  | { kind: "success"; success: OriginSuccess; failures: OriginFailure[] }
  | { kind: "failed"; failures: [OriginFailure, ...OriginFailure[]] }
  | { kind: "aborted" };

/** What a poll needs from the client. */
export interface PollContext {
  config: RemoteConfig;
  /** The exact bytes of the bundle in force, or null. */
  bytesInForce: Uint8Array | null;
  /** The ETag `origin` gave for the bundle in force: the only one sent back to it. */
  etagOf(origin: Origin): string | null;
  /** Every check of a new candidate (verification, scope, rollback). */
  accept(bytes: Uint8Array, what: string): Promise<LoadedBundle>;
  /** Registers the request in flight, so that close() can abort it. */
  track(controller: AbortController | null): void;
  closed(): boolean;
  /** The poll's `policy.bundle.load` span, which each request's span is part of, or null. */
  span: TimedSpan | null;
}

/** Polls the origins in order until one succeeds. Never rejects. */
export async function pollOrigins(context: PollContext): Promise<PollAttempt> {
  const failures: OriginFailure[] = [];
  for (const origin of context.config.origins) {
    const result = await requestOrigin(context, origin);
    if (result === "aborted") return { kind: "aborted" };
    if (result.kind !== "failed") return { kind: "success", success: result, failures };
    failures.push(result);
    if (context.closed()) return { kind: "aborted" };
  }
  return { kind: "failed", failures: failures as [OriginFailure, ...OriginFailure[]] };
}

/** One request to `origin` and, for a 200, the checks of its body. Never rejects. */
async function requestOrigin(
  context: PollContext,
  origin: Origin,
): Promise<OriginSuccess | OriginFailure | "aborted"> {
  const { clock, requestTimeoutMs } = context.config;
  const controller = new AbortController();
  context.track(controller);
  let timedOut = false;
  const timer = clock.setTimeout(() => {
    timedOut = true;
    controller.abort(new Error(`no answer within ${requestTimeoutMs} ms`));
  }, requestTimeoutMs);
  const conditional = context.etagOf(origin);
  const fetched = fetchTelemetry(context, origin);
  let answer: BundleAnswer;
  try {
    answer = await requestBundle({
      fetch: context.config.fetch,
      url: origin.url,
      headers: headers(context.config, conditional),
      signal: controller.signal,
      maxFileBytes: context.config.maxFileBytes,
    });
  } catch (error) {
    let failure: OriginFailure;
    if (timedOut) {
      failure = failed(
        origin,
        new PolicyError(
          "REMOTE_UNAVAILABLE",
          `the control plane did not answer ${origin.url} completely within ${requestTimeoutMs} ms (requestTimeoutMs)`,
        ),
        null,
      );
    } else if (context.closed()) {
      fetched(null, null);
      return "aborted";
    } else if (error instanceof PolicyError) {
      failure = failed(origin, error, 200);
    } else {
      failure = failed(origin, networkError(origin, error), null);
    }
    fetched(failure.httpStatus, failure.error);
    return failure;
  } finally {
    clock.clearTimeout(timer);
    context.track(null);
  }
  fetched(answer.status, null);
  return await classify(context, origin, answer, conditional);
}

/**
 * With telemetry, starts the `policy.bundle.fetch` span of a request to
 * `origin` and returns what ends it and records its duration: with the
 * HTTP status (null when no answer came) and the error that failed it
 * (an answer other than 200 and 304 fails it by its status), or with
 * neither for a request aborted by `close()` (ended, not recorded).
 */
function fetchTelemetry(
  context: PollContext,
  origin: Origin,
): (status: number | null, error: PolicyError | null) => void {
  const { telemetry, clock } = context.config;
  if (telemetry === null) return () => {};
  const { serverAddress, serverPort } = origin;
  const span = startTimedSpan(telemetry, clock, SPAN_NAMES.bundleFetch, {
    kind: "client",
    attributes: {
      [SPAN_ATTRIBUTES.httpRequestMethod]: "GET",
      [SPAN_ATTRIBUTES.urlFull]: origin.url,
      [SPAN_ATTRIBUTES.serverAddress]: serverAddress,
      [SPAN_ATTRIBUTES.serverPort]: serverPort,
    },
    ...(context.span !== null && { parent: context.span }),
  });
  return (status, error) => {
    if (status === null && error === null) return span.end();
    const errorType = error !== null
      ? error.code
      : status === 200 || status === 304
      ? null
      : String(status);
    if (status !== null) span.setAttributes({ [SPAN_ATTRIBUTES.httpStatusCode]: status });
    if (errorType !== null) span.fail(error ?? new Error(`HTTP ${status}`), errorType);
    span.end();
    telemetry.recordBundleFetch({
      seconds: span.elapsedSeconds(),
      serverAddress,
      serverPort,
      statusCode: status,
      errorType,
    });
  };
}

async function classify(
  context: PollContext,
  origin: Origin,
  answer: BundleAnswer,
  conditional: string | null,
): Promise<OriginSuccess | OriginFailure> {
  const { url } = origin;
  const status = answer.status;
  if (status === 200) {
    const bytes = answer.body ?? new Uint8Array(0);
    // The same bytes as the bundle in force were verified already.
    const inForce = context.bytesInForce;
    if (inForce !== null && sameBytes(bytes, inForce)) {
      return { kind: "unchanged", origin, httpStatus: 200, etag: answer.etag };
    }
    try {
      const loaded = await context.accept(bytes, `the bundle served at ${url}`);
      return { kind: "updated", origin, httpStatus: 200, loaded, bytes, etag: answer.etag };
    } catch (error) {
      return failed(origin, asPolicyError(error), 200);
    }
  }
  if (status === 304) {
    if (conditional !== null) {
      return { kind: "unchanged", origin, httpStatus: 304, etag: conditional };
    }
    return failed(
      origin,
      new PolicyError(
        "REMOTE_UNAVAILABLE",
        `${url} answered 304 Not Modified to a request without If-None-Match; the server or a cache in between is misconfigured`,
      ),
      304,
    );
  }
  if (status === 401 || status === 403) {
    return failed(
      origin,
      new PolicyError(
        "REMOTE_UNAUTHORIZED",
        `${url} answered HTTP ${status}: the runtime key was refused; check runtimeKey and that it is allowed to read this project and env`,
      ),
      status,
    );
  }
  if (status === 404) {
    const { orgId, projectId, env } = context.config;
    return failed(
      origin,
      new PolicyError(
        "REMOTE_NOT_FOUND",
        `${url} answered HTTP 404: no bundle is published for orgId ${
          JSON.stringify(orgId)
        }, projectId ${JSON.stringify(projectId)}, env ${
          JSON.stringify(env)
        }; check the scope and baseUrl, or publish a bundle`,
      ),
      404,
    );
  }
  const busy = status === 429 || status === 503;
  const retryAfterMs = busy
    ? parseRetryAfter(answer.retryAfter, context.config.clock.wallNow())
    : null;
  const retry = retryAfterMs === null ? "" : `; retrying after ${retryAfterMs} ms at the earliest`;
  return failed(
    origin,
    new PolicyError(
      "REMOTE_UNAVAILABLE",
      `${url} answered HTTP ${status}${busy ? " (busy)" : ""}${retry}`,
    ),
    status,
    retryAfterMs,
  );
}

function headers(config: RemoteConfig, conditional: string | null): Record<string, string> {
  const result: Record<string, string> = {
    "accept": "application/json",
    "authorization": `Bearer ${config.runtimeKey}`,
    "user-agent": config.userAgent,
  };
  if (conditional !== null) result["if-none-match"] = conditional;
  return result;
}

function networkError(origin: Origin, error: unknown): PolicyError {
  if (isPermissionDenial(error)) {
    const detail = describeThrown(error);
    return new PolicyError(
      "REMOTE_UNAVAILABLE",
      `the runtime's permissions refused network access to ${origin.host}: ${detail}; on Deno, run with --allow-net=${origin.host}`,
      { cause: error },
    );
  }
  return new PolicyError(
    "REMOTE_UNAVAILABLE",
    `cannot fetch ${origin.url}: ${describeFetchFailure(error)}`,
    { cause: error },
  );
}

function failed(
  origin: Origin,
  error: PolicyError,
  httpStatus: number | null,
  retryAfterMs: number | null = null,
): OriginFailure {
  return { kind: "failed", origin, httpStatus, error, retryAfterMs };
}

/** `error` itself, or, should anything else ever be thrown, a PolicyError wrapping it. */
export function asPolicyError(error: unknown): PolicyError {
  if (error instanceof PolicyError) return error;
  return new PolicyError(
    "BUNDLE_INVALID",
    `the bundle could not be loaded: ${describeThrown(error)}`,
    { cause: error },
  );
}
