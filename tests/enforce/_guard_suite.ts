/**
 * One suite for the three guards (web, Hono, Express), each serving on
 * 127.0.0.1 with its real framework and asked over HTTP with `fetch`: every
 * decision's answer, the decision reaching the handler, the throttle's
 * fields, and a failing target function ending as a 500.
 *
 * The servers route `/<name>` to `TARGETS[name]` of `_fixtures.ts`, read
 * the tenant from `x-tenant`, answer `/broken` by throwing from `target`,
 * and have a handler that answers `{decision, value}` from the decision it
 * was given.
 *
 * @module
 */
import assert from "node:assert/strict";
import {
  createMemoryStore,
  type EvaluatesRequests,
  type ThrottleStore,
} from "../../src/enforce/mod.ts";
import { enforcementClient, readRateLimit, readRateLimitPolicy } from "./fixtures.ts";
import { FakeClock } from "../_fake_clock.ts";

/** A server behind a guard. */
export interface GuardServer extends AsyncDisposable {
  baseUrl: string;
}

/** Starts the framework's server with the guard over `client` and `store`. */
export type StartGuardServer = (
  setup: { client: EvaluatesRequests; store: ThrottleStore },
) => Promise<GuardServer>;

async function get(server: GuardServer, path: string, tenant?: string) {
  const response = await fetch(`${server.baseUrl}${path}`, {
    headers: tenant === undefined ? {} : { "x-tenant": tenant },
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text };
}

/** Registers the suite's tests for `framework`. */
export function guardSuite(framework: string, start: StartGuardServer): void {
  const test = (name: string, fn: (server: GuardServer) => Promise<void>) =>
    Deno.test(`${framework}: ${name}`, async () => {
      await using server = await start({
        client: enforcementClient(2, 60),
        store: createMemoryStore({ clock: new FakeClock({ now: 0 }) }),
      });
      await fn(server);
    });

  test("allow and custom reach the handler with their decision", async (server) => {
    const allow = await get(server, "/allow");
    assert.equal(allow.status, 200);
    assert.deepEqual(JSON.parse(allow.text), { decision: "allow" });
    assert.equal(allow.headers.get("ratelimit"), null);
    const custom = await get(server, "/custom");
    assert.deepEqual(JSON.parse(custom.text), { decision: "custom", value: { color: "red" } });
  });

  test("deny is 403 and kill_switch 503, with problem details", async (server) => {
    for (
      const [path, status, title] of [["/deny", 403, "Forbidden"], [
        "/kill",
        503,
        "Service Unavailable",
      ]] as const
    ) {
      const answer = await get(server, path);
      assert.equal(answer.status, status, path);
      assert.match(answer.headers.get("content-type") ?? "", /^application\/problem\+json\b/);
      const problem = JSON.parse(answer.text);
      assert.deepEqual([problem.status, problem.title, problem.type], [
        status,
        title,
        "about:blank",
      ]);
    }
  });

  test("a throttle answers with RateLimit fields, then 429 with Retry-After, per tenant", async (server) => {
    for (const remaining of [1, 0]) {
      const answer = await get(server, "/throttle", "acme");
      assert.equal(answer.status, 200);
      assert.deepEqual(JSON.parse(answer.text), { decision: "throttle" });
      assert.deepEqual(readRateLimitPolicy(answer.headers.get("ratelimit-policy")), {
        name: "billing.invoice.export/per-tenant",
        q: 2,
        w: 60,
      });
      assert.equal(readRateLimit(answer.headers.get("ratelimit")).r, remaining);
    }
    const over = await get(server, "/throttle", "acme");
    assert.equal(over.status, 429);
    assert.equal(over.headers.get("retry-after"), "63");
    assert.deepEqual(readRateLimit(over.headers.get("ratelimit")), {
      name: "billing.invoice.export/per-tenant",
      r: 0,
      t: 63,
    });
    const problem = JSON.parse(over.text);
    assert.equal(problem.type, "https://iana.org/assignments/http-problem-types#quota-exceeded");
    assert.deepEqual(problem["violated-policies"], ["billing.invoice.export/per-tenant"]);
    assert.ok(!over.text.includes("acme"), "no context value in the body");
    assert.equal((await get(server, "/throttle", "globex")).status, 200, "another tenant");
  });

  test("a failing target function is a 500, not a pass", async (server) => {
    const broken = await get(server, "/broken");
    assert.equal(broken.status, 500);
  });
}
