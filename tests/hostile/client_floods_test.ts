/**
 * Issue floods through the clients: a watching local client whose file is
 * replaced (by rename) with 8 MiB of empty rules, a remote client whose
 * origin starts serving it, and a remote start-up against an origin serving
 * 64,000 rules with priority 1e400 (each was a way to kill or stall a
 * service: memory exhausted, or a check quadratic in the issues). The
 * bundle in force stays, the failure is reported with its code and a
 * bounded list of issues, within 30 times what JSON.parse takes on the same
 * bytes, and `evaluate` keeps answering meanwhile.
 */
import { makeTempDir } from "../temp_dir.ts";
import assert from "node:assert/strict";
import * as path from "node:path";
import {
  createLocalClient,
  createRemoteClient,
  type PolicyClient,
  type PolicyError,
} from "../../mod.ts";
import { LOAD_MAX_ISSUES } from "../../src/engine/validate_bundle.ts";
import { writeAtomic } from "../clients/_helpers.ts";
import { FakeClock } from "../_fake_clock.ts";
import { remoteOptions, TARGET as REMOTE_TARGET, V1 } from "../clients/_remote_fixtures.ts";
import { hostileTest } from "./_isolated.ts";
import { LONG, noteLong } from "../_long.ts";
import { bundleOf, rule, TARGET } from "./_inputs.ts";
import { emptyRules } from "./_corpus.ts";
import { HANG_BOUND_MS } from "../_hang_bound.ts";

noteLong(
  "tests/hostile/client_floods_test.ts",
  "the remote client's 8 MiB flood (the local one runs)",
);

const MAX_RATIO = 30;

/** `count` rules whose priority overflows to Infinity (each one an error). */
function infinitePriorities(count: number): string {
  const rules = [];
  for (let i = 0; i < count; i++) {
    rules.push(
      `{"id":"r${i}","status":"active","priority":1e400,"target":{"service":"s","resource":"r","action":"a"},"effect":{"type":"allow"}}`,
    );
  }
  return `{"schemaVersion":1,"env":"prod","orgId":"acme","projectId":"storefront","policies":[{"policyKey":"p","activeVersion":1,"rules":[${
    rules.join(",")
  }]}]}`;
}

/** Milliseconds JSON.parse takes on `text` (the fastest of three). */
function parseMs(text: string): number {
  let best = Infinity;
  for (let i = 0; i < 3; i++) {
    const started = performance.now();
    JSON.parse(text);
    best = Math.min(best, performance.now() - started);
  }
  return best;
}

/** Calls `evaluate` every millisecond and records the longest gap between two calls. */
function ticker(
  client: PolicyClient,
  target: { service: string; resource: string; action: string },
): { stop(): number } {
  let last = performance.now();
  let longest = 0;
  const timer = setInterval(() => {
    client.evaluate({ target, context: {} });
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
  }, 1);
  return {
    stop() {
      clearInterval(timer);
      return longest;
    },
  };
}

function assertBounded(error: PolicyError): void {
  assert.equal(error.code, "BUNDLE_INVALID", error.message);
  assert.equal(error.issues.length, LOAD_MAX_ISSUES);
  assert.match(error.message, /and \d{5,} more issue\(s\)/);
}

hostileTest(
  import.meta.url,
  "a watching local client keeps its bundle when the file is replaced by 8 MiB of empty rules, and reports at most 100 issues in bounded time",
  async () => {
    const { dir, remove } = await makeTempDir("flood-");
    const file = path.join(dir, "bundle.json");
    await Deno.writeTextFile(file, JSON.stringify(bundleOf([rule("r1")])));
    const errors: PolicyError[] = [];
    const clock = new FakeClock({ wallNow: Date.now() });
    const client = await createLocalClient({
      bundlePath: file,
      allowUnsigned: true,
      watch: { intervalMs: 20 },
      onError: (error) => errors.push(error),
      clock,
    });
    try {
      const flood = emptyRules();
      const budget = MAX_RATIO * parseMs(flood);
      const ticks = ticker(client, TARGET);
      const started = performance.now();
      await writeAtomic(file, flood);
      // One check of the file, run now: it ends when the next is scheduled.
      await clock.runUntil(() => errors.length > 0, "the flood reported", 1);
      const took = performance.now() - started;
      const gap = ticks.stop();
      assertBounded(errors[0]!);
      assert.ok(
        took < budget + HANG_BOUND_MS,
        `reported after ${took.toFixed(0)} ms (budget ${budget})`,
      );
      assert.ok(gap < budget, `evaluate was blocked for ${gap.toFixed(0)} ms`);
      assert.equal(client.evaluate({ target: TARGET, context: {} }).ruleId, "r1");
    } finally {
      await client.close();
      await remove();
    }
  },
  { seconds: 120 },
);

/** An origin on 127.0.0.1 serving whatever `body` holds, for any path. */
function origin(body: { text: string }) {
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    () => new Response(body.text, { headers: { "content-type": "application/json" } }),
  );
  return { server, baseUrl: `http://127.0.0.1:${server.addr.port}` };
}

hostileTest(
  import.meta.url,
  "a remote client keeps its bundle when the origin starts serving 8 MiB of empty rules, and reports at most 100 issues in bounded time",
  async () => {
    const body = { text: V1 };
    const { server, baseUrl } = origin(body);
    const errors: PolicyError[] = [];
    const client = await createRemoteClient(remoteOptions(baseUrl, {
      // No poll falls due: the test polls with refresh().
      poll: { intervalMs: 3_600_000 },
      onError: (error) => errors.push(error),
      clock: new FakeClock(),
    }));
    try {
      const flood = emptyRules();
      const budget = MAX_RATIO * parseMs(flood);
      const ticks = ticker(client, REMOTE_TARGET);
      const started = performance.now();
      body.text = flood;
      assert.equal((await client.refresh()).outcome, "failed");
      assert.ok(errors.length > 0, "the flood reported");
      const took = performance.now() - started;
      const gap = ticks.stop();
      assertBounded(errors[0]!);
      assert.ok(
        took < budget + HANG_BOUND_MS,
        `reported after ${took.toFixed(0)} ms (budget ${budget})`,
      );
      assert.ok(gap < budget, `evaluate was blocked for ${gap.toFixed(0)} ms`);
      assert.equal(client.evaluate({ target: REMOTE_TARGET, context: {} }).decision, "allow");
    } finally {
      await client.close();
      await server.shutdown();
    }
  },
  { ignore: !LONG, seconds: 120 },
);

hostileTest(
  import.meta.url,
  "createRemoteClient keeps startTimeoutMs against an origin serving 64,000 rules with priority 1e400",
  async () => {
    const text = infinitePriorities(64_000);
    const { server, baseUrl } = origin({ text });
    try {
      const budget = MAX_RATIO * parseMs(text);
      const started = performance.now();
      const error = await createRemoteClient(remoteOptions(baseUrl, { startTimeoutMs: 3000 }))
        .then(() => null, (e: PolicyError) => e);
      const took = performance.now() - started;
      assert.ok(error !== null, "creation rejects");
      assertBounded(error);
      assert.ok(took < HANG_BOUND_MS + budget, `rejected after ${took.toFixed(0)} ms`);
    } finally {
      await server.shutdown();
    }
  },
  { seconds: 120 },
);
