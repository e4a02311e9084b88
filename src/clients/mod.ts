/**
 * The local and remote clients: load a verified bundle, keep it current,
 * evaluate in-process (docs/local-client.md, docs/remote.md).
 *
 * @example A local client and its status
 * ```ts
 * import { createLocalClient } from "./mod.ts";
 * import assert from "node:assert/strict";
 *
 * const bundlePath = new URL("../../examples/bundle.json", import.meta.url).pathname;
 * await using client = await createLocalClient({ bundlePath, allowUnsigned: true });
 * const target = { service: "billing", resource: "invoice", action: "create" };
 * assert.equal(client.evaluate({ target, context: { plan: "pro" } }).decision, "allow");
 * assert.equal(client.status().origin, "local");
 * assert.equal(client.status().signature.status, "unsigned");
 * ```
 *
 * @module
 */
export * from "./types.ts";
export * from "./create_local_client.ts";
export * from "./create_remote_client.ts";
export * from "./remote_defaults.ts";
// The telemetry interface of the `telemetry` option (docs/observability.md).
export type * from "../telemetry/types.ts";
