import { getClient } from "../policy.ts";

export const cleanup = async () =>
  (await getClient()).evaluate({ target: { service: "storage", resource: "blob", action: "delete" } });
