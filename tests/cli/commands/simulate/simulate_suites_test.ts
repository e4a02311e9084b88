// Suites that scale (docs/cli.md "simulate"): --suite repeated or naming a folder (every
// *.suite.json below it, sorted), --run filtering scenarios by name, --coverage-threshold with its
// own exit code, and a JUnit report with one testsuite per suite file.
import assert from "node:assert/strict";
import * as path from "node:path";
import { assertError, type Scratch, scratch } from "../../_helpers.ts";
import { nestedQuantifier } from "../../../../src/cli/commands/simulate/scenario_filter.ts";

const BILLING = { service: "billing", resource: "invoice", action: "create" };
const SEARCH = { service: "search", resource: "index", action: "query" };

function scenario(name: string, target: unknown, context: unknown, expected: unknown) {
  return { name, target, context, expected };
}

const billingSuite = {
  name: "billing",
  scenarios: [
    scenario("pro plan may invoice", BILLING, { plan: "pro" }, { decision: "allow" }),
    scenario("free plan, many seats", BILLING, { plan: "free", seats: 9 }, {
      decision: "deny",
      ruleId: "free-plan-many-seats",
    }),
    scenario("free plan, few seats", BILLING, { plan: "free", seats: 1 }, {
      decision: "deny",
      reason: "default",
    }),
  ],
};
const searchSuite = {
  name: "search",
  scenarios: [scenario("tenant throttle", SEARCH, {}, { decision: "throttle" })],
};

async function built(): Promise<Scratch> {
  const s = await scratch();
  await s.fixture("draft.json", "policy-drafts.json");
  assert.equal((await s.run(["build"])).code, 0);
  return s;
}

Deno.test("simulate --suite may be given more than once: every suite runs, in order, reported apart", async () => {
  await using s = await built();
  await s.write("billing.json", billingSuite);
  await s.write("search.json", searchSuite);
  const r = await s.json([
    "simulate",
    "--suite",
    "search.json",
    "--suite",
    "billing.json",
    "--junit",
    "junit.xml",
  ]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.doc.suite, null);
  assert.deepEqual(
    (r.doc.suites as { name: string; scenarios: number }[]).map((x) => [x.name, x.scenarios]),
    [["search", 1], ["billing", 3]],
  );
  assert.deepEqual(
    (r.doc.scenarios as { suitePath: string; name: string }[]).map((x) => [
      path.basename(x.suitePath),
      x.name,
    ]),
    [
      ["search.json", "tenant throttle"],
      ["billing.json", "pro plan may invoice"],
      ["billing.json", "free plan, many seats"],
      ["billing.json", "free plan, few seats"],
    ],
  );
  const xml = await s.read("junit.xml");
  assert.match(xml, /<testsuites name="policy simulate" tests="4" failures="0" errors="0"/);
  assert.deepEqual(
    [...xml.matchAll(/<testsuite name="([^"]+)" tests="(\d+)"/g)].map((m) => [m[1], m[2]]),
    [["search", "1"], ["billing", "3"]],
  );
  const text = await s.run(["simulate", "--suite", "search.json", "--suite", "billing.json"]);
  assert.match(text.stdout, /suite "search" \(search\.json\): 1 scenario\nPASS tenant throttle\n/);
  assert.match(text.stdout, /suite "billing" \(billing\.json\): 3 scenarios\n/);
});

Deno.test("simulate --suite <folder> runs every suite.json and *.suite.json below it, sorted by path", async () => {
  await using s = await built();
  await s.write("tests/search/search.suite.json", searchSuite);
  await s.write("tests/billing.suite.json", billingSuite);
  await s.write("tests/z/one.suite.json", { ...searchSuite, name: "z one" });
  // The name the README and the walkthrough give their suite, as fmt and playground find it.
  await s.write("tests/z/suite.json", { ...searchSuite, name: "z suite" });
  await s.write("tests/notes.json", { name: "not a suite file", scenarios: [] });
  await s.write("tests/README.md", "suites live here");
  const r = await s.json(["simulate", "--suite", "tests"]);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(
    (r.doc.suites as { path: string }[]).map((x) => path.relative(s.wf, x.path)),
    [
      "tests/billing.suite.json",
      "tests/search/search.suite.json",
      "tests/z/one.suite.json",
      "tests/z/suite.json",
    ],
  );
  // A file named again, by itself, runs once.
  const again = await s.json([
    "simulate",
    "--suite",
    "tests/billing.suite.json",
    "--suite",
    "tests",
  ]);
  assert.equal((again.doc.suites as unknown[]).length, 4);
  // A folder with no suite file is an input that is not there (exit 2).
  await Deno.mkdir(path.join(s.wf, "empty"));
  const empty = await s.run(["simulate", "--suite", "empty"]);
  assertError(empty, 2, "DOCUMENT_READ_ERROR");
  assert.match(empty.stderr, /no suite\.json or \*\.suite\.json file below the folder/);
});

Deno.test("simulate --run selects scenarios by name; a bad pattern is a usage error", async () => {
  await using s = await built();
  await s.write("billing.json", billingSuite);
  await s.write("search.json", searchSuite);
  const r = await s.json([
    "simulate",
    "--suite",
    "billing.json",
    "--suite",
    "search.json",
    "--run",
    "^free plan",
  ]);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual((r.doc.scenarios as { name: string }[]).map((x) => x.name), [
    "free plan, many seats",
    "free plan, few seats",
  ]);
  assert.deepEqual(
    [
      (r.doc.summary as { scenarios: number }).scenarios,
      (r.doc.summary as { skipped: number }).skipped,
    ],
    [2, 2],
  );
  assert.deepEqual((r.doc.suites as { skipped: number }[]).map((x) => x.skipped), [1, 1]);
  const text = await s.run(["simulate", "--suite", "billing.json", "--run", "pro"]);
  assert.match(text.stdout, /scenarios 1, passed 1, failed 0, left out by --run 2/);
  for (const bad of ["(unclosed", "(a+)+$", "([a-z]*\\s?)*x", "x".repeat(300)]) {
    assertError(
      await s.run(["simulate", "--suite", "billing.json", "--run", bad]),
      2,
      "USAGE_ERROR",
    );
  }
  // --run, --junit and --coverage-threshold need --suite.
  const one = ["--service", "billing", "--resource", "invoice", "--action", "create"];
  for (const flag of [["--run", "x"], ["--coverage-threshold", "50"], ["--junit", "j.xml"]]) {
    assertError(await s.run(["simulate", ...one, ...flag]), 2, "USAGE_ERROR");
  }
});

Deno.test("--run refuses a repeated group that itself repeats, and nothing else that is plain", () => {
  const refused = [
    "(a+)+",
    "(a*)*",
    "(\\w+\\s?)*$",
    "((ab)+c)+",
    "(?:x+y)+",
    "(a+){2,}",
    "((a+)?)+",
  ];
  for (const p of refused) assert.notEqual(nestedQuantifier(p), null, p);
  const accepted = [
    "free plan",
    "^billing: .*denied$",
    "(a+)b+",
    "(ab)+",
    "(a+)?",
    "(a+){2}",
    "[(a+)]+",
    "\\(a+\\)+",
    "a{2,5}(b)*",
    "(foo|bar)+",
  ];
  for (const p of accepted) assert.equal(nestedQuantifier(p), null, p);
});

Deno.test("simulate --coverage-threshold exits 4 when fewer active rules were exercised, listing them", async () => {
  await using s = await built();
  await s.fixture("suite.json");
  await s.fixture("suite_failing.json");
  // The suite exercises 3 of the 4 active rules: 75 %.
  const low = await s.json(["simulate", "--suite", "suite.json", "--coverage-threshold", "80"]);
  assert.equal(low.code, 4, low.stderr);
  assert.deepEqual(
    [
      (low.doc.coverage as { percent: number }).percent,
      (low.doc.coverage as { threshold: number }).threshold,
      (low.doc.coverage as { belowThreshold: boolean }).belowThreshold,
    ],
    [75, 80, true],
  );
  const text = await s.run([
    "simulate",
    "--suite",
    "suite.json",
    "--coverage-threshold",
    "80",
    "--quiet",
  ]);
  assert.equal(text.code, 4);
  assert.match(
    text.stdout,
    /coverage 75% is below --coverage-threshold 80%: exercise search\.query\/eu-only/,
  );
  const met = await s.json(["simulate", "--suite", "suite.json", "--coverage-threshold", "75"]);
  assert.equal(met.code, 0);
  // A failed scenario is exit 1 whatever the coverage.
  const failing = await s.run([
    "simulate",
    "--suite",
    "suite_failing.json",
    "--coverage-threshold",
    "100",
  ]);
  assert.equal(failing.code, 1);
  for (const bad of ["150", "-1", "most", ""]) {
    assertError(
      await s.run(["simulate", "--suite", "suite.json", "--coverage-threshold", bad]),
      2,
      "USAGE_ERROR",
    );
  }
});
