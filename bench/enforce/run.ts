// deno task bench:enforce [--no-write] [--seconds 2]
//
// 1. What enforcement adds to a request: evaluate alone against evaluate +
//    enforce (in-memory store), per decision, as a ratio in one run.
// 2. The Redis store's throughput with concurrent checks against
//    rate-limiter-flexible's RateLimiterRedis (a fixed window), on the same
//    redis-server (started here, as the tests start it), through node-redis
//    and ioredis.
// Writes bench/enforce/results-deno.json and the block between the
// `enforce:deno` markers of docs/performance.md. Not run in CI.
import { parseArgs } from "node:util";
import { RateLimiterRedis, RateLimiterRes } from "rate-limiter-flexible";
import { compileBundle, createEvaluator, type EvaluationRequest } from "../../mod.ts";
import { createEnforcer, createMemoryStore } from "../../src/enforce/mod.ts";
import { createRedisStore } from "../../src/enforce/redis/mod.ts";
import { enforcementBundle, TARGETS } from "../../tests/enforce/_fixtures.ts";
import { type ClientKind, connectClient } from "../../tests/enforce/_redis_clients.ts";
import { findRedisServer, startRedisServer } from "../../tests/enforce/_redis_server.ts";
import { replaceBetweenMarkers } from "../peers/_report.ts";
import { median } from "../_stats.ts";

const args = parseArgs({
  args: Deno.args,
  options: { "no-write": { type: "boolean" }, seconds: { type: "string", default: "2" } },
});
const SECONDS = Number(args.values.seconds);
const ROUNDS = 5;
const TENANTS = 1_000;

// 1. In process.
const OPS = 100_000;
const evaluate = createEvaluator(compileBundle(enforcementBundle(1e12, 60)));
const cases: { name: string; requests: EvaluationRequest[] }[] = [
  { name: "allow", requests: [{ target: TARGETS.allow, context: {} }] },
  { name: "deny (403)", requests: [{ target: TARGETS.deny, context: {} }] },
  {
    name: `throttle, admitted (${TENANTS.toLocaleString("en-US")} tenants)`,
    requests: Array.from({ length: TENANTS }, (_, i) => ({
      target: TARGETS.throttle,
      context: { tenant: `tenant-${i}` },
    })),
  },
];
const inProcess = [];
for (const { name, requests } of cases) {
  const alone: number[] = [];
  const guarded: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const enforcer = createEnforcer({ store: createMemoryStore() });
    let start = performance.now();
    for (let i = 0; i < OPS; i++) evaluate(requests[i % requests.length]!);
    alone.push((performance.now() - start) * 1e6 / OPS);
    start = performance.now();
    for (let i = 0; i < OPS; i++) {
      const request = requests[i % requests.length]!;
      await enforcer.enforce(evaluate(request), request.context);
    }
    guarded.push((performance.now() - start) * 1e6 / OPS);
  }
  const row = { name, evaluateNs: median(alone), guardedNs: median(guarded) };
  inProcess.push({ ...row, ratio: row.guardedNs / row.evaluateNs });
  console.error(`${name}: ${row.evaluateNs.toFixed(0)} ns → ${row.guardedNs.toFixed(0)} ns`);
}

// 2. Redis.
const found = await findRedisServer();
if (!found.ok) throw new Error(`the Redis part needs redis-server: ${found.reason}`);
await Deno.mkdir(".tmp", { recursive: true });
const dir = await Deno.realPath(await Deno.makeTempDir({ dir: ".tmp", prefix: "bench-enforce-" }));
const redis = await startRedisServer(dir);
const LIMIT = 20;

/** Checks per second of `check` run by `concurrency` loops for SECONDS. */
async function throughput(check: (key: string) => Promise<unknown>, concurrency: number) {
  let done = 0;
  const stopAt = performance.now() + SECONDS * 1000;
  const start = performance.now();
  await Promise.all(Array.from({ length: concurrency }, async (_, loop) => {
    for (let i = loop; performance.now() < stopAt; i += concurrency) {
      await check(`tenant-${i % TENANTS}`);
      done++;
    }
  }));
  return done / ((performance.now() - start) / 1000);
}

const redisRows = [];
try {
  for (const kind of ["redis", "ioredis"] as ClientKind[]) {
    await using client = await connectClient(kind, redis.url);
    const store = createRedisStore(client.commands, { timeoutMs: 5_000 });
    const limiter = new RateLimiterRedis({
      storeClient: client.client,
      useRedisPackage: kind === "redis",
      points: LIMIT,
      duration: 60,
    });
    const ours = (key: string) => store.hit(key, LIMIT, 60e6);
    const theirs = (key: string) =>
      limiter.consume(key).catch((refused) => {
        if (!(refused instanceof RateLimiterRes)) throw refused;
      });
    /** Runs `check`, and reads the server's own time per script call (INFO commandstats). */
    const measure = async (check: (key: string) => Promise<unknown>, concurrency: number) => {
      await client.commands.send(["FLUSHALL"]);
      await client.commands.send(["CONFIG", "RESETSTAT"]);
      const perSecond = await throughput(check, concurrency);
      const stats = String(await client.commands.send(["INFO", "commandstats"]));
      // Scripts run as EVALSHA or EVAL (rate-limiter-flexible sends EVAL with node-redis).
      let calls = 0;
      let usec = 0;
      for (const [, c, u] of stats.matchAll(/cmdstat_(?:eval|evalsha):calls=(\d+),usec=(\d+)/g)) {
        calls += Number(c);
        usec += Number(u);
      }
      const serverMicros = usec / calls;
      return { perSecond, serverMicros };
    };
    for (const concurrency of [1, 16, 128]) {
      const figures = { ours: [] as number[], theirs: [] as number[] };
      const server = { ours: [] as number[], theirs: [] as number[] };
      for (let round = 0; round < ROUNDS; round++) {
        const a = await measure(ours, concurrency);
        const b = await measure(theirs, concurrency);
        figures.ours.push(a.perSecond);
        server.ours.push(a.serverMicros);
        figures.theirs.push(b.perSecond);
        server.theirs.push(b.serverMicros);
      }
      const row = {
        client: kind,
        concurrency,
        oursPerSecond: median(figures.ours),
        theirsPerSecond: median(figures.theirs),
        oursServerMicros: median(server.ours),
        theirsServerMicros: median(server.theirs),
      };
      redisRows.push({ ...row, ratio: row.oursPerSecond / row.theirsPerSecond });
      console.error(
        `${kind} ×${concurrency}: ours ${row.oursPerSecond.toFixed(0)}/s, ` +
          `rate-limiter-flexible ${row.theirsPerSecond.toFixed(0)}/s`,
      );
    }
  }
} finally {
  await redis.stop();
  await Deno.remove(dir, { recursive: true });
}

const version = new TextDecoder().decode(
  (await new Deno.Command("redis-server", { args: ["--version"] }).output()).stdout,
).match(/v=([\d.]+)/)?.[1];
const n = (value: number) => Math.round(value).toLocaleString("en-US");
const table = [
  `In process, medians of ${ROUNDS} rounds of ${n(OPS)} requests.`,
  "",
  "| Decision | `evaluate` alone, ns | `evaluate` + `enforce`, ns | × `evaluate` |",
  "| -------- | -------------------: | -------------------------: | -----------: |",
  ...inProcess.map((r) =>
    `| ${r.name} | ${n(r.evaluateNs)} | ${n(r.guardedNs)} | ${r.ratio.toFixed(1)}× |`
  ),
  "",
  `Redis ${version} on 127.0.0.1, one client connection, a limit of ${LIMIT} per 60 s over ` +
  `${n(TENANTS)} tenants; medians of ${ROUNDS} rounds of ${SECONDS} s.`,
  "",
  "| Client | Concurrent checks | ours, checks/s | rate-limiter-flexible, checks/s | ours ÷ theirs | Redis µs per check, ours / theirs |",
  "| ------ | ----------------: | -------------: | ------------------------------: | ------------: | --------------------------------: |",
  ...redisRows.map((r) =>
    `| ${r.client} | ${r.concurrency} | ${n(r.oursPerSecond)} | ${n(r.theirsPerSecond)} | ${
      r.ratio.toFixed(2)
    } | ${r.oursServerMicros.toFixed(1)} / ${r.theirsServerMicros.toFixed(1)} |`
  ),
].join("\n");
console.log(table);
if (!args.values["no-write"]) {
  await Deno.writeTextFile(
    new URL("./results-deno.json", import.meta.url),
    `${JSON.stringify({ inProcess, redis: redisRows, redisVersion: version }, null, 2)}\n`,
  );
  const docs = new URL("../../docs/performance.md", import.meta.url);
  await Deno.writeTextFile(
    docs,
    replaceBetweenMarkers(await Deno.readTextFile(docs), "enforce:deno", table),
  );
}
