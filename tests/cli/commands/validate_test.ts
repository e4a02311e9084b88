import assert from "node:assert/strict";
import * as path from "node:path";
import { assertError, assertShape, scratch } from "../_helpers.ts";

const SHAPE = {
  formatVersion: "number",
  path: "string",
  source: "string",
  type: "string",
  valid: "boolean",
  strict: "boolean",
  schemaVersion: "string|null",
  policyCount: "number",
  ruleCount: "number",
  errors: "array",
  warnings: "array",
  omitted: "object",
};

Deno.test("validate detects a draft and prints type, policy count, rule count and schema", async () => {
  await using s = await scratch();
  await s.fixture("draft.json", "policy-drafts.json");
  const text = await s.run(["validate"]);
  assert.equal(text.code, 0, text.stderr);
  assert.match(
    text.stdout,
    /^the draft \S+policy-drafts\.json \(draft\.path\): schema 1\.0, 2 policies, 5 rules$/m,
  );
  const r = await s.json(["validate"]);
  assertShape(r.doc, SHAPE);
  assert.deepEqual(
    [r.doc.type, r.doc.schemaVersion, r.doc.policyCount, r.doc.ruleCount, r.doc.valid],
    ["draft", "1.0", 2, 5, true],
  );
  assert.equal(r.doc.path, path.join(s.wf, "policy-drafts.json"));
});

Deno.test("validate checks the draft by default, not the bundle, so a broken draft fails CI", async () => {
  await using s = await scratch();
  await s.fixture("draft.json", "policy-drafts.json");
  assert.equal((await s.run(["build"])).code, 0);
  // The draft gets a duplicate rule id after the (valid) bundle was built.
  const draft = await s.readJson("policy-drafts.json");
  const rules = (draft.policies as { rules: unknown[] }[])[0]!.rules;
  rules.push(rules[0]);
  await s.write("policy-drafts.json", draft);
  const r = await s.json(["validate", "--strict"]);
  assert.equal(r.code, 1, "the draft is what validate checks");
  assert.deepEqual([r.doc.type, r.doc.source, r.doc.path], [
    "draft",
    "draft.path",
    path.join(s.wf, "policy-drafts.json"),
  ]);
  assert.deepEqual((r.doc.errors as { code: string }[]).map((e) => e.code), [
    "DUPLICATE_RULE_ID",
  ]);
  const text = await s.run(["validate", "--strict", "--quiet"]);
  assert.match(text.stdout, /^the draft \S+policy-drafts\.json \(draft\.path\)/, "and says so");
  const bundle = await s.json(["validate", "policy-bundle.json"]);
  assert.deepEqual([bundle.code, bundle.doc.type, bundle.doc.source], [0, "bundle", "argument"]);
  // A folder with a bundle and no draft: the bundle, and the note says why.
  await Deno.remove(path.join(s.wf, "policy-drafts.json"));
  const only = await s.json(["validate", "--verbose"]);
  assert.deepEqual([only.code, only.doc.type, only.doc.source], [0, "bundle", "bundle.path"]);
  assert.match(only.stderr, /no draft at \S+: validating the bundle/);
});

Deno.test("validate tells a draft by its fields, not by a number in schemaVersion; --type decides", async () => {
  await using s = await scratch();
  // `"schemaVersion": 1.0` written as a number: still a draft (no env, friendlyName present).
  await s.write(
    "numeric.json",
    '{"schemaVersion": 1.0, "generatedAt": "2026-01-01T00:00:00Z", "policies": [{"policyKey": "p", "activeVersion": 1, "friendlyName": "p", "rules": []}]}',
  );
  const r = await s.json(["validate", "numeric.json", "--verbose"]);
  assert.equal(r.doc.type, "draft");
  assert.deepEqual((r.doc.errors as { code: string; path: string }[]).map((e) => e.code), [
    "INVALID_SCHEMA_VERSION",
  ]);
  assert.match(r.stderr, /type: draft \(it has no env or other field only bundles have\)/);
  const forced = await s.json(["validate", "numeric.json", "--type", "bundle"]);
  assert.equal(forced.doc.type, "bundle");
  assert.ok((forced.doc.errors as { code: string }[]).some((e) => e.code === "INVALID_ENV"));
  assertError(await s.run(["validate", "numeric.json", "--type", "bundel"]), 2, "USAGE_ERROR");
});

Deno.test("validate reads drafts with comments; a bundle with comments is not JSON to a client", async () => {
  await using s = await scratch();
  await s.write(
    "commented.json",
    '// the draft\n{"schemaVersion": "1.0", /* none yet */ "policies": [],}\n',
  );
  const draft = await s.json(["validate", "commented.json"]);
  assert.deepEqual([draft.code, draft.doc.type, draft.doc.valid], [0, "draft", true]);
  await s.write("b.json", '{"schemaVersion": 1, "env": "prod", // prod\n "policies": []}');
  const bundle = await s.run(["validate", "b.json"]);
  assertError(bundle, 2, "BUNDLE_PARSE_ERROR");
  assert.match(bundle.stderr, /line 1, column \d+\); bundles are strict JSON/);
  await s.write("bad.json", '{"schemaVersion": "1.0", "policies": [}');
  const broken = await s.run(["validate", "bad.json"]);
  assertError(broken, 2, "DOCUMENT_PARSE_ERROR");
  assert.match(broken.stderr, /unexpected character: expected a value at line 1, column 39/);
  assert.doesNotMatch(broken.stderr, /ValueExpected/);
});

Deno.test("validate reports every error with its code and JSON pointer and exits 1", async () => {
  await using s = await scratch();
  await s.write("bad.json", {
    schemaVersion: 1,
    env: "qa",
    policies: [{
      policyKey: "p",
      activeVersion: "1",
      rules: [{ id: "r", status: "on", priority: 1 }],
    }],
  });
  const r = await s.json(["validate", "bad.json"]);
  assert.equal(r.code, 1);
  assert.equal(r.doc.valid, false);
  const codes = (r.doc.errors as { code: string; path: string }[]).map((e) =>
    `${e.code} ${e.path}`
  );
  assert.deepEqual(codes, [
    "INVALID_ENV /env",
    "INVALID_ACTIVE_VERSION /policies/0/activeVersion",
    "INVALID_RULE_STATUS /policies/0/rules/0/status",
    "INVALID_RULE_TARGET /policies/0/rules/0/target",
    "INVALID_RULE_EFFECT /policies/0/rules/0/effect",
  ]);
  for (const e of r.doc.errors as unknown[]) {
    assertShape(e, { code: "string", message: "string", path: "string" }, "issue");
  }
  const text = await s.run(["validate", "bad.json"]);
  assert.match(text.stdout, /error INVALID_ENV at \/env: /);
  assert.match(text.stdout, /invalid \(5 errors, 0 warnings\)/);
});

Deno.test("validate checks a draft's policies with the same rules as a bundle", async () => {
  await using s = await scratch();
  await s.write("d.json", {
    schemaVersion: "1.0",
    generatedAt: "2026-01-01T00:00:00Z",
    policies: [{
      policyKey: "p",
      activeVersion: 1,
      rules: [{
        id: "r",
        status: "active",
        priority: 1,
        target: { service: "a", resource: "b", action: "c" },
        effect: { type: "nope" },
      }],
    }, { policyKey: "p", activeVersion: 1, rules: [] }],
  });
  const r = await s.json(["validate", "d.json"]);
  assert.equal(r.code, 1);
  assert.deepEqual((r.doc.errors as { code: string }[]).map((e) => e.code), [
    "INVALID_RULE_EFFECT",
    "DUPLICATE_POLICY_KEY",
  ]);
  await s.write("v.json", { schemaVersion: "2.0", policies: [] });
  const version = await s.json(["validate", "v.json"]);
  assert.deepEqual([version.doc.type, (version.doc.errors as { code: string }[])[0]!.code], [
    "draft",
    "INVALID_SCHEMA_VERSION",
  ]);
  await s.write("n.json", "[1, 2]");
  const notObject = await s.json(["validate", "n.json"]);
  assert.equal((notObject.doc.errors as { code: string }[])[0]!.code, "DOCUMENT_NOT_OBJECT");
});

Deno.test("validate --strict turns warnings into failures", async () => {
  await using s = await scratch();
  await s.write("w.json", {
    schemaVersion: 1,
    env: "prod",
    policies: [{
      policyKey: "p",
      activeVersion: 1,
      rules: [{
        id: "r",
        status: "active",
        priority: 1,
        target: { service: "a", resource: "*", action: "c" },
        effect: { type: "allow" },
      }],
    }],
  });
  const lax = await s.json(["validate", "w.json"]);
  assert.equal(lax.code, 0);
  assert.equal((lax.doc.warnings as { code: string }[])[0]!.code, "TARGET_WILDCARD_LITERAL");
  const strict = await s.json(["validate", "w.json", "--strict"]);
  assert.equal(strict.code, 1);
  assert.deepEqual([strict.doc.valid, strict.doc.strict], [false, true]);
});

Deno.test("validate reports a bundle whose checksum does not match its contents", async () => {
  await using s = await scratch();
  await s.fixture("draft.json", "policy-drafts.json");
  await s.run(["build"]);
  const bundle = await s.readJson("policy-bundle.json");
  (bundle.policies as { activeVersion: number }[])[0]!.activeVersion = 99;
  await s.write("policy-bundle.json", bundle);
  const r = await s.json(["validate", "policy-bundle.json"]);
  assert.equal(r.code, 1);
  assert.equal((r.doc.errors as { code: string }[])[0]!.code, "CHECKSUM_MISMATCH");
});

Deno.test("validate exits 2 on input it cannot read or parse", async () => {
  await using s = await scratch();
  assertError(await s.run(["validate"]), 2, "DOCUMENT_READ_ERROR");
  assertError(await s.run(["validate", "missing.json"]), 2, "DOCUMENT_READ_ERROR");
  await s.write("x.json", "not json");
  assertError(await s.run(["validate", "x.json"]), 2, "DOCUMENT_PARSE_ERROR");
  await s.write("policy-bundle.json", "{");
  assertError(await s.run(["validate"]), 2, "BUNDLE_PARSE_ERROR");
});

Deno.test("validate --quiet prints nothing for a valid document but still prints JSON", async () => {
  await using s = await scratch();
  await s.fixture("draft.json", "policy-drafts.json");
  // Without the defaults that never decide (a warning, which --quiet still prints).
  const draft = await s.readJson("policy-drafts.json");
  delete (draft.policies as Record<string, unknown>[])[1]!.defaults;
  await s.write("policy-drafts.json", draft);
  const quiet = await s.run(["validate", "--quiet"]);
  assert.deepEqual([quiet.code, quiet.stdout, quiet.stderr], [0, "", ""]);
  const json = await s.json(["validate", "--quiet"]);
  assert.equal(json.doc.valid, true);
});

Deno.test("validate reports dead and shadowed rules as warnings with JSON pointers; --strict fails", async () => {
  await using s = await scratch();
  const target = { service: "billing", resource: "invoice", action: "create" };
  const bundle = {
    schemaVersion: 1,
    env: "prod",
    policies: [{
      policyKey: "billing",
      activeVersion: 1,
      rules: [
        {
          id: "incident",
          status: "active",
          priority: 1,
          target,
          effect: { type: "kill_switch", killSwitch: { service: "billing" } },
        },
        { id: "pro", status: "active", priority: 9, target, effect: { type: "allow" } },
        {
          id: "never",
          status: "active",
          priority: 9,
          target,
          effect: { type: "kill_switch", killSwitch: { service: "billing" } },
          when: {
            op: "and",
            conditions: [{ op: "eq", path: "plan", value: "a" }, {
              op: "eq",
              path: "plan",
              value: "b",
            }],
          },
        },
      ],
    }],
  };
  await s.write("bundle.json", bundle);
  const r = await s.json(["validate", "bundle.json"]);
  assert.equal(r.code, 0);
  assert.equal(r.doc.valid, true);
  assert.deepEqual(
    (r.doc.warnings as { code: string; path: string }[]).map((w) => [w.code, w.path]),
    [
      ["RULE_SHADOWED", "/policies/0/rules/1"],
      ["CONDITION_NEVER_TRUE", "/policies/0/rules/2/when"],
    ],
  );
  const text = await s.run(["validate", "bundle.json"]);
  assert.match(
    text.stdout,
    /warning RULE_SHADOWED at \/policies\/0\/rules\/1: policy "billing", rule "pro" is never selected/,
  );
  const strict = await s.json(["validate", "bundle.json", "--strict"]);
  assert.equal(strict.code, 1);
  assert.equal(strict.doc.valid, false);
  // The same rules in a draft: the same pointers.
  await s.write("draft.json", { schemaVersion: "1.0", policies: bundle.policies });
  const draft = await s.json(["validate", "draft.json"]);
  assert.deepEqual((draft.doc.warnings as { path: string }[]).map((w) => w.path), [
    "/policies/0/rules/1",
    "/policies/0/rules/2/when",
  ]);
  // An invalid document is not analysed: only its errors are reported.
  await s.write("invalid.json", { ...bundle, env: "qa" });
  const invalid = await s.json(["validate", "invalid.json"]);
  assert.deepEqual([invalid.code, invalid.doc.warnings], [1, []]);
});

Deno.test("validate: the analysis's findings share the cap on listed warnings", async () => {
  await using s = await scratch();
  const target = { service: "billing", resource: "invoice", action: "create" };
  const rules = Array.from({ length: 1_200 }, (_, i) => ({
    id: `r${i}`,
    status: "active",
    priority: 1,
    target,
    effect: { type: i === 0 ? "deny" : "allow" },
  }));
  await s.write("bundle.json", {
    schemaVersion: 1,
    env: "prod",
    policies: [{ policyKey: "p", activeVersion: 1, rules }],
  });
  const r = await s.json(["validate", "bundle.json"]);
  assert.equal((r.doc.warnings as unknown[]).length, 1_000);
  assert.deepEqual(r.doc.omitted, { errors: 0, warnings: 199 });
  assert.match(
    (await s.run(["validate", "bundle.json"])).stdout,
    /valid \(0 errors, 1199 warnings\)/,
  );
});

Deno.test("validate: a draft's own warnings share the cap too (600,000 unknown fields were a stack overflow)", async () => {
  await using s = await scratch();
  const fields = Array.from({ length: 600_000 }, (_, i) => `"k${i}":0`).join(",");
  await s.write(
    "policy-drafts.json",
    `{"schemaVersion":"1.0","policies":[{"policyKey":"p","activeVersion":1,"rules":[],${fields}}]}`,
  );
  const r = await s.json(["validate"]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal((r.doc.warnings as unknown[]).length, 1_000);
  assert.deepEqual(r.doc.omitted, { errors: 0, warnings: 599_000 });
  assert.match(
    (await s.run(["validate"])).stdout,
    /… and 0 more errors and 599000 more warnings, not listed \(at most 1000 of each are\)/,
  );
});
