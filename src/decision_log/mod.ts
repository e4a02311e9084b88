/**
 * Decision logs: a buffered JSON-lines writer for the clients' `onDecision`
 * hook, to a file or a stream (docs/operations.md "Decision logs").
 *
 * @example To a stream, flushed at close
 * ```ts
 * import { createDecisionLogWriter } from "./mod.ts";
 * import assert from "node:assert/strict";
 *
 * const lines: string[] = [];
 * const log = createDecisionLogWriter({
 *   stream: new WritableStream({ write: (chunk) => void lines.push(new TextDecoder().decode(chunk)) }),
 * });
 * log.onDecision({
 *   timestamp: "2026-01-01T00:00:00.000Z",
 *   request: { target: { service: "s", resource: "r", action: "a" } },
 *   decision: { decision: "allow", reason: "default", policyKey: "p" },
 *   bundle: { checksum: "sha256:00", bundleVersion: 1 },
 *   sampleRate: 1,
 * });
 * await log.close();
 * assert.equal(JSON.parse(lines.join("")).decision.decision, "allow");
 * assert.equal(log.stats().written, 1);
 * ```
 *
 * @example A client that logs one decision in ten to a file
 * ```ts ignore
 * import { createRemoteClient } from "@policy/runtime";
 * import { createDecisionLogWriter } from "@policy/runtime/decision-log";
 *
 * const log = createDecisionLogWriter({ path: "/var/log/myservice/decisions.jsonl" });
 * const client = await createRemoteClient({
 *   // ...
 *   onDecision: log.onDecision,
 *   decisionLog: { sampleRate: 0.1, maskContextKeys: ["email", "user.ip"] },
 * });
 * // At shutdown: await client.close(); await log.close();
 * ```
 *
 * @module
 */
export * from "./create_decision_log_writer.ts";
// The library's one clock, the type of this module's `clock` options.
export type { Clock } from "../public/clock.ts";
// The telemetry interface of the `telemetry` option (docs/observability.md).
export type * from "../telemetry/types.ts";
