// simulate's exit codes tell "the suite failed" (1, a failed expectation) from "the suite could
// not run" (2: a bundle that cannot be loaded or verified, a missing key, a bad suite file), and
// --junit still writes a report whose <error> says why, so CI shows the cause
// (docs/cli.md "Exit codes", "simulate").
import assert from "node:assert/strict";
import { assertError, HMAC_SECRET, type Scratch, scratch } from "../../_helpers.ts";

async function built(): Promise<Scratch> {
  const s = await scratch();
  await s.fixture("draft.json", "policy-drafts.json");
  assert.equal((await s.run(["build"])).code, 0);
  await s.fixture("suite.json");
  return s;
}

/** The <error> elements of a JUnit report: type and message. */
function junitErrors(xml: string): { type: string; message: string }[] {
  return [...xml.matchAll(/<error message="([^"]*)" type="([^"]*)"/g)].map((m) => ({
    message: m[1]!,
    type: m[2]!,
  }));
}

Deno.test("simulate --suite: a failed expectation exits 1, a suite that could not run exits 2", async () => {
  await using s = await built();
  await s.fixture("suite_failing.json");
  assert.equal((await s.run(["simulate", "--suite", "suite_failing.json"])).code, 1);
  const bundle = await s.read("policy-bundle.json");
  const cases: [string, () => Promise<void>, Record<string, string>, string][] = [
    [
      "bundle altered after build",
      async () => {
        await s.write(
          "policy-bundle.json",
          bundle.replace('"activeVersion":3', '"activeVersion":4'),
        );
      },
      {},
      "CHECKSUM_MISMATCH",
    ],
    [
      "bundle that breaks the format",
      async () => {
        await s.write("policy-bundle.json", bundle.replace('"env":"prod"', '"env":"moon"'));
      },
      {},
      "BUNDLE_INVALID",
    ],
    [
      "unsigned bundle under a configured key",
      async () => {
        await s.write("policy-bundle.json", bundle);
      },
      { POLICY_HMAC_SECRET: HMAC_SECRET },
      "BUNDLE_SIGNATURE_MISSING",
    ],
    [
      "no bundle",
      async () => {
        await Deno.remove(`${s.wf}/policy-bundle.json`);
      },
      {},
      "BUNDLE_READ_ERROR",
    ],
  ];
  for (const [name, setUp, env, code] of cases) {
    await setUp();
    const r = await s.json(["simulate", "--suite", "suite.json", "--junit", "junit.xml"], { env });
    assertError(r, 2, code);
    assert.equal((r.doc.error as { code: string }).code, code, name);
    const xml = await s.read("junit.xml");
    assert.deepEqual(junitErrors(xml).map((e) => e.type), [code], name);
    assert.match(xml, /<testsuite name="billing and search" tests="1" failures="0" errors="1"/);
    await Deno.remove(`${s.wf}/junit.xml`);
  }
});

Deno.test("simulate --suite --junit: a missing key or a bad suite file is an <error> too (exit 2)", async () => {
  await using s = await built();
  await s.write("policy.config.json", { build: { signing: { hmacSecretEnv: "RELEASE_SECRET" } } });
  const missing = await s.run(["simulate", "--suite", "suite.json", "--junit", "junit.xml"]);
  assertError(missing, 2, "SIGNING_KEY_MISSING");
  const xml = await s.read("junit.xml");
  const [error] = junitErrors(xml);
  assert.equal(error?.type, "SIGNING_KEY_MISSING");
  assert.match(error!.message, /RELEASE_SECRET/);
  await Deno.remove(`${s.wf}/policy.config.json`);

  await s.write("bad.json", { name: "bad", scenarios: [{ name: "a" }] });
  const bad = await s.run(["simulate", "--suite", "bad.json", "--junit", "junit.xml"]);
  assertError(bad, 2, "SUITE_INVALID");
  assert.deepEqual(junitErrors(await s.read("junit.xml")).map((e) => e.type), ["SUITE_INVALID"]);
  // A suite that is not even JSON: the report is named after the file.
  await s.write("broken.json", "{");
  const broken = await s.run(["simulate", "--suite", "broken.json", "--junit", "junit.xml"]);
  assertError(broken, 2, "DOCUMENT_PARSE_ERROR");
  const brokenXml = await s.read("junit.xml");
  assert.match(brokenXml, /<testsuite name="broken\.json"/);
  assert.deepEqual(junitErrors(brokenXml).map((e) => e.type), ["DOCUMENT_PARSE_ERROR"]);
});

Deno.test("simulate: one request against a bundle that cannot be trusted exits 2, not 1", async () => {
  await using s = await built();
  const bundle = await s.read("policy-bundle.json");
  await s.write("policy-bundle.json", bundle.replace('"activeVersion":3', '"activeVersion":4'));
  const r = await s.run([
    "simulate",
    "--service",
    "billing",
    "--resource",
    "invoice",
    "--action",
    "create",
  ]);
  assertError(r, 2, "CHECKSUM_MISMATCH");
});

/**
 * The JUnit report as python3's XML parser (an independent reader) sees it:
 * the totals of <testsuites>, and per testcase its suite, name and failure.
 */
async function readJunit(xml: string): Promise<{
  totals: { tests: number; failures: number; errors: number };
  cases: { suite: string; name: string; failureType: string | null; failure: string | null }[];
}> {
  const script = [
    "import json, sys, xml.etree.ElementTree as ET",
    "root = ET.fromstring(sys.stdin.read())",
    "cases = []",
    "for suite in root.iter('testsuite'):",
    "  for case in suite.iter('testcase'):",
    "    f = case.find('failure')",
    "    cases.append({'suite': suite.get('name'), 'name': case.get('name'),",
    "      'failureType': None if f is None else f.get('type'),",
    "      'failure': None if f is None else f.get('message') + '\\n' + (f.text or '')})",
    "totals = {k: int(root.get(k)) for k in ('tests', 'failures', 'errors')}",
    "print(json.dumps({'totals': totals, 'cases': cases}))",
  ].join("\n");
  const child = new Deno.Command("python3", {
    args: ["-c", script],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(xml));
  await writer.close();
  const output = await child.output();
  assert.equal(output.code, 0, new TextDecoder().decode(output.stderr));
  return JSON.parse(new TextDecoder().decode(output.stdout));
}

Deno.test({
  name: "simulate --junit reports a coverage shortfall as a failure naming the rules not exercised",
  ignore: Deno.permissions.querySync({ name: "run", command: "python3" }).state !== "granted",
  fn: async () => {
    await using s = await built();
    // The suite exercises 3 of the 4 active rules: 75 %.
    const low = await s.run([
      "simulate",
      "--suite",
      "suite.json",
      "--coverage-threshold",
      "80",
      "--junit",
      "junit.xml",
    ]);
    assert.equal(low.code, 4, low.stderr);
    const report = await readJunit(await s.read("junit.xml"));
    assert.ok(report.totals.failures >= 1, JSON.stringify(report.totals));
    const coverage = report.cases.filter((c) => c.failureType === "COVERAGE_BELOW_THRESHOLD");
    assert.equal(coverage.length, 1, JSON.stringify(report.cases));
    assert.match(coverage[0]!.failure!, /75% is below --coverage-threshold 80%/);
    assert.match(coverage[0]!.failure!, /search\.query\/eu-only/);
    // Every scenario passed: the shortfall is the only failure.
    assert.equal(report.totals.failures, 1);

    // Met: the coverage case is there, and passes.
    const met = await s.run([
      "simulate",
      "--suite",
      "suite.json",
      "--coverage-threshold",
      "75",
      "--junit",
      "junit.xml",
    ]);
    assert.equal(met.code, 0, met.stderr);
    const passed = await readJunit(await s.read("junit.xml"));
    assert.equal(passed.totals.failures, 0);
    assert.ok(passed.cases.some((c) => /coverage/.test(c.suite) && c.failure === null));

    // No threshold: no coverage case.
    assert.equal(
      (await s.run(["simulate", "--suite", "suite.json", "--junit", "junit.xml"])).code,
      0,
    );
    const none = await readJunit(await s.read("junit.xml"));
    assert.ok(!none.cases.some((c) => /coverage/.test(c.suite)), JSON.stringify(none.cases));
  },
});
