// This module is browser compatible.
// One HTTP exchange of the remote delivery protocol (docs/remote.md, "Protocol"): a GET,
// and for a 200 the body read whole under a byte limit.
import { PolicyError } from "../public/policy_error.ts";
import { discardBody, readBodyLimited } from "../io/read_body_limited.ts";
import type { FetchFunction } from "./types.ts";

/** What {@link requestBundle} needs. */
export interface BundleRequest {
  fetch: FetchFunction;
  url: string;
  headers: Record<string, string>;
  signal: AbortSignal;
  maxFileBytes: number;
}

/** The parts of an answer the client acts on. */
export interface BundleAnswer {
  status: number;
  /** The `ETag` header, verbatim. */
  etag: string | null;
  /** The `Retry-After` header, verbatim. */
  retryAfter: string | null;
  /** The body of a 200, read whole; null for any other status (its body is discarded). */
  body: Uint8Array | null;
}

/**
 * Sends the GET and, for a 200, reads the body with a byte counter: a
 * `Content-Length` over the limit, or a body that grows over it, stops the
 * transfer and throws `BUNDLE_TOO_LARGE`. Other bodies are cancelled
 * unread, so no connection or stream is left open.
 *
 * @throws {PolicyError} `BUNDLE_TOO_LARGE`; network errors and aborts are
 * thrown as `fetch` throws them.
 */
export async function requestBundle(request: BundleRequest): Promise<BundleAnswer> {
  const response = await request.fetch(request.url, {
    method: "GET",
    headers: request.headers,
    signal: request.signal,
    redirect: "follow",
  });
  const answer: BundleAnswer = {
    status: response.status,
    etag: response.headers.get("etag"),
    retryAfter: response.headers.get("retry-after"),
    body: null,
  };
  if (response.status !== 200) {
    await discardBody(response);
    return answer;
  }
  const max = request.maxFileBytes;
  answer.body = await readBodyLimited(response, max, (what) => tooLarge(what, max));
  return answer;
}

function tooLarge(what: string, max: number): PolicyError {
  return new PolicyError(
    "BUNDLE_TOO_LARGE",
    `the bundle served by the control plane ${what}, over the limit of ${max} bytes; raise maxFileBytes or split the bundle`,
  );
}
