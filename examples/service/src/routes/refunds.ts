import type { PolicyClient } from "../../../../mod.ts";
import { refusal } from "../http.ts";

/** POST /refunds: only the finance team may refund. */
export function createRefund(policy: PolicyClient, tenant: string, role: string): Response {
  const decision = policy.evaluate({
    target: {
      service: "billing",
      resource: "refund",
      action: "create",
    },
    context: { tenant, role },
  });
  return refusal(decision, () => false) ?? new Response(null, { status: 202 });
}
