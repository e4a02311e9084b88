/**
 * One of the processes of the multi-process Redis test: connects, prints
 * `ready`, waits for a line on stdin, then checks and counts one bucket
 * through `createRedisStore` as fast as `concurrency` loops can for
 * `durationMs`, and prints every answer ([admitted, server time in µs]) as
 * one JSON line.
 *
 * Usage: deno run --allow-net=127.0.0.1 --allow-read=. <ignore-env> _hammer_child.ts '<json>'
 * with {url, kind, bucket, limit, windowMicros, durationMs, concurrency}.
 */
import { createRedisStore } from "../../src/enforce/redis/mod.ts";
import { type ClientKind, connectClient, HANG_BOUND_MS } from "./_redis_clients.ts";

const job = JSON.parse(Deno.args[0]!) as {
  url: string;
  kind: ClientKind;
  bucket: string;
  limit: number;
  windowMicros: number;
  durationMs: number;
  concurrency: number;
};
await using client = await connectClient(job.kind, job.url);
const store = createRedisStore(client.commands, { timeoutMs: HANG_BOUND_MS });
console.log("ready");
await Deno.stdin.readable.getReader().read(); // the go
const stopAt = Date.now() + job.durationMs;
const answers: [admitted: 0 | 1, nowMicros: number][] = [];
await Promise.all(Array.from({ length: job.concurrency }, async () => {
  while (Date.now() < stopAt) {
    const count = await store.hit(job.bucket, job.limit, job.windowMicros);
    answers.push([count.admitted ? 1 : 0, count.nowMicros]);
  }
}));
console.log(JSON.stringify(answers));
