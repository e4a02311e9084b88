import assert from "node:assert/strict";
import * as path from "node:path";
import { assertError, assertShape, NOW, type Scratch, scratch } from "../_helpers.ts";
import { schemaUrl } from "../../../src/cli/kit/schema.ts";

export const ANALYZE_SHAPE = {
  formatVersion: "number",
  source: "string",
  check: "boolean",
  passed: "boolean",
  filesScanned: "number",
  comparedWith: "object|null",
  draftPath: "string|null",
  added: "array",
  policies: "array",
  summary: "object",
  warnings: "array",
};
const ENTRY_SHAPE = {
  policyKey: "string",
  target: "object",
  status: "string",
  matchedPolicyKeys: "array",
  evaluationPoints: "array",
};
const POINT_SHAPE = { file: "string", line: "number", column: "number" };
const SUMMARY_SHAPE = {
  targets: "number",
  evaluationPoints: "number",
  present: "number",
  missing: "number",
};
const WARNING_SHAPE = {
  code: "string",
  message: "string",
  file: "string|null",
  line: "number|null",
  column: "number|null",
};

const ORDERS = `import { client } from "./client.ts";

export async function createOrder(tenant: string) {
  return client.evaluate({
    target: { service: "orders", resource: "order", action: "create" },
    context: { tenant },
  });
}

const LIST = { service: "orders", resource: "order", action: "list" } as const;

export function listOrders() {
  return client.evaluate({ target: LIST, context: {} });
}
`;
const REFUNDS = `import { client } from "../client.ts";

export function refund(action: string) {
  // Only known at run time: a warning, not an evaluation point.
  return client.evaluate({ target: { service: "orders", resource: "refund", action } });
}

export const again = () =>
  client.evaluate({ target: { service: "orders", resource: "order", action: "create" } });
`;

/** A small service: 3 evaluation points (2 targets) and 1 unresolved call under src/. */
async function service(s: Scratch): Promise<void> {
  await s.write("src/orders.ts", ORDERS);
  await s.write("src/routes/refunds.ts", REFUNDS);
  await s.write("src/client.ts", "export const client = { evaluate: (r: unknown) => r };\n");
  await s.write("node_modules/dep/index.js", ORDERS.replaceAll("orders", "vendored"));
}

const CREATE = { service: "orders", resource: "order", action: "create" };
const LIST = { service: "orders", resource: "order", action: "list" };

Deno.test("analyze writes the first draft: one policy per target, activeVersion 1, no rules", async () => {
  await using s = await scratch();
  await service(s);
  const r = await s.json(["analyze"]);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(await s.readJson("policy-drafts.json"), {
    $schema: schemaUrl("draft"),
    schemaVersion: "1.0",
    generatedAt: NOW.toISOString(),
    policies: [
      {
        policyKey: "orders.order.create",
        activeVersion: 1,
        friendlyName: "orders order create",
        discoveredTarget: CREATE,
        rules: [],
      },
      {
        policyKey: "orders.order.list",
        activeVersion: 1,
        friendlyName: "orders order list",
        discoveredTarget: LIST,
        rules: [],
      },
    ],
  });
  assert.equal(r.doc.draftPath, path.join(s.wf, "policy-drafts.json"));
  // The draft is valid for the rest of the tool chain.
  assert.equal((await s.run(["validate", "policy-drafts.json"])).code, 0);
  // No temporary file is left behind.
  assert.deepEqual([...Deno.readDirSync(s.wf)].map((e) => e.name).sort(), [
    "node_modules",
    "policy-drafts.json",
    "src",
  ]);
});

Deno.test("analyze JSON output: exact keys and types (the contract)", async () => {
  await using s = await scratch();
  await service(s);
  const r = await s.json(["analyze"]);
  assertShape(r.doc, ANALYZE_SHAPE);
  assert.deepEqual(
    [r.doc.source, r.doc.check, r.doc.passed, r.doc.filesScanned, r.doc.comparedWith],
    [s.wf, false, true, 3, null],
  );
  const policies = r.doc.policies as Record<string, unknown>[];
  assert.equal(policies.length, 2);
  for (const [i, entry] of policies.entries()) {
    assertShape(entry, ENTRY_SHAPE, `policies[${i}]`);
    assertShape(entry.target, { service: "string", resource: "string", action: "string" });
    for (const point of entry.evaluationPoints as unknown[]) assertShape(point, POINT_SHAPE);
  }
  assertShape(r.doc.summary, SUMMARY_SHAPE, "summary");
  assert.deepEqual(r.doc.summary, { targets: 2, evaluationPoints: 3, present: 0, missing: 2 });
  // Files relative to the working folder, with 1-based line and column of the call.
  assert.deepEqual(policies[0], {
    policyKey: "orders.order.create",
    target: CREATE,
    status: "missing",
    matchedPolicyKeys: [],
    evaluationPoints: [
      { file: "src/orders.ts", line: 4, column: 10 },
      { file: "src/routes/refunds.ts", line: 9, column: 3 },
    ],
  });
  const warnings = r.doc.warnings as Record<string, unknown>[];
  assert.equal(warnings.length, 1);
  assertShape(warnings[0], WARNING_SHAPE, "warnings[0]");
  assert.deepEqual(
    [warnings[0]!.code, warnings[0]!.file, warnings[0]!.line, warnings[0]!.column],
    ["ANALYZE_TARGET_UNRESOLVED", "src/routes/refunds.ts", 5, 10],
  );
});

Deno.test("analyze prints status, policy key, target and file:line:column in text", async () => {
  await using s = await scratch();
  await service(s);
  const r = await s.run(["analyze"]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^missing +orders\.order\.create +orders \/ order \/ create$/m);
  assert.match(r.stdout, /^ +src\/orders\.ts:4:10$/m);
  assert.match(r.stdout, /^ +src\/routes\/refunds\.ts:9:3$/m);
  assert.match(r.stdout, /2 targets, 3 evaluation points: 0 present, 2 missing; 1 warning/);
  assert.match(r.stdout, /wrote the draft .*policy-drafts\.json \(2 policies, no rules yet\)/);
  // The unresolved call is a warning with its place, on stderr.
  assert.match(
    r.stderr,
    /^warning: src\/routes\/refunds\.ts:5:10: cannot resolve the target statically.*\(ANALYZE_TARGET_UNRESOLVED\)$/m,
  );
  // --quiet keeps the listing and drops the summary.
  const quiet = await s.run(["analyze", "--check", "--quiet"]);
  assert.match(quiet.stdout, /^present +orders\.order\.list/m);
  assert.doesNotMatch(quiet.stdout, /evaluation points:/);
});

Deno.test("analyze refuses to overwrite an existing draft: DRAFT_EXISTS, exit 2, file untouched", async () => {
  await using s = await scratch();
  await service(s);
  const original = '{ "schemaVersion": "1.0", "policies": [] , "mine": true }\n';
  await s.write("policy-drafts.json", original);
  const text = await s.run(["analyze"]);
  assertError(text, 2, "DRAFT_EXISTS");
  assert.match(text.stderr, /already exists at .*policy-drafts\.json/);
  assert.match(text.stderr, /hint: .*policy analyze --check/);
  const json = await s.json(["analyze"]);
  assert.equal(json.code, 2);
  assert.equal((json.doc.error as { code: string }).code, "DRAFT_EXISTS");
  assert.equal(await s.read("policy-drafts.json"), original);
  assert.deepEqual([...Deno.readDirSync(s.wf)].map((e) => e.name).sort(), [
    "node_modules",
    "policy-drafts.json",
    "src",
  ]);
});

Deno.test("analyze --check exits 1 naming the evaluation points without a policy, and writes nothing", async () => {
  await using s = await scratch();
  await service(s);
  await s.write("policy-drafts.json", {
    schemaVersion: "1.0",
    generatedAt: NOW.toISOString(),
    policies: [{
      policyKey: "hand-written",
      activeVersion: 1,
      rules: [{
        id: "r1",
        status: "disabled",
        priority: 1,
        target: LIST,
        effect: { type: "allow" },
      }],
    }],
  });
  const before = await s.read("policy-drafts.json");
  const text = await s.run(["analyze", "--check"]);
  assert.equal(text.code, 1, text.stderr);
  assert.match(
    text.stdout,
    /check failed: 1 target without a policy: orders\.order\.create \(src\/orders\.ts:4:10\)/,
  );
  assert.match(
    text.stdout,
    /^present +orders\.order\.list +orders \/ order \/ list {2}\(policy hand-written\)$/m,
  );
  const r = await s.json(["analyze", "--check"]);
  assert.equal(r.code, 1);
  assertShape(r.doc, ANALYZE_SHAPE);
  assert.deepEqual([r.doc.check, r.doc.passed, r.doc.draftPath], [true, false, null]);
  assert.deepEqual(r.doc.comparedWith, {
    type: "draft",
    path: path.join(s.wf, "policy-drafts.json"),
  });
  const statuses =
    (r.doc.policies as { policyKey: string; status: string; matchedPolicyKeys: string[] }[])
      .map((p) => [p.policyKey, p.status, p.matchedPolicyKeys]);
  assert.deepEqual(statuses, [
    ["orders.order.create", "missing", []],
    ["orders.order.list", "present", ["hand-written"]],
  ]);
  assert.equal(await s.read("policy-drafts.json"), before);
});

Deno.test("analyze --check passes when every target has a policy; warnings fail it only with --strict", async () => {
  await using s = await scratch();
  await service(s);
  assert.equal((await s.run(["analyze"])).code, 0);
  const check = await s.json(["analyze", "--check"]);
  assert.equal(check.code, 0, check.stderr);
  assert.equal(check.doc.passed, true);
  const codes = (check.doc.warnings as { code: string }[]).map((w) => w.code);
  assert.ok(codes.includes("ANALYZE_TARGET_UNRESOLVED"));
  const strict = await s.json(["analyze", "--check", "--strict"]);
  assert.equal(strict.code, 1);
  assert.equal(strict.doc.passed, false);
  assert.match(
    (await s.run(["analyze", "--check", "--strict"])).stdout,
    /check failed: .* with --strict/,
  );
});

Deno.test("analyze --check warns about a target whose policy has no rule for it yet", async () => {
  await using s = await scratch();
  await s.write("src/orders.ts", ORDERS);
  await s.write("src/client.ts", "export const client = { evaluate: (r: unknown) => r };\n");
  assert.equal((await s.run(["analyze"])).code, 0);
  const first = await s.json(["analyze", "--check"]);
  const without = (first.doc.warnings as { code: string; file: string; line: number }[])
    .filter((w) => w.code === "ANALYZE_TARGET_WITHOUT_RULES");
  assert.deepEqual(without.map((w) => [w.file, w.line]), [["src/orders.ts", 4], [
    "src/orders.ts",
    13,
  ]]);
  assert.match(
    first.stderr,
    /orders\/order\/create has policy orders\.order\.create in the draft, but no rule targets it yet/,
  );
  await s.write("rule.json", {
    id: "allow-all",
    status: "active",
    priority: 1,
    target: CREATE,
    effect: { type: "allow" },
  });
  const added = await s.run([
    "policies",
    "add-rule",
    "--policy-key",
    "orders.order.create",
    "--rule-file",
    "rule.json",
  ]);
  assert.equal(added.code, 0, added.stderr);
  const second = await s.json(["analyze", "--check"]);
  assert.deepEqual(
    (second.doc.warnings as { code: string; line: number }[]).map((w) => [w.code, w.line]),
    [["ANALYZE_TARGET_WITHOUT_RULES", 13]],
  );
});

Deno.test("analyze --strict writes no draft when there are warnings (exit 1)", async () => {
  await using s = await scratch();
  await service(s);
  const r = await s.json(["analyze", "--strict"]);
  assert.equal(r.code, 1);
  assert.deepEqual([r.doc.passed, r.doc.draftPath], [false, null]);
  assert.equal(Deno.statSync(s.wf).isDirectory, true);
  assert.ok(![...Deno.readDirSync(s.wf)].some((e) => e.name === "policy-drafts.json"));
  assert.match(
    (await s.run(["analyze", "--strict"])).stdout,
    /no draft written: 1 warning with --strict/,
  );
});

Deno.test("analyze compares with the bundle when there is no draft", async () => {
  await using s = await scratch();
  await service(s);
  await s.write("policy-bundle.json", {
    schemaVersion: 1,
    env: "prod",
    policies: [{
      policyKey: "orders",
      activeVersion: 1,
      rules: [{
        id: "c",
        status: "active",
        priority: 1,
        target: CREATE,
        effect: { type: "allow" },
      }],
    }],
  });
  const check = await s.json(["analyze", "--check"]);
  assert.equal(check.code, 1);
  assert.deepEqual(check.doc.comparedWith, {
    type: "bundle",
    path: path.join(s.wf, "policy-bundle.json"),
  });
  assert.deepEqual(
    (check.doc.policies as { status: string }[]).map((p) => p.status),
    ["present", "missing"],
  );
  // Writing a draft also lists against the bundle.
  const write = await s.json(["analyze"]);
  assert.equal(write.code, 0);
  assert.equal((write.doc.comparedWith as { type: string }).type, "bundle");
  assert.equal(write.doc.draftPath, path.join(s.wf, "policy-drafts.json"));
});

Deno.test("analyze --source resolves from the working folder; analyze.source and skipDirectories apply", async () => {
  await using s = await scratch();
  await service(s);
  await s.write("legacy/old.ts", ORDERS.replaceAll("orders", "legacy"));
  const fromOtherFolder = await s.json(
    ["analyze", "--check", "-w", s.wf, "--source", "src/routes"],
    { cwd: s.root },
  );
  assert.equal(fromOtherFolder.doc.source, path.join(s.wf, "src/routes"));
  assert.deepEqual(
    (fromOtherFolder.doc.policies as { evaluationPoints: { file: string }[] }[])
      .flatMap((p) => p.evaluationPoints.map((e) => e.file)),
    ["src/routes/refunds.ts"],
  );
  // A single file can be scanned too.
  const file = await s.json(["analyze", "--check", "--source", "src/orders.ts"]);
  assert.equal(file.doc.filesScanned, 1);
  assert.deepEqual(
    (file.doc.policies as { evaluationPoints: { file: string }[] }[])[0]!.evaluationPoints[0]!.file,
    "src/orders.ts",
  );
  // Default: the whole working folder, without node_modules.
  const all = await s.json(["analyze", "--check"]);
  assert.deepEqual(
    (all.doc.policies as { policyKey: string }[]).map((p) => p.policyKey),
    ["legacy.order.create", "legacy.order.list", "orders.order.create", "orders.order.list"],
  );
  await s.write("policy.config.json", {
    analyze: { source: "src", skipDirectories: ["routes"] },
  });
  const configured = await s.json(["analyze", "--check"]);
  assert.equal(configured.doc.source, path.join(s.wf, "src"));
  assert.deepEqual(configured.doc.summary, {
    targets: 2,
    evaluationPoints: 2,
    present: 0,
    missing: 2,
  });
  await s.write("policy.config.json", { analyze: { skipDirectories: "routes" } });
  assertError(await s.run(["analyze", "--check"]), 2, "CONFIG_INVALID");
});

Deno.test("analyze: a missing source folder is a usage error (exit 2)", async () => {
  await using s = await scratch();
  const r = await s.run(["analyze", "--source", "nope"]);
  assertError(r, 2, "USAGE_ERROR");
  assert.match(r.stderr, /the source folder .*nope does not exist/);
});

Deno.test("analyze with no evaluation point warns and writes no draft", async () => {
  await using s = await scratch();
  await s.write("src/plain.ts", "export const x = 1;\n");
  const r = await s.json(["analyze"]);
  assert.equal(r.code, 0);
  assert.equal(r.doc.draftPath, null);
  assert.deepEqual((r.doc.warnings as { code: string }[]).map((w) => w.code), [
    "ANALYZE_NO_EVALUATION_POINTS",
  ]);
  assert.ok(![...Deno.readDirSync(s.wf)].some((e) => e.name === "policy-drafts.json"));
  assert.equal((await s.run(["analyze", "--check"])).code, 0);
  assert.equal((await s.run(["analyze", "--check", "--strict"])).code, 1);
});

Deno.test("analyze --check refuses a draft that is not a draft (DRAFT_INVALID, exit 1)", async () => {
  await using s = await scratch();
  await service(s);
  await s.write("policy-drafts.json", { schemaVersion: "1.0" });
  assertError(await s.run(["analyze", "--check"]), 1, "DRAFT_INVALID");
  await s.write("policy-drafts.json", "{ not json");
  assertError(await s.run(["analyze", "--check"]), 2, "DOCUMENT_PARSE_ERROR");
});

Deno.test("after DRAFT_EXISTS, following the hint (analyze --merge) makes analyze --check pass", async () => {
  await using s = await scratch();
  await service(s);
  // A draft written by hand that knows one of the two targets.
  await s.write("policy-drafts.json", {
    schemaVersion: "1.0",
    generatedAt: "2026-01-01T00:00:00Z",
    policies: [{
      policyKey: "orders.order.create",
      activeVersion: 3,
      friendlyName: "Create orders",
      discoveredTarget: CREATE,
      rules: [],
      defaults: { effect: "deny" },
    }],
  });
  const refused = await s.run(["analyze"]);
  assertError(refused, 2, "DRAFT_EXISTS");
  assert.match(refused.stderr, /hint: .*'policy analyze --merge'/);
  assert.doesNotMatch(refused.stderr, /update-policy/);
  assert.equal((await s.run(["analyze", "--check"])).code, 1);
  const merged = await s.json(["analyze", "--merge"]);
  assert.equal(merged.code, 0, merged.stderr);
  assert.deepEqual(merged.doc.added, ["orders.order.list"]);
  const draft = await s.readJson("policy-drafts.json");
  assert.deepEqual((draft.policies as Record<string, unknown>[]).map((p) => p.policyKey), [
    "orders.order.create",
    "orders.order.list",
  ]);
  assert.equal(
    (draft.policies as Record<string, unknown>[])[0]!.activeVersion,
    3,
    "kept as it was",
  );
  assert.equal((await s.run(["analyze", "--check"])).code, 0);
  const again = await s.json(["analyze", "--merge"]);
  assert.deepEqual([again.code, again.doc.added, again.doc.draftPath], [0, [], null]);
  assertError(await s.run(["analyze", "--merge", "--check"]), 2, "USAGE_ERROR");
});

Deno.test("analyze --check warns about a rule whose target is a near miss of one the code evaluates; --strict fails", async () => {
  await using s = await scratch();
  await service(s);
  assert.equal((await s.run(["analyze"])).code, 0);
  const draft = await s.readJson("policy-drafts.json");
  const policies = draft.policies as { rules: unknown[] }[];
  policies[0]!.rules.push({
    id: "plural",
    status: "active",
    priority: 1,
    target: { service: "orders", resource: "orders", action: "create" },
    effect: { type: "allow" },
  });
  policies[1]!.rules.push({
    id: "list",
    status: "active",
    priority: 1,
    target: LIST,
    effect: { type: "allow" },
  });
  await s.write("policy-drafts.json", draft);
  const r = await s.json(["analyze", "--check"]);
  assert.equal(r.code, 0, r.stderr);
  const near = (r.doc.warnings as { code: string; message: string }[])
    .filter((w) => w.code === "ANALYZE_RULE_TARGET_UNUSED");
  assert.equal(near.length, 1);
  assert.match(
    near[0]!.message,
    /rule "plural" of policy orders\.order\.create in the draft targets orders\/orders\/create, which no evaluation point uses; did you mean orders\/order\/create\?/,
  );
  assert.equal((await s.run(["analyze", "--check", "--strict"])).code, 1);
});
