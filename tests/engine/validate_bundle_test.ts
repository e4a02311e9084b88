import assert from "node:assert/strict";
import {
  compileBundle,
  isPolicyError,
  loadBundle,
  type PolicyError,
  validateBundle,
} from "../../mod.ts";
import { DEFAULT_MAX_ISSUES } from "../../src/engine/validate_bundle.ts";
import { LOAD_MAX_ISSUES } from "../../src/engine/validate_bundle.ts";

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

Deno.test("validateBundle() covers every validation code of docs/errors.md's specification codes", () => {
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

Deno.test("validateBundle() lists at most maxIssues errors and warnings and counts the rest in omitted", () => {
  const rules = Array.from({ length: 10_000 }, () => ({}));
  const flood = {
    schemaVersion: 1,
    env: "prod",
    policies: [{ policyKey: "p", activeVersion: 1, rules }],
  };
  const result = validateBundle(flood);
  assert.equal(result.valid, false);
  assert.equal(result.errors.length, DEFAULT_MAX_ISSUES);
  // Five errors per empty rule: id, status, priority, target, effect.
  assert.deepEqual(result.omitted, { errors: 50_000 - DEFAULT_MAX_ISSUES, warnings: 0 });
  const small = validateBundle(flood, { maxIssues: 3 });
  assert.deepEqual(small.errors.map((e) => e.path), [
    "/policies/0/rules/0/id",
    "/policies/0/rules/0/status",
    "/policies/0/rules/0/priority",
  ]);
  assert.deepEqual(small.omitted, { errors: 49_997, warnings: 0 });
  const wildcards = Array.from({ length: 5 }, (_, i) => ({
    id: `r${i}`,
    status: "active",
    priority: 1,
    target: { service: "*", resource: "r", action: "a" },
    effect: { type: "allow" },
  }));
  const warned = validateBundle(
    {
      schemaVersion: 1,
      env: "prod",
      policies: [{ policyKey: "p", activeVersion: 1, rules: wildcards }],
    },
    { maxIssues: 2 },
  );
  assert.equal(warned.valid, true);
  assert.equal(warned.warnings.length, 2);
  assert.deepEqual(warned.omitted, { errors: 0, warnings: 3 });
  assert.equal(validateBundle({ schemaVersion: 1, env: "prod", policies: [] }).omitted, undefined);
});

Deno.test("BUNDLE_INVALID from the load path carries at most LOAD_MAX_ISSUES issues and says how many more", async () => {
  const rules = Array.from({ length: 1000 }, () => ({}));
  const text = JSON.stringify({
    schemaVersion: 1,
    env: "prod",
    policies: [{ policyKey: "p", activeVersion: 1, rules }],
  });
  const error = await loadBundle(text, { allowUnsigned: true }).then(
    () => null,
    (e: PolicyError) => e,
  );
  assert.equal(error?.code, "BUNDLE_INVALID");
  assert.equal(error.issues.length, LOAD_MAX_ISSUES);
  assert.match(error.message, / and 4999 more issue\(s\)$/);
});

Deno.test("validation messages quote names and values cut short, JSON-escaped", () => {
  const long = "k".repeat(100_000) + "\nforged log line";
  const result = validateBundle({
    schemaVersion: 1,
    env: "prod",
    policies: [
      {
        policyKey: long,
        activeVersion: 1,
        rules: [{
          id: long,
          status: "on",
          priority: 1,
          target: { service: long + "*", resource: "r", action: "a" },
          effect: { type: "allow" },
          when: { op: long },
        }],
      },
      { policyKey: long, activeVersion: 1, rules: [] },
    ],
  });
  const issues = [...result.errors, ...result.warnings];
  assert.deepEqual(issues.map((i) => i.code).sort(), [
    "CONDITION_UNKNOWN_OPERATOR",
    "DUPLICATE_POLICY_KEY",
    "INVALID_RULE_STATUS",
    "TARGET_WILDCARD_LITERAL",
  ]);
  for (const issue of issues) {
    assert.ok(issue.message.length < 400, `${issue.code}: ${issue.message.length} characters`);
    assert.ok(!issue.message.includes("\n"), issue.code);
  }
});

Deno.test("a non-finite priority is reported once, and non-finite numbers elsewhere in the rule still are", () => {
  const rule = JSON.parse(
    '{"id":"r","status":"active","priority":1e400,"target":{"service":"s","resource":"r","action":"a"},"effect":{"type":"allow"},"x":[1,-1e400]}',
  );
  const result = validateBundle({
    schemaVersion: 1,
    env: "prod",
    policies: [{ policyKey: "p", activeVersion: 1, rules: [rule] }],
  });
  assert.deepEqual(result.errors.map((e) => [e.code, e.path]), [
    ["INVALID_RULE_PRIORITY", "/policies/0/rules/0/priority"],
    ["NUMBER_NOT_FINITE", "/policies/0/rules/0/x/1"],
  ]);
});

Deno.test("validateBundle() names the known field closest to an unknown one (UNKNOWN_FIELD)", () => {
  const rule = {
    id: "r",
    status: "active",
    priority: 1,
    target: { service: "s", resource: "r", action: "a" },
    effect: { type: "allow" },
    when: { op: "eq", path: "plan", value: "pro" },
    thenEfect: { type: "deny" },
  };
  const result = validateBundle({
    schemaVersion: 1,
    env: "prod",
    policies: [{ policyKey: "p", activeVersion: 1, rules: [rule] }],
  });
  assert.equal(result.valid, true, "an unknown field is a warning: newer producers may add fields");
  assert.deepEqual(result.warnings, [{
    code: "UNKNOWN_FIELD",
    path: "/policies/0/rules/0/thenEfect",
    message:
      'policy "p", rule "r": unknown field "thenEfect" (did you mean "thenEffect"?), which the runtime ignores; correct or remove it',
  }]);
});

Deno.test("validateBundle() caps UNKNOWN_FIELD warnings like any other issue, long names included", () => {
  const bundle: Record<string, unknown> = { schemaVersion: 1, env: "prod", policies: [] };
  for (let i = 0; i < 5_000; i++) bundle[`x${i}`.padEnd(2_000, "y")] = i;
  const result = validateBundle(bundle, { maxIssues: 10 });
  assert.equal(result.valid, true);
  assert.equal(result.warnings.length, 10);
  assert.deepEqual(result.omitted, { errors: 0, warnings: 4_990 });
  assert.ok(result.warnings.every((w) => w.message.length < 200), "names are quoted cut short");
});

Deno.test("an unknown condition operator's warning names the operator it most likely means", () => {
  const withOp = (op: unknown) =>
    validateBundle({
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
          when: { op, path: "plan", value: 1 },
        }],
      }],
    }).warnings.find((w) => w.code === "CONDITION_UNKNOWN_OPERATOR")?.message;
  const cases: [string, string][] = [
    ["equals", "eq"],
    ["EQUALS", "eq"],
    ["==", "eq"],
    ["!=", "neq"],
    ["not_equals", "neq"],
    ["greater-than", "gt"],
    [">=", "gte"],
    ["lessThan", "lt"],
    ["one_of", "in"],
    ["exist", "exists"],
    ["gtee", "gte"],
    ["EQ", "eq"],
  ];
  for (const [op, meant] of cases) {
    assert.match(withOp(op) ?? "", new RegExp(`; did you mean "${meant}"\\?$`), op);
  }
  for (const op of ["regexMatch", "x".repeat(10_000), "geoWithin"]) {
    const message = withOp(op);
    assert.ok(message !== undefined && !message.includes("did you mean"), op.slice(0, 20));
    assert.ok(message.length < 400);
  }
});
