// The web-standard guard behind Deno.serve on 127.0.0.1, asked over HTTP.
import assert from "node:assert/strict";
import { createGuard, createMemoryStore } from "../../src/enforce/mod.ts";
import { enforcementClient, targetOfPath, TARGETS } from "./fixtures.ts";
import { guardSuite } from "./_guard_suite.ts";
import { FakeClock } from "../_fake_clock.ts";

guardSuite("createGuard (Deno.serve)", ({ client, store }) => {
  const guard = createGuard({
    client,
    store,
    target: (request) => targetOfPath(new URL(request.url).pathname),
    context: (request) => ({ tenant: request.headers.get("x-tenant") ?? undefined }),
  });
  const server = Deno.serve(
    {
      hostname: "127.0.0.1",
      port: 0,
      onListen: () => {},
      onError: () => new Response("internal error", { status: 500 }),
    },
    guard.serve((_request, decision) =>
      Response.json({
        decision: decision.decision,
        ...(decision.parsedValue === undefined ? {} : { value: decision.parsedValue }),
      })
    ),
  );
  return Promise.resolve({
    baseUrl: `http://127.0.0.1:${server.addr.port}`,
    [Symbol.asyncDispose]: () => server.shutdown(),
  });
});

Deno.test("createGuard: the plain guard answers refusals and null for requests that go on", async () => {
  const guard = createGuard({
    client: enforcementClient(1, 60),
    store: createMemoryStore({ clock: new FakeClock({ now: 0 }) }),
    target: (request) => targetOfPath(new URL(request.url).pathname),
  });
  assert.equal(await guard(new Request("http://localhost/allow")), null);
  assert.equal((await guard(new Request("http://localhost/deny")))?.status, 403);
  assert.equal(await guard(new Request("http://localhost/throttle")), null);
  assert.equal((await guard(new Request("http://localhost/throttle")))?.status, 429);
  const verdict = await guard.verdict(new Request("http://localhost/custom"));
  assert.ok(verdict.proceed);
  assert.deepEqual(verdict.decision.parsedValue, { color: "red" });
});

Deno.test("createGuard: a handler's immutable response still gets the RateLimit fields", async () => {
  const guard = createGuard({
    client: enforcementClient(5, 60),
    target: () => TARGETS.throttle,
  });
  const handler = guard.serve(() => Response.redirect("http://localhost/elsewhere", 303));
  const response = await handler(new Request("http://localhost/"));
  assert.equal(response.status, 303);
  assert.match(response.headers.get("ratelimit") ?? "", /;r=4;t=\d+$/);
});

Deno.test("createGuard: an unknown option is INVALID_OPTIONS naming the closest one, not a silent default", () => {
  const client = enforcementClient();
  assert.throws(
    () =>
      createGuard({
        client,
        target: () => TARGETS.throttle,
        whenStoreFail: "open",
      } as never),
    (error: Error & { code?: string }) => {
      assert.equal(error.code, "INVALID_OPTIONS");
      assert.match(error.message, /"whenStoreFail"; did you mean "whenStoreFails"\?/);
      return true;
    },
  );
  assert.throws(() => createGuard({ target: () => TARGETS.throttle } as never), /client/);
});
