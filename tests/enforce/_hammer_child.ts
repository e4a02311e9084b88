/**
 * One of the processes of the multi-process Redis tests: connects (to one
 * server, or to a cluster), prints `ready`, waits for a line on stdin, then
 * checks and counts its buckets in turn through `createRedisStore` as fast
 * as `concurrency` loops can for `durationMs`, and prints every answer as
 * one JSON line: [bucket index, admitted (1), refused (0) or failed (-1),
 * server time in µs (0 when failed)].
 *
 * Usage: deno run --allow-net=127.0.0.1 --allow-read=. <ignore-env> _hammer_child.ts '<json>'
 * with {url | cluster, kind, buckets: [{bucket, limit, windowMicros}], durationMs, concurrency};
 * see tests/enforce/_hammer.ts.
 */
import { createRedisStore } from "../../src/enforce/redis/mod.ts";
import type { HammerJob } from "./_hammer.ts";
import { connectClient, connectClusterClient, STORE_TIMEOUT_MS } from "./redis_clients.ts";

const job = JSON.parse(Deno.args[0]!) as HammerJob;
await using client = job.cluster === undefined
  ? await connectClient(job.kind, job.url!)
  : await connectClusterClient(job.kind, job.cluster);
const store = createRedisStore(client.commands, { timeoutMs: STORE_TIMEOUT_MS });
console.log("ready");
await Deno.stdin.readable.getReader().read(); // the go
const stopAt = Date.now() + job.durationMs;
const answers: [bucket: number, admitted: 1 | 0 | -1, nowMicros: number][] = [];
let next = 0;
await Promise.all(Array.from({ length: job.concurrency }, async () => {
  while (Date.now() < stopAt) {
    const index = next++ % job.buckets.length;
    const { bucket, limit, windowMicros } = job.buckets[index]!;
    try {
      const count = await store.hit(bucket, limit, windowMicros);
      answers.push([index, count.admitted ? 1 : 0, count.nowMicros]);
    } catch (error) {
      // A failed check (a master down): the enforcer would answer by whenStoreFails.
      if (!job.failuresExpected) throw error;
      answers.push([index, -1, 0]);
    }
  }
}));
console.log(JSON.stringify(answers));
