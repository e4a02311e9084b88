// The plan steps of build, validate and inspect, called directly: what each decides from its
// inputs, with no file, lock, key or output.
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
