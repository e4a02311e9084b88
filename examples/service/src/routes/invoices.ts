import type { PolicyClient } from "../../../../mod.ts";
import { refusal } from "../http.ts";

/** An account as the session middleware resolves it. */
export interface Account {
  tenant: string;
  plan: "free" | "pro" | "enterprise";
  seats: number;
}

/** POST /invoices */
export function createInvoice(policy: PolicyClient, account: Account): Response {
  const decision = policy.evaluate({
    target: { service: "billing", resource: "invoice", action: "create" },
    context: { tenant: account.tenant, plan: account.plan, seats: account.seats },
  });
  return refusal(decision, () => false) ??
    Response.json({ id: crypto.randomUUID() }, { status: 201 });
}

const EXPORT_TARGET = { service: "billing", resource: "invoice", action: "export" } as const;
const exportsThisMinute = new Map<string, number>();

/** GET /invoices/export */
export function exportInvoices(policy: PolicyClient, account: Account): Response {
  const decision = policy.evaluate({ target: EXPORT_TARGET, context: { tenant: account.tenant } });
  const count = (exportsThisMinute.get(account.tenant) ?? 0) + 1;
  exportsThisMinute.set(account.tenant, count);
  const limit = decision.throttle?.limit ?? Infinity;
  return refusal(decision, () => count > limit) ?? new Response("id,total\n", { status: 200 });
}
