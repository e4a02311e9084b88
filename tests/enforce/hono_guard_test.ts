// The Hono adapter with the real Hono, served by Deno.serve on 127.0.0.1.
import { Hono } from "hono";
import { honoGuard, type HonoGuardVariables } from "../../src/enforce/hono_guard.ts";
import { targetOfPath } from "./fixtures.ts";
import { guardSuite } from "./_guard_suite.ts";

guardSuite("honoGuard (Hono)", ({ client, store }) => {
  const app = new Hono<{ Variables: HonoGuardVariables }>();
  app.use(
    "*",
    honoGuard({
      client,
      store,
      target: (c) => targetOfPath(c.req.path),
      context: (c) => ({ tenant: c.req.header("x-tenant") }),
    }),
  );
  app.get("*", (c) => {
    const decision = c.get("policyDecision");
    return c.json({
      decision: decision.decision,
      ...(decision.parsedValue === undefined ? {} : { value: decision.parsedValue }),
    });
  });
  app.onError((_error, c) => c.text("internal error", 500));
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, app.fetch);
  return Promise.resolve({
    baseUrl: `http://127.0.0.1:${server.addr.port}`,
    [Symbol.asyncDispose]: () => server.shutdown(),
  });
});
