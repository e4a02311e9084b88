// deno task bench:enforce [--no-write] [--seconds 2]
//
// 1. What enforcement adds to a request: evaluate alone against evaluate +
//    enforce (in-memory store), per decision, as a ratio in one run.
// 2. The Redis store against rate-limiter-flexible's RateLimiterRedis (a
//    fixed window), on the same redis-server (started here, as the tests
//    start it), through node-redis and ioredis: Redis server time per check
//    (INFO commandstats), against the floor (a script reading TIME) and the
//    previous key layout's script too; and checks per second with 1, 16 and
//    128 checks in flight.
// 3. The same checks per second on a Redis Cluster (three masters with a
//    replica each, started here as the tests start it), through node-redis's
//    createCluster and ioredis's Cluster, against rate-limiter-flexible on the
//    same cluster.
// Writes bench/enforce/results-deno.json and the block between the
// `enforce:deno` markers of docs/performance.md. Not run in CI.
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { RateLimiterRedis, RateLimiterRes } from "rate-limiter-flexible";
import { compileBundle, createEvaluator, type EvaluationRequest } from "../../mod.ts";
import { createEnforcer, createMemoryStore } from "../../src/enforce/mod.ts";
import { createRedisStore } from "../../src/enforce/redis/mod.ts";
import { enforcementBundle, TARGETS } from "../../tests/enforce/fixtures.ts";
import {
  type ClientKind,
  connectClient,
  connectClusterClient,
  type TestRedisClient,
} from "../../tests/enforce/redis_clients.ts";
import { startRedisCluster } from "../../tests/enforce/redis_cluster.ts";
import { findRedisServer, startRedisServer } from "../../tests/enforce/redis_server.ts";
import { LAYOUT_1_SCRIPT } from "../../tests/enforce/layout_1_script.ts";
import { PREVIOUS_LAYOUT_2_SCRIPT } from "../../tests/enforce/previous_layout_2_script.ts";
import { makeTempDir } from "../../tests/temp_dir.ts";
import { markdownTable, runCaption, startRun, writeDocBlock } from "../_report.ts";
import { formatRatioSpread, median, ratioSpread, type Spread, spread } from "../_stats.ts";

const args = parseArgs({
  args: Deno.args,
  options: { "no-write": { type: "boolean" }, seconds: { type: "string", default: "2" } },
});
const SECONDS = Number(args.values.seconds);
/** Seconds of each server-time measurement (the server's accounting needs fewer checks). */
const SERVER_SECONDS = Math.max(0.5, SECONDS / 2);
const ROUNDS = 5;
const TENANTS = 1_000;
const finishRun = startRun();

/** The floor of a check: a script that reads the server's clock, as every exact check must. */
const FLOOR_SCRIPT = "local time = redis.call('TIME') return 0";

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
const dir = await Deno.realPath((await makeTempDir("bench-enforce-")).dir);
const redis = await startRedisServer(dir);
const LIMIT = 20;

/** What the checks of a measurement ask: a limit per window over some tenants. */
interface Workload {
  name: string;
  limit: number;
  windowSeconds: number;
  tenants: number;
  /** Checks run before the measurement, in seconds: one window brings buckets to their steady state. */
  warmUpSeconds: number;
}

const WORKLOADS: Workload[] = [
  {
    name: "new buckets, at the limit: 20 per 60 s, 1,000 tenants",
    limit: LIMIT,
    windowSeconds: 60,
    tenants: TENANTS,
    warmUpSeconds: 0,
  },
  {
    name: "steady, at the limit: 20 per 2 s, 100 tenants, after one window",
    limit: LIMIT,
    windowSeconds: 2,
    tenants: 100,
    warmUpSeconds: 2,
  },
  {
    name: "steady, all admitted (every slot in use): 2 s window, 100 tenants, after one window",
    limit: 1_000_000_000,
    windowSeconds: 2,
    tenants: 100,
    warmUpSeconds: 2,
  },
];

type Check = (key: string) => Promise<unknown>;

/** Checks per second of `check` run by `concurrency` loops for `seconds` over `tenants`. */
async function throughput(check: Check, concurrency: number, seconds: number, tenants: number) {
  let done = 0;
  const stopAt = performance.now() + seconds * 1000;
  const start = performance.now();
  await Promise.all(Array.from({ length: concurrency }, async (_, loop) => {
    for (let i = loop; performance.now() < stopAt; i += concurrency) {
      await check(`tenant-${i % tenants}`);
      done++;
    }
  }));
  return done / ((performance.now() - start) / 1000);
}

/** A check of each variant of the server-time table for a workload. */
type Variant = { name: string; check: (w: Workload) => Check };

/** Our store's check and rate-limiter-flexible's, for a workload, over one client. */
function contenders(kind: ClientKind, client: TestRedisClient) {
  const store = createRedisStore(client.commands, { timeoutMs: 5_000 });
  const limiters = new Map<string, RateLimiterRedis>();
  const limiter = ({ limit, windowSeconds }: Workload) => {
    const id = `${limit}/${windowSeconds}`;
    let found = limiters.get(id);
    if (found === undefined) {
      found = new RateLimiterRedis({
        storeClient: client.client,
        useRedisPackage: kind === "redis",
        points: limit,
        duration: windowSeconds,
      });
      limiters.set(id, found);
    }
    return found;
  };
  return {
    ours: (w: Workload): Check => (key) => store.hit(key, w.limit, w.windowSeconds * 1e6),
    theirs: (w: Workload): Check => (key) =>
      limiter(w).consume(key).catch((refused) => {
        if (!(refused instanceof RateLimiterRes)) throw refused;
      }),
  };
}

/**
 * Checks per second of ours and theirs on `w`, `concurrency` in flight, in interleaved rounds
 * (which goes first alternates), each after `reset`.
 */
async function race(
  pair: { ours: Check; theirs: Check },
  w: Workload,
  concurrency: number,
  reset: () => Promise<unknown>,
) {
  const figures = { ours: [] as number[], theirs: [] as number[] };
  for (let round = 0; round < ROUNDS; round++) {
    const order = ["ours", "theirs"] as const;
    for (const name of round % 2 ? [...order].reverse() : order) {
      await reset();
      figures[name].push(await throughput(pair[name], concurrency, SECONDS, w.tenants));
    }
  }
  return {
    concurrency,
    ours: spread(figures.ours),
    theirs: spread(figures.theirs),
    ratio: ratioSpread(figures.ours, figures.theirs)!,
  };
}

const throughputRows = [];
const serverRows = [];
const clusterRows = [];
try {
  for (const kind of ["redis", "ioredis"] as ClientKind[]) {
    await using client = await connectClient(kind, redis.url);
    const send = client.commands.send.bind(client.commands);
    const { ours, theirs } = contenders(kind, client);
    /** A script sent as the store sends its own (EVALSHA, loaded once), with its arguments. */
    const script = async (text: string) => {
      const sha = String(await send(["SCRIPT", "LOAD", text]));
      return (w: Workload): Check => (key) =>
        send([
          "EVALSHA",
          sha,
          "1",
          `bench:${key}`,
          String(w.limit),
          `${w.windowSeconds * 1e6}`,
          "20",
        ]);
    };
    /**
     * Runs `check` on an emptied Redis (after its warm-up), and reads the server's own
     * time per script call (INFO commandstats: µs of EVAL and EVALSHA).
     */
    const measure = async (check: Check, w: Workload, concurrency: number, seconds: number) => {
      await send(["FLUSHALL"]);
      if (w.warmUpSeconds > 0) await throughput(check, concurrency, w.warmUpSeconds, w.tenants);
      await send(["CONFIG", "RESETSTAT"]);
      const perSecond = await throughput(check, concurrency, seconds, w.tenants);
      const stats = String(await send(["INFO", "commandstats"]));
      // Scripts run as EVALSHA or EVAL (rate-limiter-flexible sends EVAL with node-redis).
      let calls = 0;
      let usec = 0;
      for (const [, c, u] of stats.matchAll(/cmdstat_(?:eval|evalsha):calls=(\d+),usec=(\d+)/g)) {
        calls += Number(c);
        usec += Number(u);
      }
      return { perSecond, serverMicros: usec / calls };
    };

    // Checks per second, ours against rate-limiter-flexible, on new buckets at the limit; rounds
    // interleaved (which goes first alternates).
    const fresh = WORKLOADS[0]!;
    for (const concurrency of [1, 16, 128]) {
      const pair = { ours: ours(fresh), theirs: theirs(fresh) };
      const row = {
        client: kind,
        ...await race(pair, fresh, concurrency, () => send(["FLUSHALL"])),
      };
      throughputRows.push(row);
      console.error(
        `${kind} ×${concurrency}: ours ${row.ours.median.toFixed(0)}/s, ` +
          `rate-limiter-flexible ${row.theirs.median.toFixed(0)}/s`,
      );
    }

    // Server time per check, through ioredis (which sends every script as EVALSHA, theirs
    // too; node-redis makes rate-limiter-flexible send EVAL, whose hashing of the script text
    // would count against it), 16 checks in flight, every variant in each round.
    if (kind !== "ioredis") continue;
    const variants: Variant[] = [
      { name: "floor", check: await script(FLOOR_SCRIPT) },
      { name: "layout1", check: await script(LAYOUT_1_SCRIPT) },
      { name: "before", check: await script(PREVIOUS_LAYOUT_2_SCRIPT) },
      { name: "ours", check: ours },
      { name: "theirs", check: theirs },
    ];
    for (const w of WORKLOADS) {
      const micros = new Map(variants.map((v) => [v.name, [] as number[]]));
      for (let round = 0; round < ROUNDS; round++) {
        const turn = round % variants.length;
        for (const v of [...variants.slice(turn), ...variants.slice(0, turn)]) {
          micros.get(v.name)!.push((await measure(v.check(w), w, 16, SERVER_SECONDS)).serverMicros);
        }
      }
      const of = (name: string) => micros.get(name)!;
      const row = {
        workload: w.name,
        micros: Object.fromEntries(variants.map((v) => [v.name, spread(of(v.name))])),
        /** ours ÷ rate-limiter-flexible, round by round. */
        ratio: ratioSpread(of("ours"), of("theirs"))!,
        /** ours ÷ the floor, round by round. */
        toFloor: ratioSpread(of("ours"), of("floor"))!,
        /** layout 1 ÷ rate-limiter-flexible, round by round. */
        layout1Ratio: ratioSpread(of("layout1"), of("theirs"))!,
        /** the previous script ÷ rate-limiter-flexible, round by round. */
        beforeRatio: ratioSpread(of("before"), of("theirs"))!,
      };
      serverRows.push(row);
      console.error(
        `${w.name}: server µs per check, ours ${row.micros.ours!.median.toFixed(2)}, ` +
          `theirs ${row.micros.theirs!.median.toFixed(2)}, layout 1 ${
            row.micros.layout1!.median.toFixed(2)
          }, floor ${row.micros.floor!.median.toFixed(2)}`,
      );
    }
  }
} finally {
  await redis.stop();
}

// 3. Redis Cluster.
try {
  await using cluster = await startRedisCluster(`${dir}/cluster`);
  const masters = (await cluster.nodes()).filter((n) => n.role === "master").map((n) => n.port);
  const flush = () => Promise.all(masters.map((port) => cluster.send(port, "FLUSHALL")));
  for (const kind of ["redis", "ioredis"] as ClientKind[]) {
    await using client = await connectClusterClient(kind, cluster);
    const { ours, theirs } = contenders(kind, client);
    const fresh = WORKLOADS[0]!;
    for (const concurrency of [16, 128]) {
      const row = {
        client: kind,
        ...await race({ ours: ours(fresh), theirs: theirs(fresh) }, fresh, concurrency, flush),
      };
      clusterRows.push(row);
      console.error(
        `cluster, ${kind} ×${concurrency}: ours ${row.ours.median.toFixed(0)}/s, ` +
          `rate-limiter-flexible ${row.theirs.median.toFixed(0)}/s`,
      );
    }
  }
} finally {
  await Deno.remove(dir, { recursive: true });
}

const version = new TextDecoder().decode(
  (await new Deno.Command("redis-server", { args: ["--version"] }).output()).stdout,
).match(/v=([\d.]+)/)?.[1];
const run = finishRun();
const n = (value: number) => Math.round(value).toLocaleString("en-US");
const throughputRow = (
  r: { client: string; concurrency: number; ours: Spread; theirs: Spread; ratio: Spread },
) => [
  r.client,
  String(r.concurrency),
  `${n(r.ours.median)} (${n(r.ours.min)}–${n(r.ours.max)})`,
  `${n(r.theirs.median)} (${n(r.theirs.min)}–${n(r.theirs.max)})`,
  formatRatioSpread(r.ratio),
];
const us = (s: Spread) => `${s.median.toFixed(2)} (${s.min.toFixed(2)}–${s.max.toFixed(2)})`;
const table = [
  `In process, medians of ${ROUNDS} rounds of ${n(OPS)} requests. ${runCaption(run)}`,
  "",
  markdownTable([
    ["Decision", "`evaluate` alone, ns", "`evaluate` + `enforce`, ns", "× `evaluate`"],
    ...inProcess.map((r) => [
      r.name,
      n(r.evaluateNs),
      n(r.guardedNs),
      `${r.ratio.toFixed(1)}×`,
    ]),
  ]),
  "",
  `Redis ${version} on 127.0.0.1. Server time per check, by the server's own accounting ` +
  "(`INFO commandstats`: µs per script call, the commands it runs included), through ioredis " +
  `with 16 checks in flight; ${ROUNDS} interleaved rounds of ${SERVER_SECONDS} s, each on an ` +
  "emptied Redis (and, for the steady workloads, after one window of checks); medians " +
  "(lowest–highest round), ratios taken round by round. The floor is a script that only reads " +
  "`TIME`, as every exact check must, sent as the store sends its own; layout 1 is the script of " +
  "the release before key layout 2; before is this layout's script before it stopped reading " +
  "every slot when one leaves the window.",
  "",
  markdownTable([
    [
      "Workload",
      "floor, µs",
      "layout 1, µs",
      "before, µs",
      "ours, µs",
      "rate-limiter-flexible, µs",
      "ours ÷ floor",
      "before ÷ theirs",
      "ours ÷ theirs",
      "layout 1 ÷ theirs",
    ],
    ...serverRows.map((r) => [
      r.workload,
      us(r.micros.floor!),
      us(r.micros.layout1!),
      us(r.micros.before!),
      us(r.micros.ours!),
      us(r.micros.theirs!),
      formatRatioSpread(r.toFloor),
      formatRatioSpread(r.beforeRatio),
      formatRatioSpread(r.ratio),
      formatRatioSpread(r.layout1Ratio),
    ]),
  ]),
  "",
  `Checks per second on new buckets at the limit (${LIMIT} per 60 s, ${n(TENANTS)} tenants), ` +
  `one client connection, ${ROUNDS} interleaved rounds of ${SECONDS} s: medians ` +
  "(lowest–highest round), the ratio round by round.",
  "",
  markdownTable([
    [
      "Client",
      "Concurrent checks",
      "ours, checks/s",
      "rate-limiter-flexible, checks/s",
      "ours ÷ theirs",
    ],
    ...throughputRows.map(throughputRow),
  ]),
  "",
  `The same on a Redis Cluster of three masters with a replica each, all on this machine ` +
  "(`redis-cli --cluster create`), through each client family's cluster client (node-redis " +
  "`createCluster`, ioredis `Cluster`): one connection per master.",
  "",
  markdownTable([
    [
      "Cluster client",
      "Concurrent checks",
      "ours, checks/s",
      "rate-limiter-flexible, checks/s",
      "ours ÷ theirs",
    ],
    ...clusterRows.map(throughputRow),
  ]),
].join("\n");
console.log(table);
if (!args.values["no-write"]) {
  await Deno.writeTextFile(
    new URL("./results-deno.json", import.meta.url),
    `${
      JSON.stringify(
        {
          generatedBy: "bench/enforce/run.ts",
          run,
          rounds: ROUNDS,
          redisVersion: version,
          inProcess,
          serverTime: serverRows,
          throughput: throughputRows,
          clusterThroughput: clusterRows,
        },
        null,
        2,
      )
    }\n`,
  );
  writeDocBlock(fileURLToPath(new URL("../..", import.meta.url)), "enforce:deno", table);
}
