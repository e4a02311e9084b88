// The JSON-lines decision log: real files, real streams, and streams that
// fail like a full disk. A failure
// must never throw into evaluate, never be an unhandled rejection (which
// would end this test process), and never grow memory past maxBufferBytes.
import { withTempDir } from "../temp_dir.ts";
import assert from "node:assert/strict";
import { readFile, writeFile } from "node:fs/promises";
import { createLocalClient, type DecisionRecord, type PolicyError, signBundle } from "../../mod.ts";
import { createDecisionLogWriter } from "../../src/decision_log/mod.ts";

import { hmacSecret, numberedBundle, TARGET } from "../clients/_helpers.ts";
import { test } from "../clients/_remote_fixtures.ts";
import { FakeClock } from "../_fake_clock.ts";

const MKFIFO = Deno.permissions.querySync({ name: "run", command: "mkfifo" }).state === "granted";
if (!MKFIFO) {
  console.log("create_decision_log_writer_test.ts: FIFO test skipped, needs --allow-run=mkfifo");
}

function record(i: number): DecisionRecord {
  return {
    timestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
    request: { target: TARGET, context: { i, name: 'é\u2028"quoted"' } },
    decision: { decision: "allow", reason: "rule", policyKey: "p", ruleId: "r" },
    bundle: { checksum: "sha256:ab", bundleVersion: 3 },
    sampleRate: 1,
  };
}

/** An error like the one a full disk gives. */
function enospc(): Error {
  return Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" });
}

test("lines go to a file in order, one JSON document each, once flushed or closed", async () => {
  await withTempDir(async (dir) => {
    const path = `${dir}/decisions.jsonl`;
    await writeFile(path, "kept\n");
    const log = createDecisionLogWriter({ path, flushBytes: 1 << 20, flushIntervalMs: 60_000 });
    for (let i = 0; i < 1_000; i++) log.onDecision(record(i));
    // Buffered: nothing is written while evaluate runs.
    assert.equal(await readFile(path, "utf8"), "kept\n");
    assert.equal(log.stats().written, 0);
    await log.flush();
    assert.equal(log.stats().written, 1_000);
    log.onDecision(record(1_000));
    await log.close();
    await log.close();
    const lines = (await readFile(path, "utf8")).split("\n");
    assert.equal(lines.shift(), "kept");
    assert.equal(lines.pop(), "");
    assert.equal(lines.length, 1_001);
    assert.deepEqual(lines.map((line) => JSON.parse(line).request.context.i), [
      ...Array(1_001).keys(),
    ]);
    assert.deepEqual(JSON.parse(lines[5]!), record(5));
    log.onDecision(record(0));
    assert.deepEqual(log.stats(), {
      written: 1_001,
      dropped: 1,
      failedWrites: 0,
      bufferedBytes: 0,
    });
  });
});

test("a write starts once flushBytes are buffered, or after flushIntervalMs", async () => {
  const chunks: Uint8Array[] = [];
  let wrote: () => void = () => {};
  const stream = new WritableStream<Uint8Array>({
    write(chunk) {
      chunks.push(chunk);
      wrote();
    },
  });
  const clock = new FakeClock();
  const log = createDecisionLogWriter({ stream, flushBytes: 4096, flushIntervalMs: 20, clock });
  const line = new TextEncoder().encode(`${JSON.stringify(record(0))}\n`).byteLength;
  const written = () => new Promise<void>((resolve) => wrote = resolve);
  let next = written();
  // No time passes: the size alone starts this write.
  for (let i = 0; i * line < 4096; i++) log.onDecision(record(i));
  await next;
  assert.equal(chunks.length, 1);
  assert.ok(chunks[0]!.byteLength >= 4096);
  await log.flush(); // the size's write is over (the buffer is empty: nothing else is written)
  assert.equal(chunks.length, 1);
  next = written();
  log.onDecision(record(99));
  // The line waits for the interval, and no longer.
  clock.tick(19);
  assert.ok(log.stats().bufferedBytes > 0, "still buffered before flushIntervalMs");
  clock.tick(1);
  assert.equal(log.stats().bufferedBytes, 0, "taken for a write at flushIntervalMs");
  await next; // the timer's write
  assert.equal(new TextDecoder().decode(chunks[1]), `${JSON.stringify(record(99))}\n`);
  await log.close();
});

test("a stream that fails like a full disk: evaluate goes on, the lines are counted as dropped, onError says ENOSPC", async () => {
  const errors: PolicyError[] = [];
  const stream = new WritableStream<Uint8Array>({
    write() {
      throw enospc();
    },
  });
  const log = createDecisionLogWriter({
    stream,
    onError: (error) => {
      errors.push(error);
      throw new Error("a failing onError changes nothing");
    },
  });
  for (let i = 0; i < 10; i++) log.onDecision(record(i));
  await log.flush();
  for (let i = 0; i < 5; i++) log.onDecision(record(i));
  await log.close();
  assert.deepEqual(log.stats(), { written: 0, dropped: 15, failedWrites: 2, bufferedBytes: 0 });
  assert.deepEqual(errors.map((error) => error.code), Array(2).fill("DECISION_LOG_WRITE_ERROR"));
  assert.match(errors[0]!.message, /could not write 10 lines \(ENOSPC\)/);
});

test("a stalled stream: memory stops at maxBufferBytes, later lines are dropped, recording stays cheap", async () => {
  let release: () => void = () => {};
  let writes = 0;
  let onWrite: () => void = () => {};
  const nextWrite = () => new Promise<void>((resolve) => onWrite = resolve);
  const stream = new WritableStream<Uint8Array>({
    write() {
      writes++;
      onWrite();
      return new Promise<void>((resolve) => release = resolve);
    },
  });
  let written = nextWrite();
  const log = createDecisionLogWriter({
    stream,
    flushBytes: 1024,
    maxBufferBytes: 16 * 1024,
    clock: new FakeClock(),
  });
  for (let i = 0; i < 10_000; i++) log.onDecision(record(i));
  const { dropped, bufferedBytes } = log.stats();
  assert.ok(bufferedBytes <= 16 * 1024, `buffered ${bufferedBytes}`);
  assert.ok(dropped > 9_000, `dropped ${dropped}`);
  await written;
  for (let i = 0; i < 20; i++) await Promise.resolve();
  assert.equal(writes, 1, "one write at a time");
  written = nextWrite();
  release();
  const closing = log.close();
  // The rest of the buffer goes in a second write.
  await written;
  release();
  await closing;
  assert.equal(log.stats().bufferedBytes, 0);
  assert.equal(log.stats().written + log.stats().dropped, 10_000);
});

test("a stream that never accepts a write: flush() and close() settle after writeTimeoutMs, the lines reported lost", async () => {
  const clock = new FakeClock();
  let onWrite: () => void = () => {};
  const written = new Promise<void>((resolve) => onWrite = resolve);
  const stream = new WritableStream<Uint8Array>({
    write() {
      onWrite();
      return new Promise<void>(() => {}); // never
    },
  });
  const errors: PolicyError[] = [];
  const log = createDecisionLogWriter({
    stream,
    clock,
    writeTimeoutMs: 2_000,
    onError: (error) => void errors.push(error),
  });
  for (let i = 0; i < 3; i++) log.onDecision(record(i));
  let flushed = false;
  const flushing = log.flush().then(() => flushed = true);
  await written;
  clock.tick(1_999);
  for (let i = 0; i < 20; i++) await Promise.resolve();
  assert.equal(flushed, false, "the write still has time");
  clock.tick(1);
  await flushing;
  assert.deepEqual(log.stats(), { written: 0, dropped: 3, failedWrites: 1, bufferedBytes: 0 });
  assert.deepEqual(errors.map((e) => e.code), ["DECISION_LOG_WRITE_ERROR"]);
  assert.match(errors[0]!.message, /could not write 3 lines: .*writeTimeoutMs \(2000 ms\)/);
  // close() settles too, with the stream still stuck.
  log.onDecision(record(4));
  const closing = log.close();
  for (let i = 0; i < 20; i++) await Promise.resolve();
  clock.tick(2_000);
  await closing;
  assert.equal(log.stats().failedWrites, 2);
  assert.equal(clock.pending, 0, "no timer left");
});

test(
  "a named pipe at path (no reader): nothing hangs, the write fails at once as not a regular file",
  async () => {
    await withTempDir(async (dir) => {
      const path = `${dir}/decisions.fifo`;
      const { code } = await new Deno.Command("mkfifo", { args: [path] }).output();
      assert.equal(code, 0);
      const errors: PolicyError[] = [];
      const clock = new FakeClock();
      const log = createDecisionLogWriter({ path, clock, onError: (e) => void errors.push(e) });
      log.onDecision(record(1));
      // No clock tick: the failure does not wait for any timeout.
      await log.flush();
      await log.close();
      assert.deepEqual(log.stats(), { written: 0, dropped: 1, failedWrites: 1, bufferedBytes: 0 });
      assert.deepEqual(errors.map((e) => e.code), ["DECISION_LOG_WRITE_ERROR"]);
      assert.ok(errors[0]!.message.includes(path), errors[0]!.message);
      assert.match(errors[0]!.message, /not a regular file/);
      // Nor is a folder at the path a log file.
      const folder = createDecisionLogWriter({
        path: dir,
        clock,
        onError: (e) => void errors.push(e),
      });
      folder.onDecision(record(2));
      await folder.close();
      assert.match(errors[1]!.message, /is a folder/);
    });
  },
  { ignore: !MKFIFO },
);

test("a record that cannot be serialised is dropped alone", async () => {
  const chunks: Uint8Array[] = [];
  const log = createDecisionLogWriter({
    stream: new WritableStream({ write: (chunk) => void chunks.push(chunk) }),
  });
  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  log.onDecision({ ...record(0), request: { target: TARGET, context: cyclic } });
  log.onDecision({ ...record(1), request: { target: TARGET, context: { n: 1n } } });
  log.onDecision(record(2));
  await log.close();
  assert.deepEqual(log.stats(), { written: 1, dropped: 2, failedWrites: 0, bufferedBytes: 0 });
});

// A real full device (/dev/full) is tested under Node (tests/node/decision_log.test.mjs):
// Deno asks for --allow-all to open a device file.

test("an unwritable path is reported, not thrown, and the next write tries again", async () => {
  await withTempDir(async (dir) => {
    const path = `${dir}/missing-folder/decisions.jsonl`;
    const errors: string[] = [];
    const log = createDecisionLogWriter({ path, onError: (e) => errors.push(e.message) });
    log.onDecision(record(0));
    await log.flush();
    assert.match(errors[0]!, /ENOENT/);
    await Deno.mkdir(`${dir}/missing-folder`);
    log.onDecision(record(1));
    await log.close();
    assert.equal(JSON.parse(await readFile(path, "utf8")).request.context.i, 1);
  });
});

test("with a client: onDecision writes masked records of the decisions", async () => {
  await withTempDir(async (dir) => {
    const secret = hmacSecret();
    const bundlePath = `${dir}/bundle.json`;
    const signed = await signBundle(numberedBundle(4), {
      algorithm: "HMAC_SHA256",
      key: secret,
      keyId: "k",
    });
    await writeFile(bundlePath, JSON.stringify(signed));
    const logPath = `${dir}/decisions.jsonl`;
    await using log = createDecisionLogWriter({ path: logPath });
    const client = await createLocalClient({
      bundlePath,
      verify: { algorithm: "HMAC_SHA256", publicKey: secret },
      onDecision: log.onDecision,
      decisionLog: { maskContextKeys: ["email"] },
    });
    client.evaluate({ target: TARGET, context: { email: "a@example.com", plan: "pro" } });
    await client.close();
    await log.flush();
    const line = JSON.parse(await readFile(logPath, "utf8"));
    assert.deepEqual(line.request.context, { email: "[masked]", plan: "pro" });
    assert.deepEqual(line.bundle, { checksum: signed.checksum, bundleVersion: 4 });
    assert.equal(line.decision.ruleId, "rule-4");
  });
});

test("createDecisionLogWriter() checks its options", () => {
  const stream = new WritableStream<Uint8Array>();
  for (
    const options of [
      {},
      { path: "x", stream },
      { path: "" },
      { stream: {} },
      { path: "x", flushByte: 10 },
      { path: "x", maxBufferBytes: 0 },
    ]
  ) {
    assert.throws(() => createDecisionLogWriter(options as never), { code: "INVALID_OPTIONS" });
  }
});
