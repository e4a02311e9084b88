/**
 * Where the checkout flags live now: `checkout-policies.json`, a bundle
 * signed with the team's release key (only its public key ships with the
 * service), and the target each flag key evaluates.
 *
 * @module
 */
import type { LocalClientOptions, Target } from "../../mod.ts";

const here = (file: string) => decodeURIComponent(new URL(file, import.meta.url).pathname);

/** The local client of the checkout bundle, verified with the release key. */
export const POLICY_CLIENT: LocalClientOptions = {
  bundlePath: here("./checkout-policies.json"),
  verify: {
    algorithm: "ECDSA_SHA_256",
    publicKey: await Deno.readTextFile(here("./release-key.pub.pem")),
    keyId: "release-1",
  },
  watch: true,
};

/** Each flag key of the service, and the target of the bundle that decides it. */
export const CHECKOUT_FLAGS: Record<string, Target> = {
  "new-checkout": { service: "checkout", resource: "page", action: "new-flow" },
  "express-shipping": { service: "checkout", resource: "shipping", action: "express" },
  "payments-enabled": { service: "checkout", resource: "payments", action: "charge" },
};
