/**
 * Signed bundles behind the CNCF flag API: an OpenFeature provider for
 * `@openfeature/server-sdk` whose flags are the decisions of a local or
 * remote client (docs/openfeature.md). The browser provider, for
 * `@openfeature/web-sdk`, is `./openfeature/web`.
 *
 * The SDK is a peer dependency: install `@openfeature/server-sdk` (and its
 * peer `@openfeature/core`) beside this package. Nothing else of the
 * package loads it.
 *
 * @example A service's flags from its bundle
 * ```ts
 * import { OpenFeature } from "@openfeature/server-sdk";
 * import { createLocalClient } from "../clients/mod.ts";
 * import { createOpenFeatureProvider } from "./mod.ts";
 * import assert from "node:assert/strict";
 *
 * // A service verifies its bundle (`verify`) and follows its changes (`watch: true`).
 * const bundlePath = new URL("../../examples/bundle.json", import.meta.url).pathname;
 * const client = await createLocalClient({ bundlePath, allowUnsigned: true });
 * await OpenFeature.setProviderAndWait(createOpenFeatureProvider(client, { ownsClient: true }));
 * const flags = OpenFeature.getClient();
 * assert.equal(await flags.getBooleanValue("billing/invoice/create", false, { plan: "pro" }), true);
 * await OpenFeature.close();
 * ```
 *
 * @module
 */
export {
  createOpenFeatureProvider,
  type OpenFeatureProviderOptions,
  type OpenFeatureServerProvider,
  PROVIDER_NAME,
} from "./create_open_feature_provider.ts";
export type { FlagMappingOptions, PolicyFlagMetadata } from "./types.ts";
// The telemetry interface of the `telemetry` option (docs/observability.md).
export type * from "../telemetry/types.ts";
