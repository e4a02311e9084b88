// @ts-check
import { policy } from "../policy.ts";

/**
 * Nightly export. Checks: client.evaluate({ target: { service: "x", resource: "y", action: "z" } })
 * @param {string} tenant
 */
export async function runExport(tenant) {
  const decision = await policy.evaluate({
    target: { service: "reports", resource: "export", action: "run" },
    context: { tenant },
  });
  return decision;
}
