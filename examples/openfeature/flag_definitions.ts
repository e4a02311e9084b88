/**
 * The flags as the service had them before the bundle: flagd-style boolean
 * flags (on/off variants, a default variant, targeting on the evaluation
 * context), served here by the OpenFeature SDK's in-memory provider, which
 * takes flags of the same shape and stands in for a flagd daemon so that
 * the example runs anywhere.
 *
 * @module
 */
import type { InMemoryProvider } from "@openfeature/server-sdk";

type FlagConfiguration = NonNullable<ConstructorParameters<typeof InMemoryProvider>[0]>;

/** `new-checkout` for paid plans, `express-shipping` in the EU, `payments-enabled` for all. */
export const FLAG_DEFINITIONS: FlagConfiguration = {
  "new-checkout": {
    variants: { on: true, off: false },
    defaultVariant: "off",
    disabled: false,
    contextEvaluator: (context) => context.plan === "pro" || context.plan === "team" ? "on" : "off",
  },
  "express-shipping": {
    variants: { on: true, off: false },
    defaultVariant: "off",
    disabled: false,
    contextEvaluator: (context) => context.region === "eu" ? "on" : "off",
  },
  "payments-enabled": {
    variants: { on: true, off: false },
    defaultVariant: "on",
    disabled: false,
  },
};
