/**
 * A small billing service: `deno run --allow-read=. --allow-net=127.0.0.1 src/main.ts`
 * from `examples/service` once `policy build` has written `policy-bundle.json`.
 */
import { openPolicyClient } from "./policy.ts";
import { type Account, createInvoice, exportInvoices } from "./routes/invoices.ts";
import { createRefund } from "./routes/refunds.ts";
import { search } from "./routes/search.ts";

const policy = await openPolicyClient("policy-bundle.json", "keys/public-key.pem");

/** Stands in for real authentication. */
function accountOf(request: Request): Account {
  const plan = request.headers.get("x-plan");
  return {
    tenant: request.headers.get("x-tenant") ?? "anonymous",
    plan: plan === "pro" || plan === "enterprise" ? plan : "free",
    seats: Number(request.headers.get("x-seats") ?? "1"),
  };
}

Deno.serve({ hostname: "127.0.0.1", port: 8080 }, (request) => {
  const url = new URL(request.url);
  const account = accountOf(request);
  if (request.method === "POST" && url.pathname === "/invoices") {
    return createInvoice(policy, account);
  }
  if (request.method === "GET" && url.pathname === "/invoices/export") {
    return exportInvoices(policy, account);
  }
  if (request.method === "POST" && url.pathname === "/refunds") {
    return createRefund(policy, account.tenant, request.headers.get("x-role") ?? "member");
  }
  if (request.method === "GET" && url.pathname === "/search") {
    return search(policy, account.tenant, url.searchParams.get("q") ?? "");
  }
  return new Response("not found", { status: 404 });
});
