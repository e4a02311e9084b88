// This module is browser compatible.
// The spans the library starts and the attribute keys it sets on them
// (docs/observability.md "Names"); the metrics' names are `./otel`'s.

/** The spans. */
export const SPAN_NAMES = {
  /** Each start and reload of a bundle (a remote client's every poll). */
  bundleLoad: "policy.bundle.load",
  /** One request of the remote client to an origin (kind `client`). */
  bundleFetch: "policy.bundle.fetch",
  /** One verdict of the enforcer, its store call included. */
  enforce: "policy.enforce",
  /** One `evaluate`, only at `evaluateSampleRate`. */
  evaluate: "policy.evaluate",
} as const;

/** The attribute keys of the spans (and of the metrics that share them). */
export const SPAN_ATTRIBUTES = {
  policyKey: "policy.key",
  decision: "policy.decision",
  bundleChecksum: "policy.bundle.checksum",
  bundleVersion: "policy.bundle.version",
  origin: "policy.origin",
  outcome: "outcome",
  rateLimitResult: "policy.rate_limit.result",
  dbSystemName: "db.system.name",
  serverAddress: "server.address",
  serverPort: "server.port",
  urlFull: "url.full",
  httpRequestMethod: "http.request.method",
  httpStatusCode: "http.response.status_code",
} as const;
