// This module is browser compatible.
// The `feature_flag.evaluation` event of both OpenFeature providers
// (docs/observability.md "OpenFeature"): what a resolution tells the
// telemetry. Without a `telemetry` option the providers call none of this.
import type { EvaluationContext, ResolutionDetails } from "@openfeature/core";
import type { TelemetryFlagEvaluation } from "../telemetry/types.ts";
import type { BundleFacts } from "./_flag_resolver.ts";

/** The event of one resolution of `flagKey` by the provider `providerName`. */
export function flagEvaluation(
  providerName: string,
  flagKey: string,
  details: ResolutionDetails<unknown>,
  context: EvaluationContext | undefined,
  bundle: BundleFacts,
): TelemetryFlagEvaluation {
  const metadata = details.flagMetadata ?? {};
  const evaluation: TelemetryFlagEvaluation = {
    flagKey,
    providerName,
    reason: details.reason ?? "UNKNOWN",
    value: details.value,
    version: bundle.checksum === "" ? null : bundle.checksum,
  };
  if (details.variant !== undefined) evaluation.variant = details.variant;
  if (details.errorCode !== undefined) evaluation.errorCode = details.errorCode;
  if (details.errorMessage !== undefined) evaluation.errorMessage = details.errorMessage;
  const targetingKey = context?.targetingKey;
  if (typeof targetingKey === "string" && targetingKey !== "") evaluation.contextId = targetingKey;
  if (typeof metadata.decision === "string") evaluation.decision = metadata.decision;
  if (typeof metadata.policyKey === "string") evaluation.policyKey = metadata.policyKey;
  return evaluation;
}
