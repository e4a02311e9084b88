// simulate --watch (docs/cli.md "simulate"): runs again on any change of the draft, bundle,
// suites, keys or config, polled on the command's clock (a fake one here: the test fires each
// poll, and never waits on a timer of ours), clears the screen on a terminal, never stops on
// a broken file, and ends when the I/O's abort signal fires.
import assert from "node:assert/strict";
import * as path from "node:path";
import { type CliIo, runCli } from "../../_exports.ts";
import { NOW, scratch } from "../../_helpers.ts";
import { FakeClock } from "../../../_fake_clock.ts";
import { ISSUER, TEST_LICENSE } from "../../../_license.ts";
import { WATCH_INTERVAL_MS } from "../../../../src/cli/commands/simulate/watch.ts";

/**
 * Polls of the watch on a fake clock: `started` resolves once the first run is done and the watch
 * waits (its first timer is scheduled); `poll` fires that timer and resolves once the watch waits
 * again, having run again or not.
 */
function polls(clock: FakeClock) {
  let next = clock.nextTimer();
  return {
    started: () => next,
    poll: async () => {
      assert.equal(clock.pending, 1, "one poll pending");
      next = clock.nextTimer();
      assert.ok(clock.runNext());
      await next;
    },
  };
}

Deno.test("simulate --watch runs again on every change, survives broken files, and stops on abort", async () => {
  await using s = await scratch();
  await s.fixture("draft.json", "policy-drafts.json");
  assert.equal((await s.run(["build"])).code, 0);
  await s.fixture("suite.json", "tests/billing.suite.json");
  const clock = new FakeClock({ wallNow: NOW.getTime() });
  const timers = polls(clock);
  const controller = new AbortController();
  let stdout = "";
  let stderr = "";
  const env: Record<string, string> = {
    POLICY_HOME: s.home,
    POLICY_LICENSE: TEST_LICENSE,
    POLICY_LICENSE_PUBLIC_KEY: ISSUER.publicKeyPem,
  };
  const io: CliIo = {
    stdout: (text) => void (stdout += text),
    stderr: (text) => void (stderr += text),
    env: (name) => env[name],
    cwd: s.wf,
    clock,
    signal: controller.signal,
    stdoutIsTerminal: true,
  };
  /** What was printed since the last call. */
  let seen = 0;
  const fresh = () => {
    const text = stdout.slice(seen);
    seen = stdout.length;
    return text;
  };
  const runs = () => stdout.split("\x1b[2J").length - 1;

  const watching = runCli(["simulate", "--suite", "tests", "--watch"], io);
  await timers.started();
  assert.equal(runs(), 1);
  assert.match(fresh(), /scenarios 4, passed 4, failed 0/);
  assert.match(stderr, /watching \d+ files for changes \(Ctrl-C to stop\)/);
  assert.deepEqual(clock.pendingDelays(), [WATCH_INTERVAL_MS]);

  // Nothing changed: a poll does not run again.
  await timers.poll();
  assert.equal(runs(), 1);

  // A suite changes: a failing expectation shows at once.
  const suite = JSON.parse(await s.read("tests/billing.suite.json"));
  suite.scenarios[0].expected = { decision: "deny" };
  await s.write("tests/billing.suite.json", suite);
  await timers.poll();
  assert.equal(runs(), 2);
  assert.match(fresh(), /FAIL pro plan may create invoices[\s\S]*failed 1/);
  assert.match(stderr, /billing\.suite\.json changed: running again/);

  // A broken suite file: the error is shown, and the watch goes on.
  await s.write("tests/billing.suite.json", "{ not json");
  await timers.poll();
  assert.equal(runs(), 3);
  assert.match(stderr, /error: .*billing\.suite\.json.*\(DOCUMENT_PARSE_ERROR\)/);
  suite.scenarios[0].expected = { decision: "allow" };
  await s.write("tests/billing.suite.json", suite);
  await timers.poll();
  assert.equal(runs(), 4);
  assert.match(fresh(), /failed 0/);

  // A new suite file in the folder is seen.
  await s.write("tests/more/search.suite.json", {
    name: "search",
    scenarios: [{
      name: "export outside the EU is denied",
      target: { service: "search", resource: "index", action: "export" },
      context: { region: "us" },
      expected: { decision: "deny", ruleId: "eu-only" },
    }],
  });
  await timers.poll();
  assert.equal(runs(), 5);
  assert.match(fresh(), /suite "search"[\s\S]*scenarios 5, passed 5/);

  // The bundle is rebuilt (atomically, as build writes): run again.
  const draft = JSON.parse(await s.read("policy-drafts.json"));
  draft.policies[0].rules[0].status = "disabled";
  await s.write("policy-drafts.json", draft);
  await timers.poll();
  assert.equal(runs(), 5, "the draft is not what this watch evaluates");
  assert.equal((await s.run(["build"])).code, 0);
  await timers.poll();
  assert.equal(runs(), 6);
  assert.match(fresh(), /FAIL pro plan may create invoices/);

  // The config names a key: its file is watched too.
  await s.run(["keys", "generate", "--algorithm", "ECDSA_SHA_256", "--out-dir", "keys"]);
  await s.write("policy.config.json", { signature: { publicKeyPath: "keys/public-key.pem" } });
  await timers.poll();
  assert.equal(runs(), 7);
  assert.match(stderr, /\(BUNDLE_SIGNATURE_MISSING\)/);
  await s.write("keys/public-key.pem", "not a key");
  const errors = stderr.match(/INVALID_KEY/g)?.length ?? 0;
  await timers.poll();
  assert.equal(runs(), 8);
  assert.equal(stderr.match(/INVALID_KEY/g)?.length, errors + 1);

  // Abort: the command ends with the last run's exit code, leaving no timer behind.
  controller.abort();
  assert.equal(await watching, 2);
  assert.equal(clock.pending, 0);
});

Deno.test("simulate --watch on --draft runs again when the draft changes; no clearing off a terminal", async () => {
  await using s = await scratch();
  await s.fixture("draft.json", "policy-drafts.json");
  const clock = new FakeClock({ wallNow: NOW.getTime() });
  const timers = polls(clock);
  const controller = new AbortController();
  let stdout = "";
  const io: CliIo = {
    stdout: (text) => void (stdout += text),
    stderr: () => {},
    env: (name) => (name === "POLICY_HOME" ? s.home : undefined),
    cwd: s.wf,
    clock,
    signal: controller.signal,
  };
  const args = ["simulate", "--draft", "--service", "billing", "--resource", "invoice"];
  const watching = runCli(
    [...args, "--action", "create", "--context", '{"plan":"pro"}', "--watch"],
    io,
  );
  await timers.started();
  assert.match(stdout, /decision: allow/);
  const draft = JSON.parse(await s.read("policy-drafts.json"));
  draft.policies[0].rules[0].status = "disabled";
  await s.write("policy-drafts.json", draft);
  await timers.poll();
  assert.match(stdout, /decision: allow[\s\S]*decision: deny/);
  assert.ok(!stdout.includes("\x1b[2J"), "no clearing off a terminal");
  controller.abort();
  assert.equal(await watching, 0);
});

Deno.test("simulate --watch refuses --format json, before reading anything", async () => {
  await using s = await scratch();
  const r = await s.run(["simulate", "--suite", "x.json", "--watch", "--format", "json"]);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /--watch .* cannot be combined with --format json \(USAGE_ERROR\)/);
  assert.equal(path.basename(s.wf), "wf");
});
