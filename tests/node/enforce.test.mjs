// The enforcement layer from the installed package, under Node: the web
// guard on Node's Request and Response, the Express 5 adapter with the real
// Express listening on 127.0.0.1, and the Redis store through the real
// `redis` and `ioredis` clients against a redis-server this test starts
// (loopback, a random password, nothing persisted). The Redis test is
// skipped, with the reason, when redis-server is missing; CI installs it.
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { redisConfig } from "../_redis_config.mjs";
import { importDependency, importPackage } from "./_package.mjs";

/** A clock stopped at 0 (the memory store reads its monotonic now()). */
const FROZEN = { now: () => 0, wallNow: () => 0, setTimeout: () => 0, clearTimeout() {} };

const { compileBundle, createEvaluator } = await importPackage("./engine");
const { createEnforcer, createGuard, createMemoryStore } = await importPackage("./enforce");
const { expressGuard } = await importPackage("./enforce/express");
const { createRedisStore, ioredisCommands, nodeRedisCommands } = await importPackage(
  "./enforce/redis",
);

const TARGET = { service: "billing", resource: "invoice", action: "export" };
const evaluate = createEvaluator(compileBundle({
  schemaVersion: 1,
  env: "test",
  policies: [{
    policyKey: "billing.invoice.export",
    activeVersion: 1,
    rules: [{
      id: "per-tenant",
      status: "active",
      priority: 1,
      target: TARGET,
      effect: { type: "throttle", throttle: { limit: 2, windowSeconds: 60, key: "tenant" } },
    }],
  }],
}));
const client = { evaluate };

test("the web guard decides on Node's Request and Response", async () => {
  const guard = createGuard({
    client,
    store: createMemoryStore({ clock: FROZEN }),
    target: () => TARGET,
    context: (request) => ({ tenant: request.headers.get("x-tenant") ?? undefined }),
  });
  const handler = guard.serve(() => new Response("id,total\n"));
  const ask = () => handler(new Request("http://localhost/", { headers: { "x-tenant": "acme" } }));
  assert.equal(
    (await ask()).headers.get("ratelimit"),
    '"billing.invoice.export/per-tenant";r=1;t=63',
  );
  assert.equal((await ask()).status, 200);
  const refused = await ask();
  assert.equal(refused.status, 429);
  assert.equal(refused.headers.get("retry-after"), "63");
  assert.equal((await refused.json()).title, "Quota Exceeded");
});

test("expressGuard with Express 5 on 127.0.0.1 under Node", async () => {
  const { default: express } = await importDependency("express");
  const app = express();
  app.use(expressGuard({
    client,
    store: createMemoryStore(),
    target: () => TARGET,
    context: (req) => ({ tenant: req.get("x-tenant") }),
  }));
  app.get("/export", (_req, res) => res.send(res.locals.policyDecision.decision));
  const server = await new Promise((resolve) => {
    const listening = app.listen(0, "127.0.0.1", () => resolve(listening));
  });
  try {
    const url = `http://127.0.0.1:${server.address().port}/export`;
    const ask = () => fetch(url, { headers: { "x-tenant": "acme" } });
    const first = await ask();
    assert.equal(await first.text(), "throttle");
    assert.match(first.headers.get("ratelimit") ?? "", /;r=1;t=\d+$/);
    await (await ask()).text();
    const refused = await ask();
    assert.equal(refused.status, 429);
    assert.match(refused.headers.get("content-type") ?? "", /^application\/problem\+json/);
    assert.deepEqual((await refused.json())["violated-policies"], [
      "billing.invoice.export/per-tenant",
    ]);
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** A port that was free a moment ago. */
async function freePort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Resolves once `port` accepts a connection; rejects after 10 s. */
async function accepting(port) {
  for (const deadline = Date.now() + 10_000; Date.now() < deadline;) {
    const ok = await new Promise((resolve) => {
      const socket = new Socket();
      socket.once("connect", () => resolve(socket.destroy() || true));
      socket.once("error", () => resolve(false));
      socket.connect(port, "127.0.0.1");
    });
    if (ok) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`redis-server did not listen on ${port}`);
}

const redisServer = spawnSync("redis-server", ["--version"], { encoding: "utf8" });
const redisSkip = redisServer.status === 0
  ? false
  : `redis-server is not available (${
    redisServer.error?.code ?? redisServer.stderr
  }): apt-get install redis-server`;

test(
  "the Redis store through redis and ioredis, one bucket, under Node",
  { skip: redisSkip },
  async () => {
    const dir = mkdtempSync(join(tmpdir(), "policy-redis-"));
    const port = await freePort();
    const password = randomUUID().replaceAll("-", "");
    writeFileSync(join(dir, "redis.conf"), redisConfig(dir, port, password));
    const server = spawn("redis-server", [join(dir, "redis.conf")], { stdio: "ignore" });
    const exited = new Promise((resolve) => server.once("exit", resolve));
    const { createClient } = await importDependency("redis");
    const { Redis } = await importDependency("ioredis");
    let nodeRedis;
    let ioredis;
    try {
      await accepting(port);
      const url = `redis://:${password}@127.0.0.1:${port}`;
      nodeRedis = createClient({ url });
      nodeRedis.on("error", () => {});
      await nodeRedis.connect();
      ioredis = new Redis(url);
      ioredis.on("error", () => {});
      // A bound on a hang, not the default 200 ms: a loaded CI machine can take longer, and
      // ioredis is still connecting at the first check.
      const timeoutMs = 10_000;
      const enforcers = [
        createEnforcer({ store: createRedisStore(nodeRedisCommands(nodeRedis), { timeoutMs }) }),
        createEnforcer({ store: createRedisStore(ioredisCommands(ioredis), { timeoutMs }) }),
      ];
      const decision = evaluate({ target: TARGET, context: { tenant: "acme" } });
      const answers = [];
      for (let i = 0; i < 4; i++) {
        const verdict = await enforcers[i % 2].enforce(decision, { tenant: "acme" });
        answers.push(verdict.proceed ? 200 : verdict.status);
      }
      assert.deepEqual(answers, [200, 200, 429, 429], "one limit of 2 across both clients");
    } finally {
      if (nodeRedis?.isOpen) await nodeRedis.close();
      ioredis?.disconnect();
      server.kill("SIGTERM");
      await exited;
      rmSync(dir, { recursive: true, force: true });
    }
  },
);
