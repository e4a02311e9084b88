/**
 * A small billing service, from `examples/service` once `policy build` has written
 * `policy-bundle.json`:
 *
 *     deno run --allow-read=. --allow-net=127.0.0.1 --allow-env=PORT,REDIS_URL src/main.ts
 *
 * `PORT` (default 8080) is where it listens; with `REDIS_URL` every instance counts the
 * throttles in that Redis, so a tenant's limit holds across instances.
 */
import { openEnforcer, openPolicyClient } from "./policy.ts";
import { type Account, createInvoice, exportInvoices } from "./routes/invoices.ts";
import { createRefund } from "./routes/refunds.ts";
import { search } from "./routes/search.ts";

const policy = await openPolicyClient("policy-bundle.json", "keys/public-key.pem");
const enforcer = await openEnforcer(Deno.env.get("REDIS_URL"));
const port = Number(Deno.env.get("PORT") ?? "8080");

/** Stands in for real authentication. */
function accountOf(request: Request): Account {
  const plan = request.headers.get("x-plan");
  return {
    tenant: request.headers.get("x-tenant") ?? "anonymous",
    plan: plan === "pro" || plan === "enterprise" ? plan : "free",
    seats: Number(request.headers.get("x-seats") ?? "1"),
  };
}

Deno.serve({ hostname: "127.0.0.1", port }, (request) => {
  const url = new URL(request.url);
  const account = accountOf(request);
  const ask = { policy, enforcer };
  if (request.method === "POST" && url.pathname === "/invoices") {
    return createInvoice(ask, account);
  }
  if (request.method === "GET" && url.pathname === "/invoices/export") {
    return exportInvoices(ask, account);
  }
  if (request.method === "POST" && url.pathname === "/refunds") {
    return createRefund(ask, account.tenant, request.headers.get("x-role") ?? "member");
  }
  if (request.method === "GET" && url.pathname === "/search") {
    return search(ask, account.tenant, url.searchParams.get("q") ?? "");
  }
  return new Response("not found", { status: 404 });
});
