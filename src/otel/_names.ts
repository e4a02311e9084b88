// The names this module reports under (docs/observability.md "Names"), in one
// place: the instruments, the spans and the events, and whether each follows
// an OpenTelemetry semantic convention or is the package's own.

import { SPAN_ATTRIBUTES } from "../telemetry/names.ts";

/** The meter's, tracer's and logger's name: the package's. */
export {
  PACKAGE_NAME as SCOPE_NAME,
  PACKAGE_VERSION as SCOPE_VERSION,
} from "../_internal/version.ts";

/** The metrics: name, instrument, unit, description. */
export const METRICS = {
  decisions: {
    name: "policy.decisions",
    instrument: "counter",
    unit: "{decision}",
    description: "Decisions evaluate returned, by decision, reason and policy",
  },
  evaluationErrors: {
    name: "policy.evaluation.errors",
    instrument: "counter",
    unit: "{error}",
    description: "Calls of evaluate that threw, by error code",
  },
  bundleUpdates: {
    name: "policy.bundle.updates",
    instrument: "counter",
    unit: "{update}",
    description: "Attempts to bring in a bundle (start, reload, poll), by outcome",
  },
  bundleVersion: {
    name: "policy.bundle.version",
    instrument: "gauge",
    unit: "",
    description: "bundleVersion of the bundle in force (-1 when it has none)",
  },
  bundleAge: {
    name: "policy.bundle.age",
    instrument: "gauge",
    unit: "s",
    description: "Seconds since the signed freshness statement in force was issued",
  },
  bundleExpiresIn: {
    name: "policy.bundle.expires_in",
    instrument: "gauge",
    unit: "s",
    description: "Seconds until the signed freshness statement in force expires",
  },
  clientStale: {
    name: "policy.client.stale",
    instrument: "gauge",
    unit: "",
    description: "1 while evaluate fails closed with BUNDLE_STALE",
  },
  clientDegraded: {
    name: "policy.client.degraded",
    instrument: "gauge",
    unit: "",
    description: "1 while the remote client cannot confirm it has the current bundle",
  },
  clientConsecutiveFailures: {
    name: "policy.client.consecutive_failures",
    instrument: "gauge",
    unit: "{failure}",
    description: "Failed polls (remote) or reloads (local) since the last successful one",
  },
  bundleFetchDuration: {
    name: "policy.bundle.fetch.duration",
    instrument: "histogram",
    unit: "s",
    description: "Duration of the remote client's requests to its origins, body included",
  },
  rateLimitRequests: {
    name: "policy.rate_limit.requests",
    instrument: "counter",
    unit: "{request}",
    description: "Throttled requests enforced, by result and policy",
  },
  rateLimitStoreDuration: {
    name: "policy.rate_limit.store.duration",
    instrument: "histogram",
    unit: "s",
    description: "Duration of the enforcer's calls to its throttle store",
  },
  decisionLogRecords: {
    name: "policy.decision_log.records",
    instrument: "counter",
    unit: "{record}",
    description: "Decision-log records written or emitted by a sink",
  },
  decisionLogDropped: {
    name: "policy.decision_log.dropped",
    instrument: "counter",
    unit: "{record}",
    description: "Decision-log records lost, by reason",
  },
} as const;

/** The spans, and the attribute keys the library sets on them. */
export { SPAN_ATTRIBUTES, SPAN_NAMES } from "../telemetry/names.ts";

/** The events (log records with an event name). */
export const EVENTS = {
  flagEvaluation: "feature_flag.evaluation",
  decision: "policy.decision",
} as const;

/** The attribute keys of the metrics and events. */
export const ATTRIBUTES = {
  ...SPAN_ATTRIBUTES,
  reason: "policy.reason",
  ruleId: "policy.rule.id",
  errorType: "error.type",
  dropReason: "reason",
} as const;

/** Bucket boundaries, in seconds, of the fetch duration: 5 ms to 10 s. */
export const FETCH_BUCKETS = [
  0.005,
  0.01,
  0.025,
  0.05,
  0.075,
  0.1,
  0.25,
  0.5,
  0.75,
  1,
  2.5,
  5,
  7.5,
  10,
];

/** Bucket boundaries, in seconds, of the store duration: 50 µs (memory) to 1 s. */
export const STORE_BUCKETS = [
  0.00005,
  0.0001,
  0.00025,
  0.0005,
  0.001,
  0.0025,
  0.005,
  0.01,
  0.025,
  0.05,
  0.1,
  0.25,
  0.5,
  1,
];
