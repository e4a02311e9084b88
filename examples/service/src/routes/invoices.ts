import type { PolicyClient } from "../../../../mod.ts";
import type { Enforcer } from "../../../../src/enforce/mod.ts";
import { answer } from "../http.ts";

/** What a route asks: the policy client decides, the enforcer answers. */
export interface Ask {
  policy: PolicyClient;
  enforcer: Enforcer;
}

/** An account as the session middleware resolves it. */
export interface Account {
  tenant: string;
  plan: "free" | "pro" | "enterprise";
  seats: number;
}

/** POST /invoices */
export function createInvoice({ policy, enforcer }: Ask, account: Account): Promise<Response> {
  const context = { tenant: account.tenant, plan: account.plan, seats: account.seats };
  const decision = policy.evaluate({
    target: { service: "billing", resource: "invoice", action: "create" },
    context,
  });
  return answer(
    enforcer,
    decision,
    context,
    () => Response.json({ id: crypto.randomUUID() }, { status: 201 }),
  );
}

/** GET /invoices/export: throttled per tenant by the bundle; the enforcer counts. */
export function exportInvoices({ policy, enforcer }: Ask, account: Account): Promise<Response> {
  const context = { tenant: account.tenant };
  const decision = policy.evaluate({
    target: { service: "billing", resource: "invoice", action: "export" },
    context,
  });
  return answer(enforcer, decision, context, () => new Response("id,total\n"));
}
