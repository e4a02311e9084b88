import { answer } from "../http.ts";
import type { Ask } from "./invoices.ts";

/** GET /search?q=…: can be switched off by a kill-switch rule without a deploy. */
export function search({ policy, enforcer }: Ask, tenant: string, query: string) {
  const context = { tenant };
  const decision = policy.evaluate({
    target: { service: "search", resource: "index", action: "query" },
    context,
  });
  return answer(enforcer, decision, context, () => Response.json({ query, hits: [] }));
}
