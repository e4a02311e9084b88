/**
 * Decision logs: a buffered JSON-lines writer for the clients' `onDecision`
 * hook, to a file or a stream (docs/operations.md "Decision logs").
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
export type { Clock } from "../_internal/clock.ts";
