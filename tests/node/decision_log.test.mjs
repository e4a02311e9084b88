// The decision log under Node, from the npm build: a real full device
// (/dev/full, Linux) and a Node stream that fails like a full disk. Nothing
// may throw into the caller or be an unhandled rejection (which would end
// this process and fail the run).
import assert from "node:assert/strict";
import { createWriteStream, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { test } from "node:test";
import { importPackage } from "./_package.mjs";

const { createDecisionLogWriter } = await importPackage("./decision-log");

const record = (i) => ({
  timestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
  request: { target: { service: "s", resource: "r", action: "a" }, context: { i } },
  decision: { decision: "allow", reason: "rule", policyKey: "p", ruleId: "r" },
  bundle: { checksum: "sha256:ab", bundleVersion: 1 },
  sampleRate: 1,
});

test("/dev/full: every write fails with ENOSPC, is counted and reported, and nothing throws", {
  skip: existsSync("/dev/full") ? false : "no /dev/full on this system",
}, async () => {
  // The real device, through a Node stream: a path must be a regular file.
  const device = createWriteStream("/dev/full");
  device.on("error", () => {});
  const errors = [];
  const log = createDecisionLogWriter({
    stream: Writable.toWeb(device),
    onError: (e) => errors.push(e),
  });
  for (let i = 0; i < 100; i++) log.onDecision(record(i));
  await log.flush();
  log.onDecision(record(100));
  await log.close();
  device.destroy();
  assert.deepEqual(log.stats(), { written: 0, dropped: 101, failedWrites: 2, bufferedBytes: 0 });
  assert.equal(errors[0].code, "DECISION_LOG_WRITE_ERROR");
  assert.match(errors[0].message, /ENOSPC/);
});

test("a device at path is refused at once as not a regular file, and nothing throws", {
  skip: existsSync("/dev/full") ? false : "no /dev/full on this system",
}, async () => {
  const errors = [];
  const log = createDecisionLogWriter({ path: "/dev/full", onError: (e) => errors.push(e) });
  log.onDecision(record(0));
  await log.close();
  assert.deepEqual(log.stats(), { written: 0, dropped: 1, failedWrites: 1, bufferedBytes: 0 });
  assert.equal(errors[0].code, "DECISION_LOG_WRITE_ERROR");
  assert.match(errors[0].message, /\/dev\/full: it is not a regular file/);
});

test("a Node Writable through Writable.toWeb: lines written, then a failing stream is survived", async () => {
  const dir = mkdtempSync(join(tmpdir(), "policy-node-log-"));
  try {
    const path = join(dir, "decisions.jsonl");
    const log = createDecisionLogWriter({ path });
    for (let i = 0; i < 3; i++) log.onDecision(record(i));
    await log.close();
    const lines = readFileSync(path, "utf8").trim().split("\n").map((l) => JSON.parse(l));
    assert.deepEqual(lines.map((l) => l.request.context.i), [0, 1, 2]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const failing = new Writable({
    write(_chunk, _encoding, callback) {
      callback(Object.assign(new Error("no space left on device"), { code: "ENOSPC" }));
    },
  });
  failing.on("error", () => {});
  const errors = [];
  const log = createDecisionLogWriter({
    stream: Writable.toWeb(failing),
    onError: (e) => errors.push(e.message),
  });
  log.onDecision(record(0));
  await log.close();
  assert.equal(log.stats().dropped, 1);
  assert.match(errors[0], /ENOSPC/);
});
