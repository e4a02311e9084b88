import { answer } from "../http.ts";
import type { Ask } from "./invoices.ts";

/** POST /refunds: only the finance team may refund. */
export function createRefund({ policy, enforcer }: Ask, tenant: string, role: string) {
  const context = { tenant, role };
  const decision = policy.evaluate({
    target: { service: "billing", resource: "refund", action: "create" },
    context,
  });
  return answer(enforcer, decision, context, () => new Response(null, { status: 202 }));
}
