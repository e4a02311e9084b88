// The Express 5 adapter with the real Express, listening on 127.0.0.1.
import type { AddressInfo } from "node:net";
import express from "express";
import { expressGuard } from "../../src/enforce/express_guard.ts";
import type { Decision } from "../../src/engine/mod.ts";
import { targetOfPath } from "./fixtures.ts";
import { guardSuite } from "./_guard_suite.ts";

guardSuite("expressGuard (Express 5)", async ({ client, store }) => {
  const app = express();
  app.use(expressGuard({
    client,
    store,
    target: (req: express.Request) => targetOfPath(req.path),
    context: (req: express.Request) => ({ tenant: req.get("x-tenant") }),
  }));
  app.use((_req: express.Request, res: express.Response) => {
    const decision = res.locals.policyDecision as Decision;
    res.json({
      decision: decision.decision,
      ...(decision.parsedValue === undefined ? {} : { value: decision.parsedValue }),
    });
  });
  app.use(
    (
      _error: unknown,
      _req: express.Request,
      res: express.Response,
      _next: express.NextFunction,
    ) => {
      res.status(500).send("internal error");
    },
  );
  const server = await new Promise<ReturnType<typeof app.listen>>((resolve) => {
    const listening = app.listen(0, "127.0.0.1", () => resolve(listening));
  });
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    [Symbol.asyncDispose]: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error?: Error) => error ? reject(error) : resolve());
      }),
  };
});
