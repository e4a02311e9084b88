// simulate --draft (docs/cli.md "simulate"): the draft is evaluated exactly as the bundle built
// from it would decide (the same code as build, the same load pipeline), with no version bump, no
// licence, no signature and nothing written.
import assert from "node:assert/strict";
import * as path from "node:path";
import { assertError, scratch } from "../../_helpers.ts";
import {
  bundle as bundleArbitrary,
  context,
  fc,
  target,
} from "../../../properties/_arbitraries.ts";

const billing = ["--service", "billing", "--resource", "invoice", "--action", "create"];

/** Every file of a folder with its bytes, to prove that nothing was written. */
async function snapshot(folder: string): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  for await (const entry of Deno.readDir(folder)) {
    const full = path.join(folder, entry.name);
    files[entry.name] = entry.isFile ? await Deno.readTextFile(full) : "(folder)";
  }
  return files;
}

Deno.test("simulate --draft evaluates the draft without building, signing, licensing or writing anything", async () => {
  await using s = await scratch();
  await s.fixture("draft.json", "policy-drafts.json");
  // A grace period that ended long ago and no licence: build is refused, simulate --draft is not.
  await Deno.mkdir(s.home, { recursive: true });
  await Deno.writeTextFile(
    path.join(s.home, "license-state.json"),
    JSON.stringify({ schemaVersion: 1, graceStartedAt: "2020-01-01T00:00:00.000Z" }),
  );
  const unlicensed = { POLICY_LICENSE: "" };
  assertError(await s.run(["build"], { env: unlicensed }), 3, "LICENSE_REQUIRED");
  const before = await snapshot(s.wf);
  const home = await snapshot(s.home);
  const r = await s.json(["simulate", "--draft", ...billing, "--context", '{"plan":"pro"}'], {
    env: unlicensed,
  });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.doc.path, path.join(s.wf, "policy-drafts.json"));
  assert.equal(r.doc.source, "draft");
  assert.deepEqual(r.doc.verification, {
    status: "draft",
    algorithm: null,
    keyId: null,
    keySource: null,
  });
  assert.deepEqual(r.doc.decision, {
    decision: "allow",
    reason: "rule",
    policyKey: "billing.invoice.create",
    ruleId: "paid-plans",
  });
  assert.deepEqual(await snapshot(s.wf), before, "nothing written in the working folder");
  assert.deepEqual(await snapshot(s.home), home, "nothing written in POLICY_HOME");
  const text = await s.run(["simulate", "--draft", ...billing], { env: unlicensed });
  assert.match(text.stdout, /draft: .*policy-drafts\.json\n {2}signature: none \(the draft/);
});

Deno.test("simulate --draft sees an edit at once, and --draft --suite runs suites against the draft", async () => {
  await using s = await scratch();
  await s.fixture("draft.json", "policy-drafts.json");
  await s.fixture("suite.json");
  assert.equal((await s.run(["build"])).code, 0);
  const built = await s.read("policy-bundle.json");
  // Disable the paid-plans rule in the draft only.
  const draft = JSON.parse(await s.read("policy-drafts.json"));
  draft.policies[0].rules[0].status = "disabled";
  await s.write("policy-drafts.json", draft);
  const fromBundle = await s.json(["simulate", "--suite", "suite.json"]);
  assert.equal(fromBundle.code, 0, fromBundle.stderr);
  const fromDraft = await s.json(["simulate", "--draft", "--suite", "suite.json"]);
  assert.equal(fromDraft.code, 1, "the pro-plan scenario now fails");
  assert.equal(fromDraft.doc.source, "draft");
  const failed = (fromDraft.doc.scenarios as { name: string; passed: boolean }[])
    .filter((x) => !x.passed).map((x) => x.name);
  assert.deepEqual(failed, ["pro plan may create invoices"]);
  assert.equal(await s.read("policy-bundle.json"), built, "the bundle is untouched");
});

Deno.test("simulate --draft: a draft that does not validate cannot run (exit 2); --draft excludes bundle flags", async () => {
  await using s = await scratch();
  await s.fixture("draft.json", "policy-drafts.json");
  const draft = JSON.parse(await s.read("policy-drafts.json"));
  draft.policies[0].rules[1].priority = "high";
  await s.write("policy-drafts.json", draft);
  const r = await s.run(["simulate", "--draft", ...billing]);
  assertError(r, 2, "DRAFT_INVALID");
  for (
    const flag of [["--bundle", "b.json"], ["--skip-verify"], ["--public-key", "k.pem"], [
      "--algorithm",
      "HMAC_SHA256",
    ]]
  ) {
    assertError(await s.run(["simulate", "--draft", ...billing, ...flag]), 2, "USAGE_ERROR");
  }
  await Deno.remove(path.join(s.wf, "policy-drafts.json"));
  assertError(await s.run(["simulate", "--draft", ...billing]), 2, "DOCUMENT_READ_ERROR");
});

/** A generated bundle's policies as a draft. */
function asDraft(b: { policies: unknown[] }): Record<string, unknown> {
  return { schemaVersion: "1.0", generatedAt: "2026-11-21T09:30:00.000Z", policies: b.policies };
}

Deno.test("property: simulate --draft and the bundle built from the draft decide the same", async () => {
  await using s = await scratch();
  const scenarioArbitrary = fc.tuple(target, context).map(([t, ctx]) => ({
    target: t,
    // Suites are JSON: the context as JSON has it (inherited keys and prototypes do not survive).
    context: JSON.parse(JSON.stringify(ctx)) as Record<string, unknown>,
    expected: { decision: "allow" },
  }));
  await fc.assert(
    fc.asyncProperty(
      bundleArbitrary,
      fc.array(scenarioArbitrary, { minLength: 1, maxLength: 12 }),
      async (b, scenarios) => {
        await s.write("policy-drafts.json", asDraft(b));
        await s.write("suite.json", {
          name: "generated",
          scenarios: scenarios.map((x, i) => ({ ...x, name: `scenario ${i}` })),
        });
        const build = await s.run(["build"]);
        assert.equal(build.code, 0, build.stderr);
        const drafted = await s.json(["simulate", "--draft", "--suite", "suite.json"]);
        const bundled = await s.json(["simulate", "--suite", "suite.json"]);
        assert.ok([0, 1].includes(drafted.code), drafted.stderr);
        assert.equal(drafted.doc.source, "draft");
        assert.equal(bundled.doc.source, "bundle");
        const decisions = (doc: Record<string, unknown>) =>
          (doc.scenarios as { actual: unknown }[]).map((x) => x.actual);
        assert.equal(decisions(drafted.doc).length, scenarios.length);
        assert.deepEqual(decisions(drafted.doc), decisions(bundled.doc));
        assert.deepEqual(drafted.doc.coverage, bundled.doc.coverage);
      },
    ),
    { numRuns: 50 },
  );
});
