import assert from "node:assert/strict";
import * as path from "node:path";
import { assertError, assertShape, HMAC_SECRET, type Scratch, scratch } from "../../_helpers.ts";
import { createLocalClient } from "../../../../src/clients/mod.ts";

const ONE_SHAPE = {
  formatVersion: "number",
  path: "string",
  source: "string",
  verification: "object",
  target: "object",
  context: "object",
  decision: "object",
  trace: "object|null",
  warnings: "array",
};
const VERIFICATION_SHAPE = {
  status: "string",
  algorithm: "string|null",
  keyId: "string|null",
  keySource: "string|null",
};
const SUITE_SHAPE = {
  formatVersion: "number",
  path: "string",
  source: "string",
  suite: "object|null",
  suites: "array",
  verification: "object",
  scenarios: "array",
  summary: "object",
  coverage: "object",
  junitPath: "string|null",
  warnings: "array",
};
const SCENARIO_SHAPE = {
  suitePath: "string",
  name: "string",
  passed: "boolean",
  expected: "object",
  actual: "object",
  mismatches: "array",
  durationMs: "number",
};

async function built(): Promise<Scratch> {
  const s = await scratch();
  await s.fixture("draft.json", "policy-drafts.json");
  assert.equal((await s.run(["build"])).code, 0);
  return s;
}

const target = ["--service", "billing", "--resource", "invoice", "--action", "create"];

Deno.test("simulate prints decision, reason, policy and rule", async () => {
  await using s = await built();
  const text = await s.run(["simulate", ...target, "--context", '{"plan":"free","seats":9}']);
  assert.equal(text.code, 0, text.stderr);
  assert.match(
    text.stdout,
    /decision: deny\n {2}reason: rule\n {2}policy: billing\.invoice\.create\n {2}rule: +free-plan-many-seats/,
  );
  const r = await s.json(["simulate", ...target, "--context", '{"plan":"pro"}']);
  assertShape(r.doc, ONE_SHAPE);
  assertShape(r.doc.verification, VERIFICATION_SHAPE, "verification");
  assert.deepEqual(r.doc.decision, {
    decision: "allow",
    reason: "rule",
    policyKey: "billing.invoice.create",
    ruleId: "paid-plans",
  });
  assert.deepEqual(r.doc.target, { service: "billing", resource: "invoice", action: "create" });
  assert.deepEqual(r.doc.context, { plan: "pro" });
  assert.equal(r.doc.trace, null);
  assert.equal((r.doc.verification as { status: string }).status, "unsigned");
});

Deno.test("simulate denies by default at a target no rule names", async () => {
  await using s = await built();
  const r = await s.json(["simulate", "--service", "x", "--resource", "y", "--action", "z"]);
  assert.deepEqual(r.doc.decision, { decision: "deny", reason: "default" });
});

Deno.test("simulate --trace full lists policies, rules, outcomes and the selected candidate", async () => {
  await using s = await built();
  const text = await s.run([
    "simulate",
    ...target,
    "--context",
    '{"plan":"free","seats":1}',
    "--trace",
    "full",
  ]);
  assert.match(text.stdout, /policies seen: billing\.invoice\.create/);
  assert.match(text.stdout, /rules seen: +3/);
  assert.match(text.stdout, /matched: +0/);
  assert.match(
    text.stdout,
    /billing\.invoice\.create\/paid-plans \(priority 10\): skipped \(when_false\)/,
  );
  assert.match(text.stdout, /legacy \(priority 1\): skipped \(disabled\)/);
  // Each condition explained leaf by leaf, and the leaf that made it false.
  assert.match(
    text.stdout,
    /free-plan-many-seats \(priority 20\): skipped \(when_false\)\n {6}when: plan == "free" ✓ and seats \(1\) > 5 ✗\n {6}false because: seats \(1\) > 5 ✗\n/,
  );
  assert.match(
    text.stdout,
    /paid-plans \(priority 10\): skipped \(when_false\)\n {6}when: ctx\.plan \("free"\) in \["pro", "enterprise"\] ✗\n {4}billing/,
  );
  assert.match(
    text.stdout,
    /selected: billing\.invoice\.create\/__default__ \(deny, priority -1\)/,
  );
  const r = await s.json([
    "simulate",
    ...target,
    "--trace",
    "full",
    "--context",
    '{"plan":"free","seats":1}',
  ]);
  const rules = (r.doc.trace as { rules: Record<string, unknown>[] }).rules;
  assertShape(rules[1], {
    policyKey: "string",
    ruleId: "string",
    priority: "number",
    outcome: "string",
    condition: "object",
    falseBecause: "object",
  }, "trace.rules[1]");
  assert.deepEqual(rules[1]!.falseBecause, {
    kind: "leaf",
    op: "gt",
    path: "seats",
    operand: 5,
    operandCount: null,
    problem: null,
    value: 1,
    absent: false,
    outcome: false,
  });
  assert.deepEqual(
    (rules[1]!.condition as { conditions: { outcome: boolean }[] }).conditions.map((c) =>
      c.outcome
    ),
    [true, false],
  );
  assert.deepEqual([rules[2]!.condition, rules[2]!.falseBecause], [null, null]);
  assertShape(r.doc.trace, {
    decision: "object",
    policiesSeen: "array",
    rulesSeen: "number",
    matchedCount: "number",
    rules: "array",
    candidates: "array",
    selected: "object|null",
  }, "trace");
});

Deno.test("simulate refuses bad flags: missing target, non-object context, other trace values", async () => {
  await using s = await built();
  assertError(await s.run(["simulate", "--service", "billing"]), 2, "USAGE_ERROR");
  assertError(await s.run(["simulate", ...target, "--context", "[1]"]), 2, "USAGE_ERROR");
  assertError(await s.run(["simulate", ...target, "--context", "{plan:1}"]), 2, "USAGE_ERROR");
  assertError(await s.run(["simulate", ...target, "--trace", "short"]), 2, "USAGE_ERROR");
  assertError(await s.run(["simulate", ...target, "--suite", "s.json"]), 2, "USAGE_ERROR");
  assertError(await s.run(["simulate", ...target, "--junit", "j.xml"]), 2, "USAGE_ERROR");
});

Deno.test("simulate --suite reports each scenario, the summary and the rules no scenario exercised", async () => {
  await using s = await built();
  await s.fixture("suite.json", "tests/suite.json");
  const r = await s.json(["simulate", "--suite", "tests/suite.json"]);
  assert.equal(r.code, 0, r.stderr);
  assertShape(r.doc, SUITE_SHAPE);
  assertShape(r.doc.summary, {
    scenarios: "number",
    passed: "number",
    failed: "number",
    skipped: "number",
    durationMs: "number",
  }, "summary");
  assert.deepEqual(r.doc.summary, {
    scenarios: 4,
    passed: 4,
    failed: 0,
    skipped: 0,
    durationMs: 0,
  });
  assert.equal(r.doc.source, "bundle");
  assert.deepEqual(r.doc.suite, {
    path: path.join(s.wf, "tests/suite.json"),
    name: "billing and search",
  });
  assert.deepEqual(r.doc.suites, [{
    path: path.join(s.wf, "tests/suite.json"),
    name: "billing and search",
    scenarios: 4,
    passed: 4,
    failed: 0,
    skipped: 0,
  }]);
  for (const scenario of r.doc.scenarios as unknown[]) {
    assertShape(scenario, SCENARIO_SHAPE, "scenario");
  }
  assertShape(
    r.doc.coverage,
    {
      activeRules: "number",
      exercised: "number",
      unexercised: "array",
      percent: "number",
      threshold: "number|null",
      belowThreshold: "boolean",
    },
    "coverage",
  );
  assert.deepEqual(r.doc.coverage, {
    activeRules: 4,
    exercised: 3,
    unexercised: [{ policyKey: "search.query", ruleId: "eu-only" }],
    percent: 75,
    threshold: null,
    belowThreshold: false,
  });
  const text = await s.run(["simulate", "--suite", "tests/suite.json"]);
  assert.match(text.stdout, /PASS pro plan may create invoices/);
  assert.match(text.stdout, /scenarios 4, passed 4, failed 0 \(0 ms\)/);
  assert.match(
    text.stdout,
    /coverage: 3 of 4 active rules exercised \(75%\); not exercised: search\.query\/eu-only/,
  );
});

Deno.test("simulate --suite exits 1 on a failed expectation and shows expected and actual", async () => {
  await using s = await built();
  await s.fixture("suite_failing.json");
  const text = await s.run(["simulate", "--suite", "suite_failing.json"]);
  assert.equal(text.code, 1);
  assert.match(
    text.stdout,
    /FAIL free plan <expected> allow & wrongly\n {2}expected: allow \(rule paid-plans\)\n {2}actual: +deny \(reason rule, policy billing\.invoice\.create, rule free-plan-many-seats\)/,
  );
  assert.match(text.stdout, /scenarios 2, passed 1, failed 1/);
  const quiet = await s.run(["simulate", "--suite", "suite_failing.json", "--quiet"]);
  assert.doesNotMatch(quiet.stdout, /PASS/);
  assert.match(quiet.stdout, /FAIL/);
  const r = await s.json(["simulate", "--suite", "suite_failing.json"]);
  assert.equal(r.code, 1);
  const failed = (r.doc.scenarios as { passed: boolean; mismatches: string[] }[])[1]!;
  assert.deepEqual([failed.passed, failed.mismatches], [false, ["decision", "ruleId"]]);
});

Deno.test("simulate --suite --junit writes JUnit XML with the failures", async () => {
  await using s = await built();
  await s.fixture("suite_failing.json");
  const r = await s.json([
    "simulate",
    "--suite",
    "suite_failing.json",
    "--junit",
    "reports/junit.xml",
  ]);
  assert.equal(r.doc.junitPath, path.join(s.wf, "reports/junit.xml"));
  const xml = await s.read("reports/junit.xml");
  assert.match(xml, /^<\?xml version="1\.0" encoding="UTF-8"\?>/);
  assert.match(xml, /<testsuite name="one wrong expectation" tests="2" failures="1"/);
  assert.match(
    xml,
    /<testcase name="pro plan may create invoices" classname="one wrong expectation" time="0\.000"\/>/,
  );
  assert.match(xml, /<testcase name="free plan &lt;expected&gt; allow &amp; wrongly"/);
  assert.match(xml, /<failure message="expected allow \(rule paid-plans\), got deny/);
});

Deno.test("simulate --suite refuses a malformed suite with every problem listed (exit 2)", async () => {
  await using s = await built();
  await s.write("bad.json", {
    name: "",
    scenarios: [{ name: "a", target: { service: "s" }, expected: { decision: "maybe" } }, 3],
  });
  const r = await s.run(["simulate", "--suite", "bad.json"]);
  assertError(r, 2, "SUITE_INVALID");
  assert.match(
    r.stderr,
    /name must be a non-empty string; scenarios\[0\]\.target .*; scenarios\[0\]\.expected\.decision .*; scenarios\[1\] must be an object/,
  );
  assertError(await s.run(["simulate", "--suite", "none.json"]), 2, "DOCUMENT_READ_ERROR");
});

Deno.test("simulate verifies the bundle first when a key is configured, sign.signing winning over build.signing", async () => {
  await using s = await scratch();
  await s.fixture("draft.json", "policy-drafts.json");
  await s.fixture("suite.json");
  const OTHER = "0".repeat(64);
  await s.write("policy.config.json", {
    build: { signing: { algorithm: "HMAC_SHA256", keyId: "b", hmacSecretEnv: "BUILD_SECRET" } },
    sign: { signing: { hmacSecretEnv: "SIGN_SECRET" } },
  });
  // Signed with the sign.signing secret.
  const env = { BUILD_SECRET: OTHER, SIGN_SECRET: HMAC_SECRET };
  assert.equal((await s.run(["build"])).code, 0);
  assert.equal((await s.run(["sign"], { env })).code, 0);
  const r = await s.json(["simulate", "--suite", "suite.json"], { env });
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(r.doc.verification, {
    status: "verified",
    algorithm: "HMAC_SHA256",
    keyId: "b",
    keySource: "environment variable SIGN_SECRET",
  });
  // A verification failure stops the simulation with the load code (exit 2: it could not run).
  const wrong = await s.json(["simulate", ...target], { env: { SIGN_SECRET: OTHER } });
  assertError(wrong, 2, "BUNDLE_SIGNATURE_INVALID");
  assert.equal((wrong.doc.error as { code: string }).code, "BUNDLE_SIGNATURE_INVALID");
  // The configured secret missing from the environment is a configuration error, unless skipped.
  assertError(await s.run(["simulate", ...target]), 2, "SIGNING_KEY_MISSING");
  const skipped = await s.json(["simulate", ...target, "--skip-verify"]);
  assert.equal((skipped.doc.verification as { status: string }).status, "skipped");
});

Deno.test("simulate with a configured key refuses an unsigned bundle (BUNDLE_SIGNATURE_MISSING)", async () => {
  await using s = await built();
  await s.run(["keys", "generate", "--algorithm", "ECDSA_SHA_256", "--out-dir", "keys"]);
  await s.write("policy.config.json", { signature: { publicKeyPath: "keys/public-key.pem" } });
  assertError(await s.run(["simulate", ...target]), 2, "BUNDLE_SIGNATURE_MISSING");
});

Deno.test("simulate verifies an ECDSA bundle with the public half of the configured private key", async () => {
  await using s = await scratch();
  await s.fixture("draft.json", "policy-drafts.json");
  await s.run(["keys", "generate", "--algorithm", "ECDSA_SHA_256", "--out-dir", "keys"]);
  await s.write("policy.config.json", {
    build: {
      signed: true,
      signing: {
        algorithm: "ECDSA_SHA_256",
        keyId: "e",
        ecdsaPrivateKeyPath: "keys/private-key.pem",
      },
    },
  });
  assert.equal((await s.run(["build"])).code, 0);
  const r = await s.json(["simulate", ...target]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal((r.doc.verification as { status: string }).status, "verified");
});

Deno.test("simulate --bundle evaluates another bundle, resolved from the working folder", async () => {
  await using s = await built();
  await Deno.rename(path.join(s.wf, "policy-bundle.json"), path.join(s.wf, "elsewhere.json"));
  assertError(await s.run(["simulate", ...target]), 2, "BUNDLE_READ_ERROR");
  const r = await s.json(["simulate", ...target, "--bundle", "elsewhere.json"]);
  assert.equal(r.doc.path, path.join(s.wf, "elsewhere.json"));
});

Deno.test("simulate loads the bundle as a local client given the same key would, and evaluates a signed one without a key unverified", async () => {
  await using s = await built();
  await s.run(["keys", "generate", "--algorithm", "ECDSA_SHA_256", "--out-dir", "keys"]);
  const publicKey = await s.read("keys/public-key.pem");
  const bundleFile = path.join(s.wf, "policy-bundle.json");
  const unsigned = await s.read("policy-bundle.json");
  assert.equal(
    (await s.run([
      "sign",
      "--ecdsa-private-key",
      "keys/private-key.pem",
      "--signing-key-id",
      "k",
    ])).code,
    0,
  );
  const signed = await s.read("policy-bundle.json");
  const tampered = signed.replace('"activeVersion":1', '"activeVersion":2');
  assert.notEqual(tampered, signed);
  const keyed = { POLICY_PUBLIC_KEY: publicKey };
  // What a client does, and what simulate does: the same, except that simulate evaluates a
  // signed bundle it has no key for (docs/cli.md "simulate"), saying it is unverified.
  for (
    const [name, text, env, expected, simulates] of [
      ["unsigned, no key", unsigned, {}, "loaded", "unsigned"],
      ["unsigned, a key", unsigned, keyed, "BUNDLE_SIGNATURE_MISSING", "BUNDLE_SIGNATURE_MISSING"],
      ["signed, no key", signed, {}, "BUNDLE_SIGNATURE_UNVERIFIED", "unverified"],
      ["signed, its key", signed, keyed, "loaded", "verified"],
      ["altered after signing", tampered, keyed, "CHECKSUM_MISMATCH", "CHECKSUM_MISMATCH"],
    ] as const
  ) {
    await Deno.writeTextFile(bundleFile, text);
    const simulated = await s.json(["simulate", ...target], { env });
    const client = await createLocalClient({
      bundlePath: bundleFile,
      ...("POLICY_PUBLIC_KEY" in env
        ? { verify: { algorithm: "ECDSA_SHA_256" as const, publicKey } }
        : { allowUnsigned: true }),
    }).then(async (c) => {
      await c.close();
      return "loaded";
    }, (error) => error.code as string);
    const outcome = simulated.code === 0
      ? (simulated.doc.verification as { status: string }).status
      : (simulated.doc.error as { code: string }).code;
    assert.equal(client, expected, name);
    assert.equal(outcome, simulates, name);
  }
});

Deno.test("simulate --skip-verify says it skipped the check, also when a key is configured", async () => {
  await using s = await built();
  await s.write("policy.config.json", { build: { signing: { hmacSecretEnv: "S" } } });
  const r = await s.run(["simulate", ...target, "--skip-verify"]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /signature: not verified \(--skip-verify\)/);
  assert.doesNotMatch(r.stdout, /no key configured/);
});

Deno.test("simulate warns on unknown fields of a suite, which --strict refuses: a misspelt expectation is not checked", async () => {
  await using s = await built();
  await s.write("suite.json", {
    name: "typos",
    scenarios: [{
      name: "free plan",
      target: { service: "billing", resource: "invoice", action: "create" },
      context: { plan: "free", seats: 9 },
      expected: { decision: "deny", ruleID: "no-such-rule", reasn: "default" },
    }],
  });
  const r = await s.json(["simulate", "--suite", "suite.json"]);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(
    (r.doc.warnings as { code: string; message: string }[]).map((w) =>
      w.message.match(/unknown field "(\w+)"(?: \(did you mean "(\w+)"\?\))?/)!.slice(1)
    ),
    [["ruleID", "ruleId"], ["reasn", "reason"]],
  );
  const strict = await s.run(["simulate", "--suite", "suite.json", "--strict"]);
  assertError(strict, 2, "SUITE_INVALID");
  assert.match(strict.stderr, /2 unknown field\(s\), which --strict refuses/);
});

Deno.test("a bare --trace means --trace full, last or before another flag", async () => {
  await using s = await built();
  const context = ["--context", '{"plan":"free","seats":1}'];
  const full = await s.run(["simulate", ...target, ...context, "--trace", "full"]);
  assert.equal(full.code, 0, full.stderr);
  for (const args of [[...target, ...context, "--trace"], ["--trace", ...target, ...context]]) {
    const bare = await s.run(["simulate", ...args]);
    assert.equal(bare.code, 0, bare.stderr);
    assert.equal(bare.stdout, full.stdout);
  }
  const json = await s.json(["simulate", ...target, "--trace"]);
  assert.equal(typeof json.doc.trace, "object");
  assert.notEqual(json.doc.trace, null);
  // A value that is not a flag is still the flag's value, and checked.
  assertError(await s.run(["simulate", ...target, "--trace", "short"]), 2, "USAGE_ERROR");
});

Deno.test("simulate before any build says to build, or to evaluate the draft with --draft", async () => {
  await using s = await scratch();
  await s.fixture("draft.json", "policy-drafts.json");
  const r = await s.run(["simulate", ...target]);
  assertError(r, 2, "BUNDLE_READ_ERROR");
  assert.match(r.stderr, /policy build/);
  assert.match(r.stderr, /--draft/);
  const json = await s.json(["simulate", ...target]);
  const error = json.doc.error as { code: string; hint?: string };
  assert.equal(error.code, "BUNDLE_READ_ERROR");
  // Suites too: the same source.
  await s.fixture("suite.json", "suite.json");
  const suite = await s.run(["simulate", "--suite", "suite.json"]);
  assert.match(suite.stderr, /--draft/);
  // Once built, simulate evaluates the bundle.
  assert.equal((await s.run(["build"])).code, 0);
  assert.equal((await s.run(["simulate", ...target])).code, 0);
});

Deno.test("simulate in an empty folder says how to start a draft; an explicit --bundle gets no hint", async () => {
  await using s = await scratch();
  const r = await s.run(["simulate", ...target]);
  assertError(r, 2, "BUNDLE_READ_ERROR");
  assert.match(r.stderr, /policy policies add-rule/);
  const named = await s.run(["simulate", ...target, "--bundle", "elsewhere.json"]);
  assertError(named, 2, "BUNDLE_READ_ERROR");
  assert.doesNotMatch(named.stderr, /policy build/);
});
