// The plan steps of the commands, called directly: what each decides from its inputs, with no
// file, lock, key, network or output (the `policies` subcommands: policies/plans_test.ts).
import assert from "node:assert/strict";
import {
  type BuildOptions,
  planBuildVersion,
  scopeAdvice,
} from "../../../src/cli/commands/build.ts";
import { planValidate } from "../../../src/cli/commands/validate.ts";
import { inspectDocument, planVerification } from "../../../src/cli/commands/inspect.ts";
import { validateBundle } from "../../../src/engine/validate_bundle.ts";
import { validateDraft } from "../../../src/authoring/draft.ts";
import { PolicyError } from "../../../src/public/policy_error.ts";
import type { RuntimeBundleV1 } from "../../../src/engine/types.ts";
import { rule } from "../_helpers.ts";
import { type FmtInput, planFmt, planFmtFile } from "../../../src/cli/commands/fmt/fmt.ts";
import { comparableDraft, planDiff, type Side } from "../../../src/cli/commands/diff/diff.ts";
import { planUserConfig, workingFolderRequest } from "../../../src/cli/commands/working_folder.ts";
import {
  activateMode,
  planInstall,
  planLicenseStatus,
} from "../../../src/cli/commands/activate.ts";
import { planKeys } from "../../../src/cli/commands/keys.ts";
import { gracePeriod } from "../../../src/license/grace_period.ts";
import { schemaUrl } from "../../../src/cli/kit/schema.ts";
import { compileBundle } from "../../../src/engine/compile_bundle.ts";
import { planRequest } from "../../../src/cli/commands/simulate/request.ts";
import {
  junitSuites,
  planSuiteRun,
  suiteExitCode,
} from "../../../src/cli/commands/simulate/suites.ts";
import { COVERAGE_SUITE } from "../../../src/cli/commands/simulate/_junit.ts";
import { exitCodeFor } from "../../../src/cli/kit/errors.ts";
import { FakeClock } from "../../_fake_clock.ts";

const OPTIONS: BuildOptions = {
  env: "prod",
  orgId: "acme",
  projectId: undefined,
  requestedVersion: undefined,
  unsigned: false,
  signed: false,
};
const SIGNED_BEFORE = { next: 8, signature: { algorithm: "HMAC_SHA256", keyId: "k" } };

Deno.test("build: the version after the bundle there, and no silent signature downgrade", () => {
  assert.equal(planBuildVersion(OPTIONS, true, SIGNED_BEFORE, "/b.json"), 8);
  assert.equal(planBuildVersion({ ...OPTIONS, requestedVersion: 3 }, true, SIGNED_BEFORE, "b"), 3);
  assert.throws(
    () => planBuildVersion(OPTIONS, false, SIGNED_BEFORE, "/b.json"),
    (e: unknown) => (e as { code?: string }).code === "SIGNATURE_DOWNGRADE",
  );
  assert.equal(planBuildVersion({ ...OPTIONS, unsigned: true }, false, SIGNED_BEFORE, "b"), 8);
  assert.match(scopeAdvice(OPTIONS)!, /^projectId is not set; /);
  assert.equal(scopeAdvice({ ...OPTIONS, projectId: "shop" }), null);
});

const BUNDLE: RuntimeBundleV1 = {
  schemaVersion: 1,
  env: "prod",
  policies: [{
    policyKey: "billing",
    activeVersion: 1,
    rules: [rule("always") as never, rule("shadowed", { priority: 1 }) as never],
  }],
};

Deno.test("validate: the report of a document, its lint findings and --strict", () => {
  const report = planValidate(BUNDLE, "bundle", validateBundle(BUNDLE), { strict: false });
  assert.deepEqual([report.valid, report.policyCount, report.ruleCount], [true, 1, 2]);
  assert.deepEqual(report.warnings.map((w) => w.code), ["RULE_DUPLICATE"], "lint findings warn");
  const strict = planValidate(BUNDLE, "bundle", validateBundle(BUNDLE), { strict: true });
  assert.equal(strict.valid, false, "--strict: a warning fails validation");
  const mismatch = { code: "CHECKSUM_MISMATCH", path: "/checksum", message: "m" };
  const tampered = planValidate(BUNDLE, "bundle", validateBundle(BUNDLE), {
    strict: false,
    integrity: [mismatch],
  });
  assert.deepEqual([tampered.valid, tampered.errors], [false, [mismatch]]);
  const draft = { schemaVersion: "1.0", policies: "none" };
  const invalid = planValidate(draft, "draft", validateDraft(draft), { strict: false });
  assert.deepEqual([invalid.valid, invalid.schemaVersion, invalid.policyCount], [false, "1.0", 0]);
});

Deno.test("inspect: the verdict of --signature and the document, from what the load found", () => {
  const key = { algorithm: "HMAC_SHA256" as const, publicKey: "secret", source: "env X" };
  const valid = planVerification(key, BUNDLE, null, null);
  assert.deepEqual([valid.status, valid.code, valid.freshness], ["valid", null, null]);
  const failure = new PolicyError("BUNDLE_UNSIGNED", "the bundle is not signed");
  const invalid = planVerification(key, BUNDLE, failure, null);
  assert.deepEqual([invalid.status, invalid.code], ["invalid", "BUNDLE_UNSIGNED"]);
  const document = inspectDocument("/b.json", BUNDLE, false, invalid);
  assert.deepEqual(
    [document.policyCount, document.ruleCount, document.policies, document.verification],
    [1, 2, null, invalid],
  );
});

const code = (c: string) => (error: unknown) => (error as { code?: string }).code === c;

function fmtInput(path: string, text: string | null, kind: FmtInput["kind"] = null): FmtInput {
  return { path, kind, name: path.slice(1), text, notRegular: text === null ? "a folder" : null };
}

Deno.test("fmt: each file's outcome from its text, and what the command writes and reports", () => {
  const compact = planFmtFile(fmtInput("/a.rule.json", '{"id":"a"}'), true);
  assert.deepEqual(compact.file, {
    path: "/a.rule.json",
    kind: "rule",
    status: "unchanged",
    reason: null,
    diff: "--- a/a.rule.json\n+++ b/a.rule.json\n@@ -1 +1,3 @@\n" +
      '-{"id":"a"}\n\\ No newline at end of file\n+{\n+  "id": "a"\n+}\n',
  });
  assert.equal(compact.text, '{\n  "id": "a"\n}\n');
  const formatted = planFmtFile(fmtInput("/b.rule.json", '{\n  "id": "b"\n}\n'), true);
  assert.deepEqual([formatted.file.status, formatted.file.diff, formatted.text], [
    "unchanged",
    null,
    null,
  ]);
  const folder = planFmtFile(fmtInput("/c.rule.json", null), false);
  assert.deepEqual([folder.file.status, folder.file.reason], [
    "skipped",
    "it is a folder; fmt rewrites regular files only (name the file itself)",
  ]);
  const bundle = planFmtFile(fmtInput("/b.json", JSON.stringify(BUNDLE)), false);
  assert.deepEqual([bundle.file.kind, bundle.file.status, bundle.text], [
    "bundle",
    "skipped",
    null,
  ]);
  // A draft without comments is written as the draft writer writes it ($schema first); one whose
  // value that would change is left as it is.
  const draft = planFmtFile(
    fmtInput("/d.json", '{"schemaVersion":"1.0","policies":[]}', "draft"),
    false,
  );
  assert.equal(
    draft.text,
    `{\n  "$schema": "${schemaUrl("draft")}",\n  "schemaVersion": "1.0",\n  "policies": []\n}\n`,
  );
  const overflow = '{"schemaVersion":"1.0","policies":[],"x":1e400}';
  const kept = planFmtFile(fmtInput("/d.json", overflow, "draft"), false);
  assert.deepEqual([kept.file.status, kept.text], ["skipped", null]);
  assert.match(kept.file.reason!, /^formatting would change what it means/);
  assert.throws(() => planFmtFile(fmtInput("/e.json", "{"), false), code("DOCUMENT_PARSE_ERROR"));

  const files = [compact, formatted, folder];
  const check = planFmt(files, { check: true, diff: false });
  assert.deepEqual(check.document.files.map((f) => f.status), [
    "unformatted",
    "unchanged",
    "skipped",
  ]);
  assert.deepEqual(check.document.summary, { files: 3, changed: 1, unchanged: 1, skipped: 1 });
  assert.deepEqual([check.document.passed, check.exitCode, check.writes], [false, 1, []]);
  assert.deepEqual(
    [
      planFmt(files, { check: false, diff: true }).exitCode,
      planFmt([], { check: true, diff: false }).exitCode,
    ],
    [0, 0],
    "--diff alone, and nothing to format, pass",
  );
  const write = planFmt(files, { check: false, diff: false });
  assert.deepEqual(write.document.files.map((f) => f.status), [
    "formatted",
    "unchanged",
    "skipped",
  ]);
  assert.deepEqual(write.writes, [{ path: "/a.rule.json", kind: "rule", text: compact.text }]);
  assert.equal(write.exitCode, 0);
});

const side = (type: "bundle" | "draft", bundle: RuntimeBundleV1): Side => ({
  file: `/${type}.json`,
  argument: `${type}.json`,
  type,
  bundle,
});

Deno.test("diff: the change by meaning, the decisions it changes, and --fail-on-change", () => {
  const denied = {
    ...BUNDLE,
    env: "dev" as const,
    policies: [{
      ...BUNDLE.policies[0]!,
      rules: BUNDLE.policies[0]!.rules.map((r) => ({ ...r, effect: { type: "deny" as const } })),
    }],
  };
  const target = { service: "billing", resource: "invoice", action: "create" };
  const replay = { kind: "requests" as const, path: "/r.jsonl", requests: [{ line: 3, target }] };
  const plan = planDiff(side("bundle", BUNDLE), side("bundle", denied), replay, true);
  assert.deepEqual(Object.keys(plan.document).slice(0, 2), ["old", "new"]);
  assert.equal(plan.document.changed, true);
  assert.deepEqual(plan.document.scope.map((c) => c.field), ["env"], "two bundles: scope too");
  const decisions = plan.document.decisions!;
  assert.deepEqual([decisions.source, decisions.changed], [
    { kind: "requests", path: "/r.jsonl" },
    1,
  ]);
  assert.deepEqual([decisions.changes[0]!.line, decisions.changes[0]!.scenario], [3, null]);
  assert.equal(plan.exitCode, 1);
  // A draft's env is not its own: scope is not compared.
  assert.deepEqual(
    planDiff(side("bundle", BUNDLE), side("draft", denied), null, true).document.scope,
    [],
  );
  // --fail-on-change fails on a changed decision when requests are replayed, else on any change.
  const unchanged = { ...replay, requests: [{ line: 1, target: { ...target, action: "x" } }] };
  assert.equal(
    planDiff(side("bundle", BUNDLE), side("bundle", denied), unchanged, true).exitCode,
    0,
  );
  assert.equal(planDiff(side("bundle", BUNDLE), side("bundle", denied), null, false).exitCode, 0);
  const same = planDiff(side("bundle", BUNDLE), side("bundle", BUNDLE), null, true);
  assert.deepEqual([same.document.changed, same.exitCode], [false, 0]);
  const expected = { decision: "allow" as const };
  const scenarios = [{ name: "pays", target, context: {}, expected }];
  const suite = { kind: "suite" as const, path: "/s.json", scenarios };
  const bySuite = planDiff(side("bundle", BUNDLE), side("bundle", denied), suite, false);
  assert.deepEqual(
    [
      bySuite.document.decisions!.changes[0]!.line,
      bySuite.document.decisions!.changes[0]!.scenario,
    ],
    [null, "pays"],
  );
});

Deno.test("diff: a draft is compared as the bundle it builds, once it validates", () => {
  const draft = { schemaVersion: "1.0", policies: [] };
  const valid = comparableDraft(draft, "/d.json", "d.json");
  assert.deepEqual([valid.type, valid.bundle.env, valid.bundle.policies], ["draft", "prod", []]);
  assert.throws(
    () => comparableDraft({ schemaVersion: "1.0", policies: "none" }, "/d.json", "d.json"),
    (e: unknown) =>
      code("DRAFT_INVALID")(e) && /^\/d\.json is not a valid draft: /.test((e as Error).message) &&
      (e as { hint?: string }).hint === "run 'policy validate d.json' for the list",
  );
});

Deno.test("working-folder: its subcommand checked, and what set and reset make of the user config", () => {
  assert.deepEqual(workingFolderRequest([]), { action: "show" });
  assert.deepEqual(workingFolderRequest(["init"]), { action: "init" });
  assert.deepEqual(workingFolderRequest(["set", "../shop"]), { action: "set", path: "../shop" });
  assert.throws(
    () => workingFolderRequest(["sett"]),
    (e: unknown) => code("USAGE_ERROR")(e) && /did you mean/.test((e as Error).message),
  );
  assert.throws(() => workingFolderRequest(["reset", "x"]), code("USAGE_ERROR"));
  assert.throws(() => workingFolderRequest(["set"]), code("USAGE_ERROR"));

  const config = { schemaVersion: 1, workingFolder: "/old", other: true };
  assert.deepEqual(planUserConfig(config, null, "/new"), {
    schemaVersion: 1,
    workingFolder: "/new",
    other: true,
  });
  assert.deepEqual(planUserConfig(config, null, null), { schemaVersion: 1, other: true });
  assert.equal(planUserConfig({ schemaVersion: 1 }, null, null), null, "nothing to reset");
  assert.deepEqual(
    planUserConfig({}, "/home/config.json.damaged", null),
    { schemaVersion: 1 },
    "a damaged config moved aside is written anew",
  );
});

const LICENSE = {
  licenseId: "lic-1",
  licensee: "Acme",
  issuedAt: "2026-01-01T00:00:00Z",
  expiresAt: "2027-01-01T00:00:00Z",
  features: ["build", "sign"],
  keyId: "k1",
  daysLeft: 30,
};

Deno.test("activate: one mode, the licence stored and reported, and the status's exit code", () => {
  assert.equal(activateMode(["status"]), "status");
  assert.throws(() => activateMode([]), code("USAGE_ERROR"));
  assert.throws(
    () => activateMode(["status", "key"]),
    (e: unknown) => (e as Error).message === "--key and --status cannot be combined",
  );

  const verified = { document: { licenseId: "lic-1" }, license: LICENSE };
  const options = { action: "install" as const, target: "/home/license.json", replaced: true };
  const plan = planInstall(verified, { ...options, overriding: [] });
  assert.equal(plan.text, '{\n  "licenseId": "lic-1"\n}\n');
  assert.deepEqual(
    [plan.document.status, plan.document.source, plan.document.replaced, plan.warning],
    ["licensed", "stored", true, null],
  );
  assert.equal(
    planInstall(verified, { ...options, overriding: ["POLICY_LICENSE_FILE"] }).warning,
    "POLICY_LICENSE_FILE is set and takes precedence over the licence stored in /home/license.json",
  );

  const licensed = planLicenseStatus({
    status: "licensed",
    found: { source: "POLICY_LICENSE", path: null, license: LICENSE },
  });
  assert.deepEqual([licensed.document.license!.licenseId, licensed.exitCode], ["lic-1", 0]);
  const startedAt = new Date("2026-01-01T00:00:00Z");
  const over = gracePeriod(startedAt, new Date("2026-03-01T00:00:00Z"));
  const refused = planLicenseStatus({
    status: "unlicensed",
    grace: over,
    lastWarnedAt: null,
    statePath: "/home/grace.json",
  });
  assert.deepEqual([refused.document.grace!.daysLeft, refused.exitCode], [0, 3]);
  const fresh = planLicenseStatus({
    status: "grace",
    grace: null,
    lastWarnedAt: null,
    statePath: null,
  });
  assert.deepEqual([fresh.document.grace, fresh.exitCode], [
    { days: 30, startedAt: null, endsAt: null, daysLeft: 30 },
    0,
  ]);
});

Deno.test("keys generate: a secret is printed, never written; a pair is written, 0600 for the private key", () => {
  const hmac = planKeys({ algorithm: "HMAC_SHA256", secret: "ab".repeat(32) });
  assert.deepEqual([hmac.document.secret, hmac.writes], ["ab".repeat(32), []]);
  const pair = { privateKey: "PRIVATE PEM", publicKey: "PUBLIC PEM" };
  const ecdsa = planKeys({
    algorithm: "ECDSA_SHA_256",
    privateKeyPath: "/k/private-key.pem",
    publicKeyPath: "/k/public-key.pem",
    pair,
  });
  assert.deepEqual(ecdsa.writes, [
    {
      path: "/k/private-key.pem",
      text: "PRIVATE PEM",
      options: { mode: 0o600, createParents: true },
    },
    { path: "/k/public-key.pem", text: "PUBLIC PEM", options: {} },
  ]);
  assert.ok(!JSON.stringify(ecdsa.document).includes("PRIVATE PEM"), "no key in the document");
  assert.deepEqual(ecdsa.document, {
    algorithm: "ECDSA_SHA_256",
    secret: null,
    privateKeyPath: "/k/private-key.pem",
    publicKeyPath: "/k/public-key.pem",
  });
});

Deno.test("simulate: a request's decision and trace, and suites' summary, coverage, exit code and JUnit", () => {
  const compiled = compileBundle(BUNDLE);
  const target = { service: "billing", resource: "invoice", action: "create" };
  const one = planRequest(compiled, target, {}, false);
  assert.deepEqual([one.decision.decision, one.decision.ruleId, one.trace], [
    "allow",
    "always",
    null,
  ]);
  assert.equal(planRequest(compiled, target, {}, true).trace?.rulesSeen, 2);
  const clock = new FakeClock();
  const loaded = [{
    path: "/s.suite.json",
    name: "s",
    skipped: 1,
    scenarios: [
      { name: "allowed", target, context: {}, expected: { decision: "allow" as const } },
      { name: "wrong", target, context: {}, expected: { decision: "deny" as const } },
    ],
  }];
  // Both rules have no condition: a scenario on the target exercises both.
  const run = planSuiteRun(compiled, loaded, 100, clock, clock.now());
  assert.deepEqual(run.summary, { scenarios: 2, passed: 1, failed: 1, skipped: 1, durationMs: 0 });
  assert.deepEqual(run.suites.map((x) => [x.passed, x.failed, x.skipped]), [[1, 1, 1]]);
  assert.deepEqual(run.coverage, {
    activeRules: 2,
    exercised: 2,
    unexercised: [],
    percent: 100,
    threshold: 100,
    belowThreshold: false,
  });
  assert.equal(suiteExitCode(run), exitCodeFor("SIMULATION_FAILED"));
  // Passing, on another target: nothing exercised, below the threshold, its own exit code.
  const elsewhere = [{
    ...loaded[0]!,
    scenarios: [{
      name: "other",
      target: { service: "search", resource: "query", action: "run" },
      context: {},
      expected: { decision: "deny" as const },
    }],
  }];
  const short = planSuiteRun(compiled, elsewhere, 50, clock, clock.now());
  assert.deepEqual([short.summary.failed, short.coverage.percent], [0, 0]);
  assert.equal(short.coverage.belowThreshold, true);
  assert.equal(suiteExitCode(short), exitCodeFor("COVERAGE_BELOW_THRESHOLD"));
  assert.equal(suiteExitCode(planSuiteRun(compiled, elsewhere, null, clock, clock.now())), 0);
  // JUnit: a testsuite per suite file, then the coverage's, failing below the threshold.
  const junit = junitSuites(short, elsewhere, new Date(0));
  assert.deepEqual(junit.map((x) => x.name), ["s", COVERAGE_SUITE]);
  assert.equal(junit[1]!.cases[0]!.failure?.type, "COVERAGE_BELOW_THRESHOLD");
  assert.equal(junitSuites(run, loaded, new Date(0))[1]!.cases[0]!.failure, null);
});
