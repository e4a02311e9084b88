/**
 * Before: the checkout service with its flagd-style flags.
 *
 *   deno run --allow-read=examples examples/openfeature/with_flagd_style_flags.ts
 *
 * @module
 */
import { InMemoryProvider, OpenFeature } from "@openfeature/server-sdk";
import { FLAG_DEFINITIONS } from "./flag_definitions.ts";
import { serveCheckout } from "./checkout_service.ts";

await OpenFeature.setProviderAndWait(new InMemoryProvider(FLAG_DEFINITIONS));

await serveCheckout();
