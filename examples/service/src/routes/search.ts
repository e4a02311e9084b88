import type { PolicyClient } from "../../../../mod.ts";
import { refusal } from "../http.ts";

/** GET /search?q=…: can be switched off by a kill-switch rule without a deploy. */
export function search(policy: PolicyClient, tenant: string, query: string): Response {
  const decision = policy.evaluate({
    target: { service: "search", resource: "index", action: "query" },
    context: { tenant },
  });
  return refusal(decision, () => false) ?? Response.json({ query, hits: [] });
}
