/**
 * OpenTelemetry metrics for a policy client, with `@opentelemetry/api` only
 * (docs/operations.md "Metrics with OpenTelemetry"): a counter of decisions
 * fed by `onDecision`, and gauges of the client's state read from
 * `status()`. Any OpenTelemetry SDK registered by the application exports
 * them; without one, the API's no-op meter makes them free.
 *
 * @module
 */
// BEGIN recipe (docs/operations.md shows this verbatim)
import { type Meter, metrics } from "@opentelemetry/api";
import type { DecisionRecord, PolicyClient } from "../../mod.ts";

/**
 * An `onDecision` hook that counts decisions in `policy.decisions`, by
 * decision, reason and policy. A sampled record stands for
 * `1 / sampleRate` decisions, so the counter estimates the true count.
 */
export function countDecisions(
  meter: Meter = metrics.getMeter("@policy/runtime"),
): (record: DecisionRecord) => void {
  const decisions = meter.createCounter("policy.decisions", {
    description: "Decisions returned by evaluate",
    unit: "{decision}",
  });
  return (record) => {
    decisions.add(1 / record.sampleRate, {
      "policy.decision": record.decision.decision,
      "policy.reason": record.decision.reason,
      "policy.key": record.decision.policyKey ?? "",
    });
  };
}

/**
 * Gauges of a client's state, read at each collection: the bundle version
 * in force, and for a remote client whether it is degraded or stale and
 * how many polls failed in a row.
 */
export function observeClient(
  client: PolicyClient,
  meter: Meter = metrics.getMeter("@policy/runtime"),
): void {
  meter.createObservableGauge("policy.bundle.version", {
    description: "bundleVersion of the bundle in force (-1 without one)",
  }).addCallback((result) => result.observe(client.status().bundleVersion ?? -1));
  meter.createObservableGauge("policy.client.degraded", {
    description: "1 while the remote client cannot confirm it has the current bundle",
  }).addCallback((result) => {
    const status = client.status();
    if (status.origin === "remote") result.observe(status.degraded ? 1 : 0);
  });
  meter.createObservableGauge("policy.client.stale", {
    description: "1 while evaluate fails closed with BUNDLE_STALE",
  }).addCallback((result) => {
    const status = client.status();
    if (status.origin === "remote") result.observe(status.stale ? 1 : 0);
  });
  meter.createObservableGauge("policy.client.consecutive_failures", {
    description: "Failed polls since the last successful one",
  }).addCallback((result) => {
    const status = client.status();
    if (status.origin === "remote") result.observe(status.consecutiveFailures);
  });
}
// END recipe
