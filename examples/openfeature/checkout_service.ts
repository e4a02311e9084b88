/**
 * A checkout service that reads its feature flags through OpenFeature: the
 * code a team has before and after moving its flags into a signed bundle
 * (docs/openfeature.md "Migrating from flagd-style flags"). It knows
 * nothing of the provider behind the flags.
 *
 * @module
 */
import { OpenFeature } from "@openfeature/server-sdk";

/** The customers the example serves. */
export const CUSTOMERS = [
  { id: "cus-1", plan: "free", region: "eu" },
  { id: "cus-2", plan: "pro", region: "us" },
  { id: "cus-3", plan: "team", region: "eu" },
  { id: "cus-4", plan: "pro", region: "apac" },
] as const;

/** Prints how each customer's checkout looks, then closes OpenFeature (and its provider). */
export async function serveCheckout(): Promise<void> {
  const flags = OpenFeature.getClient();
  for (const customer of CUSTOMERS) {
    const context = { targetingKey: customer.id, plan: customer.plan, region: customer.region };
    const newCheckout = await flags.getBooleanValue("new-checkout", false, context);
    const express = await flags.getBooleanValue("express-shipping", false, context);
    const payments = await flags.getBooleanValue("payments-enabled", false, context);
    console.log(
      `${customer.id}: ${newCheckout ? "new" : "classic"} checkout, ${
        express ? "express" : "standard"
      } shipping, payments ${payments ? "on" : "off"}`,
    );
  }
  await OpenFeature.close();
}
