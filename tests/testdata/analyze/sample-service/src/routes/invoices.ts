import type { Target } from "@acme/policy";
import { policy } from "../policy.ts";

const REFUND_TARGET = {
  service: "billing",
  resource: "refund",
  action: "create",
} satisfies Target;

export async function refund(tenant: string, amount: number) {
  // A request held in a const, its target held in another const.
  const request = { target: REFUND_TARGET, context: { tenant, amount } };
  const decision = await policy.evaluate(request);
  return decision;
}

export function voidInvoice(tenant: string) {
  const target = { service: "billing", resource: "invoice", action: "void" } as const;
  // Shorthand `{ target }`, optional call through `?.`.
  return policy?.evaluate({ target, context: { tenant } });
}

export function exportInvoices(tenant: string) {
  // Element access with a string key, and a no-substitution template literal.
  return policy["evaluate"]({
    target: { service: `billing`, resource: "invoice", action: `export` },
    context: { tenant },
  });
}

export function createAgain(tenant: string) {
  // The same target as refund(): one policy, two evaluation points.
  return policy.evaluate({ target: REFUND_TARGET, context: { tenant, amount: 0 } });
}
