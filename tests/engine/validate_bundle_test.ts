import assert from "node:assert/strict";
import { compileBundle, isPolicyError, validateBundle } from "../../mod.ts";

interface ValidationFixture {
  cases: {
    name: string;
    document: unknown;
    errors: { code: string; path: string }[];
    warnings: { code: string; path: string }[];
  }[];
}

const fixture: ValidationFixture = JSON.parse(
  Deno.readTextFileSync(new URL("../testdata/engine/validation.json", import.meta.url)),
);

for (const c of fixture.cases) {
  Deno.test(`validateBundle() ${c.name}`, () => {
    const result = validateBundle(c.document);
    const pick = (issues: { code: string; path: string }[]) =>
      issues.map(({ code, path }) => ({ code, path }));
    assert.deepEqual(pick(result.errors), c.errors);
    assert.deepEqual(pick(result.warnings), c.warnings);
    assert.equal(result.valid, c.errors.length === 0);
    for (const issue of [...result.errors, ...result.warnings]) {
      assert.ok(issue.message.length > 10, `${issue.code} needs a message that helps`);
    }
    if (c.errors.length > 0) {
      // compileBundle refuses what validation refuses, carrying the same issues.
      assert.throws(
        () => compileBundle(c.document),
        (e) => isPolicyError(e, "BUNDLE_INVALID") && e.issues.length === c.errors.length,
      );
    } else {
      compileBundle(c.document);
    }
  });
}

Deno.test("validateBundle() covers every validation code of SPEC.md", () => {
  const spec = [
    "DOCUMENT_NOT_OBJECT",
    "INVALID_SCHEMA_VERSION",
    "INVALID_ENV",
    "MISSING_POLICY_KEY",
    "DUPLICATE_POLICY_KEY",
    "INVALID_ACTIVE_VERSION",
    "RULES_NOT_ARRAY",
    "MISSING_RULE_ID",
    "DUPLICATE_RULE_ID",
    "INVALID_RULE_STATUS",
    "INVALID_RULE_PRIORITY",
    "INVALID_RULE_TARGET",
    "INVALID_RULE_EFFECT",
  ];
  const covered = new Set(fixture.cases.flatMap((c) => c.errors.map((e) => e.code)));
  for (const code of spec) assert.ok(covered.has(code), `no fixture case for ${code}`);
});

Deno.test("validateBundle() never throws on hostile values", () => {
  const hostile: unknown[] = [
    undefined,
    0,
    NaN,
    Symbol("x"),
    () => 1,
    JSON.parse('{"__proto__": {"schemaVersion": 1}, "env": "prod", "policies": []}'),
    { schemaVersion: 1, env: "prod", policies: [null, [], { rules: [null, 1, []] }] },
    { schemaVersion: 1, env: "prod", policies: [{ policyKey: "p", activeVersion: Infinity }] },
    Object.create(null),
  ];
  for (const doc of hostile) {
    const result = validateBundle(doc);
    assert.equal(result.valid, false);
  }
});

Deno.test("validateBundle() reports JSON nested far too deep in a rule, without overflowing", () => {
  let deep: unknown = "leaf";
  for (let i = 0; i < 100_000; i++) deep = [deep];
  const doc = {
    schemaVersion: 1,
    env: "prod",
    policies: [{
      policyKey: "p",
      activeVersion: 1,
      rules: [{
        id: "r",
        status: "active",
        priority: 1,
        target: { service: "s", resource: "r", action: "a" },
        effect: { type: "allow" },
        extra: deep,
      }],
    }],
  };
  const result = validateBundle(doc);
  assert.deepEqual(result.errors.map((e) => e.code), ["DOCUMENT_TOO_DEEP"]);
});
