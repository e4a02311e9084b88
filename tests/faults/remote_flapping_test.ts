// deno-lint-ignore-file require-await -- the fault factories share one async signature; some of them await
/**
 * The remote client against a flapping control plane (tests/clients/
 * _fault_server.ts on 127.0.0.1): random 500s, 503s with Retry-After, 401s,
 * 404s, hangs, connections dropped mid-body, truncated, tampered, unsigned,
 * HMAC-signed, wrongly signed and other-scope bundles, mixed with valid new
 * bundles and 304s. Over many polls the client never serves a bundle that
 * was not validly signed for its scope, is degraded exactly after 3
 * consecutive failures until the first success, and leaves no timer or
 * socket behind once closed (op and resource sanitizers on).
 *
 * Two drivers: `refresh()` one poll at a time, with the expected counters
 * computed independently; and the client's own timers (poll interval,
 * backoff, request timeout) on a fake clock the test moves, the server
 * choosing a fault per request. 150 polls each by default, 600 under
 * `deno task test:long`.
 */
import assert from "node:assert/strict";
import {
  createRemoteClient,
  type RemoteClient,
  type RemoteClientStatus,
  type RuntimeBundleV1,
  signBundle,
} from "../../mod.ts";
import { FakeClock } from "../_fake_clock.ts";
import { DEGRADED_AFTER_FAILURES } from "../../src/clients/remote_defaults.ts";
import { type Fault, FaultServer } from "../clients/_fault_server.ts";
import {
  bundleOf,
  HMAC_SECRET,
  otherEcdsa,
  Recorder,
  remoteOptions,
  signedText,
  TARGET,
  test,
} from "../clients/_remote_fixtures.ts";
import { LONG } from "./_policy_process.ts";
import { replayHint, seededRandom, testSeed } from "../_random.ts";

/** Every random draw of this file (replay a failure with POLICY_TEST_SEED). */
const random = seededRandom(testSeed(0xf1a9));

const POLLS = LONG ? 600 : 150;
/** The request timeout of the client on its own timers (a hanging origin is given up after it). */
const REQUEST_TIMEOUT_MS = 60;
/** Valid versions served (1 to VERSIONS); invalid candidates use higher ones. */
const VERSIONS = 12;

/** Every validly signed version: text, checksum, and its ETag. */
const valid = await Promise.all(
  Array.from({ length: VERSIONS }, async (_, i) => {
    const version = i + 1;
    const text = await signedText(version);
    return { version, text, checksum: JSON.parse(text).checksum as string, etag: `"v${version}"` };
  }),
);
const validByChecksum = new Map(valid.map((v) => [v.checksum, v.version]));

/** A bad candidate: what the server sends, and the codes the client may report for it. */
interface Bad {
  name: string;
  fault: () => Promise<Fault>;
  codes: string[];
}

const sign = (bundle: RuntimeBundleV1, key: CryptoKey | string) =>
  signBundle(bundle, {
    algorithm: typeof key === "string" ? "HMAC_SHA256" : "ECDSA_SHA_256",
    key,
    keyId: "flapping",
  });
const pick = <T>(items: readonly T[]): T => random.pick(items);
let bogus = 1000;
const bogusEtag = () => `"bogus-${++bogus}"`;
const body = (text: string, etag = bogusEtag()): Fault => ({ kind: "bundle", body: text, etag });

const BAD: Bad[] = [
  {
    name: "500",
    fault: async () => ({ kind: "status", status: 500 }),
    codes: ["REMOTE_UNAVAILABLE"],
  },
  {
    name: "503 Retry-After",
    fault: async () => ({ kind: "status", status: 503, headers: { "retry-after": "1" } }),
    codes: ["REMOTE_UNAVAILABLE"],
  },
  {
    name: "429",
    fault: async () => ({ kind: "status", status: 429 }),
    codes: ["REMOTE_UNAVAILABLE"],
  },
  {
    name: "401",
    fault: async () => ({ kind: "status", status: 401 }),
    codes: ["REMOTE_UNAUTHORIZED"],
  },
  {
    name: "404",
    fault: async () => ({ kind: "status", status: 404 }),
    codes: ["REMOTE_NOT_FOUND"],
  },
  { name: "hang", fault: async () => ({ kind: "hang" }), codes: ["REMOTE_UNAVAILABLE"] },
  {
    name: "dropped mid-body",
    fault: async () => {
      const text = await signedText(++bogus);
      return { kind: "drop", body: text, sendBytes: Math.floor(random.next() * text.length) };
    },
    codes: ["REMOTE_UNAVAILABLE"],
  },
  {
    name: "truncated",
    fault: async () => {
      const text = await signedText(++bogus);
      return body(text.slice(0, Math.floor(random.next() * text.length)));
    },
    codes: [
      "BUNDLE_PARSE_ERROR",
      "BUNDLE_INVALID",
      "CHECKSUM_MISMATCH",
      "BUNDLE_SIGNATURE_MISSING",
    ],
  },
  {
    name: "garbage",
    fault: async () =>
      body(btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(300))))),
    codes: ["BUNDLE_PARSE_ERROR"],
  },
  {
    name: "tampered",
    fault: async () =>
      body((await signedText(++bogus)).replace('"priority": 10', '"priority": 11')),
    codes: ["CHECKSUM_MISMATCH"],
  },
  {
    name: "tampered, checksum removed",
    fault: async () => {
      const doc = JSON.parse(
        (await signedText(++bogus)).replace('"priority": 10', '"priority": 11'),
      );
      delete doc.checksum;
      return body(JSON.stringify(doc));
    },
    codes: ["BUNDLE_SIGNATURE_INVALID"],
  },
  {
    name: "wrong key",
    fault: async () => body(JSON.stringify(await sign(bundleOf(++bogus), otherEcdsa.privateKey))),
    codes: ["BUNDLE_SIGNATURE_INVALID"],
  },
  {
    name: "HMAC",
    fault: async () => body(JSON.stringify(await sign(bundleOf(++bogus), HMAC_SECRET))),
    codes: ["REMOTE_HMAC_REFUSED"],
  },
  {
    name: "unsigned",
    fault: async () => body(JSON.stringify(bundleOf(++bogus))),
    codes: ["BUNDLE_SIGNATURE_MISSING"],
  },
  {
    name: "other scope",
    fault: async () => body(await signedText(++bogus, { orgId: "someone-else" })),
    codes: ["BUNDLE_SCOPE_MISMATCH"],
  },
];
const BAD_CODES = new Set(BAD.flatMap((b) => b.codes));

/** What is in force must be one of the valid versions, and evaluate() must agree with status(). */
function assertServingValid(client: RemoteClient, where: string): RemoteClientStatus {
  const status = client.status();
  const version = validByChecksum.get(status.checksum);
  assert.ok(version !== undefined, `${where}: serving ${status.checksum}, never served valid`);
  assert.equal(status.bundleVersion, version, where);
  // The configured key has no key id: the one the signature records is only claimed.
  assert.deepEqual(status.signature, {
    status: "verified",
    algorithm: "ECDSA_SHA_256",
    keyId: "control-plane-1",
  });
  const decision = client.evaluate({ target: TARGET });
  assert.equal(decision.ruleId, `v${version}`, where);
  assert.equal(decision.decision, version === 1 ? "allow" : "deny", where);
  assert.equal(status.degraded, status.consecutiveFailures >= DEGRADED_AFTER_FAILURES, where);
  return status;
}

test(`remote client, ${POLLS} refresh() polls against a flapping server: only valid bundles, degraded after exactly 3 failures until the first success [${replayHint(random.seed)}]`, async () => {
  await using server = FaultServer.start({
    kind: "bundle",
    body: valid[0]!.text,
    etag: valid[0]!.etag,
  });
  const recorder = new Recorder();
  // No timer fires unless the test moves this clock: refresh() drives, and a hanging origin is
  // given up when the test moves the clock past the request timeout.
  const clock = new FakeClock();
  // The server reads its fault as a request arrives: a hang is then known to be in progress.
  let fault: Fault = server.fault;
  let arrived: (() => void) | null = null;
  Object.defineProperty(server, "fault", {
    configurable: true,
    get(): Fault {
      arrived?.();
      return fault;
    },
    set(value: Fault) {
      fault = value;
    },
  });
  const client = await createRemoteClient(remoteOptions(server.baseUrl, {
    ...recorder.callbacks,
    clock,
    poll: { intervalMs: 3_600_000 },
    maxBackoffMs: 3_600_000,
    requestTimeoutMs: REQUEST_TIMEOUT_MS,
    // The valid bundles come in any order: the versions are not what is tested here.
    allowRollback: true,
  }));
  let failures = 0;
  let inForce = valid[0]!;
  let entered = 0;
  let left = 0;
  const kinds: Record<string, number> = {};
  try {
    for (let poll = 0; poll < POLLS; poll++) {
      const wasDegraded = client.status().degraded;
      let expectedCodes: string[] | null = null; // null: a success
      let kind: string;
      const roll = random.next();
      if (roll < 0.25) {
        const next = pick(valid);
        kind = next === inForce ? "304" : "valid";
        server.fault = { kind: "bundle", body: next.text, etag: next.etag };
        inForce = next;
      } else if (roll < 0.3) {
        // The bundle in force again, under a new ETag: a success, nothing changes.
        kind = "same bytes";
        server.fault = { kind: "bundle", body: inForce.text, etag: bogusEtag() };
      } else {
        const bad = pick(BAD);
        kind = bad.name;
        server.fault = await bad.fault();
        expectedCodes = bad.codes;
      }
      kinds[kind] = (kinds[kind] ?? 0) + 1;
      const errorsBefore = recorder.errors.length;
      const request = new Promise<void>((resolve) => arrived = resolve);
      const refreshed = client.refresh();
      if (fault.kind === "hang") {
        await request;
        clock.tick(REQUEST_TIMEOUT_MS);
      }
      await refreshed;
      arrived = null;
      const where = `poll ${poll} (${kind})`;
      if (expectedCodes === null) {
        failures = 0;
        assert.equal(recorder.errors.length, errorsBefore, `${where}: no error`);
      } else {
        failures++;
        assert.equal(recorder.errors.length, errorsBefore + 1, where);
        const code = recorder.errors.at(-1)!.code;
        assert.ok(
          expectedCodes.includes(code),
          `${where}: ${code} ${recorder.errors.at(-1)!.message}`,
        );
        assert.equal(client.status().lastErrorCode, code, where);
      }
      const status = assertServingValid(client, where);
      assert.equal(status.consecutiveFailures, failures, where);
      assert.equal(status.degraded, failures >= 3, where);
      assert.equal(status.checksum, inForce.checksum, where);
      if (!wasDegraded && status.degraded) entered++;
      if (wasDegraded && !status.degraded) left++;
    }
  } finally {
    await client.close();
  }
  assert.ok(entered > 0 && left > 0, `degraded entered ${entered} and left ${left} times`);
  console.log(
    `remote refresh(): ${POLLS} polls ${
      JSON.stringify(kinds)
    }; degraded entered ${entered}, left ${left}`,
  );
});

test(`remote client on its own timers, ${POLLS} polls against a server flapping per request: only valid bundles, counters consistent, nothing leaks after close() [${replayHint(random.seed)}]`, async () => {
  await using server = FaultServer.start({
    kind: "bundle",
    body: valid[0]!.text,
    etag: valid[0]!.etag,
  });
  // Prepared in advance: the server chooses synchronously, per request.
  const bad = await Promise.all(
    Array.from({ length: 60 }, () => pick(BAD)).map(async (b) => ({
      name: b.name,
      fault: await b.fault(),
    })),
  );
  const recorder = new Recorder();
  let previous = 0;
  let inconsistency: string | null = null;
  // The client's timers run on a fake clock, which this test moves: its poll timer, its backoff
  // and its request timeout fire when the test says, never after a wait in real time.
  const clock = new FakeClock();
  const client = await createRemoteClient(remoteOptions(server.baseUrl, {
    clock,
    // The valid bundles come in any order: the versions are not what is tested here.
    allowRollback: true,
    onError: recorder.callbacks.onError!,
    onPoll: (result) => {
      recorder.callbacks.onPoll!(result);
      const { status, outcome } = result;
      const expected = outcome === "failed" ? previous + 1 : 0;
      if (status.consecutiveFailures !== expected && inconsistency === null) {
        inconsistency =
          `after ${outcome}: consecutiveFailures ${status.consecutiveFailures}, expected ${expected}`;
      }
      if (status.degraded !== (expected >= 3) && inconsistency === null) {
        inconsistency = `degraded ${status.degraded} with ${expected} failures`;
      }
      if (!validByChecksum.has(status.checksum) && inconsistency === null) {
        inconsistency = `serving ${status.checksum}`;
      }
      previous = status.consecutiveFailures;
    },
    poll: { intervalMs: 5 },
    maxBackoffMs: 20,
    requestTimeoutMs: REQUEST_TIMEOUT_MS,
  }));
  // From now on, the server flaps: a random fault or a random valid version per request. What
  // the client serves is sampled as each request arrives (a poll in flight) and after each poll.
  let samples = 0;
  let samplerError: unknown = null;
  const sample = (where: string) => {
    try {
      assertServingValid(client, where);
      samples++;
    } catch (error) {
      samplerError ??= error; // thrown in the server's handler, it would only be a 500
    }
  };
  let hanging: (() => void) | null = null;
  let hangs = 0;
  Object.defineProperty(server, "fault", {
    configurable: true,
    get(): Fault {
      sample("request in flight");
      const fault = random.next() < 0.35
        ? (() => {
          const next = pick(valid);
          return { kind: "bundle", body: next.text, etag: next.etag } as Fault;
        })()
        : pick(bad).fault;
      if (fault.kind === "hang") hanging?.();
      return fault;
    },
    set() {},
  });
  let guard: ReturnType<typeof setTimeout> | undefined;
  try {
    // A hang detector for the whole run, not a bound on its time.
    const stuck = new Promise<never>((_, reject) => {
      guard = setTimeout(() => reject(new Error(`fewer than ${POLLS} polls in 60 s`)), 60_000);
    });
    for (let poll = recorder.polls.length; poll < POLLS; poll++) {
      const where = `poll ${poll}`;
      // Between polls the one timer pending is the next poll's (interval or backoff).
      assert.equal(clock.pending, 1, `${where}: timers ${clock.pendingDelays()}`);
      const delay = clock.pendingDelays()[0]!;
      assert.ok(delay >= 0 && delay <= 20 * 1.1, `${where}: next poll in ${delay} ms`);
      const polled = recorder.untilPolls(poll + 1);
      const hang = new Promise<"hang">((resolve) => hanging = () => resolve("hang"));
      clock.runNext();
      if (await Promise.race([polled, hang, stuck]) === "hang") {
        // The origin never answers: the request timeout (the one timer pending) gives up on it.
        assert.deepEqual(clock.pendingDelays(), [REQUEST_TIMEOUT_MS - 0], where);
        clock.tick(REQUEST_TIMEOUT_MS);
        hangs++;
        await Promise.race([polled, stuck]);
        assert.equal(recorder.polls.at(-1)!.error?.code, "REMOTE_UNAVAILABLE", where);
      }
      hanging = null;
      sample(`after ${where}`);
    }
  } finally {
    clearTimeout(guard);
    await client.close();
  }
  if (samplerError !== null) throw samplerError;
  assert.equal(inconsistency, null);
  for (const error of recorder.errors) {
    assert.ok(BAD_CODES.has(error.code), `unexpected ${error.code}: ${error.message}`);
  }
  assert.ok(hangs > 0, "the origin hung at least once");
  const outcomes = recorder.polls.map((p) => p.outcome);
  assert.ok(outcomes.includes("failed") && outcomes.some((o) => o !== "failed"));
  assert.ok(recorder.polls.some((p) => p.status.degraded), "was degraded at some point");
  assert.ok(
    recorder.polls.some((p, i) =>
      i > 0 && recorder.polls[i - 1]!.status.degraded && !p.status.degraded
    ),
    "left degraded at some point",
  );
  // close() stopped polling: no timer of the client is left to poll again.
  assert.equal(clock.pending, 0, "no timer after close()");
  console.log(
    `remote timers: ${recorder.polls.length} polls, ${recorder.errors.length} failed, ${hangs} hung, ${samples} samples`,
  );
});
