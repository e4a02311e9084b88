/**
 * After: the same service, its flags now decisions of a signed policy
 * bundle. Only the provider changed: the imports and the setProvider
 * statement.
 *
 *   deno run --allow-read=examples examples/openfeature/with_policy_bundle.ts
 *
 * @module
 */
import { OpenFeature } from "@openfeature/server-sdk";
import { createLocalClient } from "../../mod.ts"; // "@policy/runtime"
import { createOpenFeatureProvider } from "../../src/openfeature/mod.ts"; // "@policy/runtime/openfeature"
import { CHECKOUT_FLAGS, POLICY_CLIENT } from "./checkout_policies.ts";
import { serveCheckout } from "./checkout_service.ts";

await OpenFeature.setProviderAndWait(
  createOpenFeatureProvider(createLocalClient(POLICY_CLIENT), {
    flags: CHECKOUT_FLAGS,
    ownsClient: true,
  }),
);

await serveCheckout();
