import { getClient, policy } from "./policy.ts";

// Module-scope const target, held `as const`.
const INVOICE_CREATE = {
  service: "billing",
  resource: "invoice",
  action: "create",
} as const;

export class InvoiceService {
  constructor(private readonly policy: typeof import("./policy.ts").policy) {}

  async create(tenant: string, plan: string) {
    // Multi-line call with comments inside.
    const decision = await this.policy.evaluate({
      // the target comes from a module-level const
      target: INVOICE_CREATE,
      /* the context */ context: { tenant, plan },
    });
    return decision.decision === "allow";
  }

  list(tenant: string) {
    return getClient().evaluate({
      target: { service: "billing", resource: "invoice", action: "list" },
      context: { tenant },
    });
  }
}

export function health() {
  return policy.evaluate({ target: { service: "billing", resource: "health", action: "read" }, context: {} });
}
