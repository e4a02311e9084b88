import { createLocalClient } from "@acme/policy";

export const policy = await createLocalClient({ bundlePath: "./policy-bundle.json" });

export function getClient() {
  return policy;
}
