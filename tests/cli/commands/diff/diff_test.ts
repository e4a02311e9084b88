import assert from "node:assert/strict";
import * as path from "node:path";
import { assertError, assertShape, rule, type Scratch, scratch } from "../../_helpers.ts";
import { reverseKeys } from "../../../_reverse_keys.ts";

const SHAPE = {
  formatVersion: "number",
  old: "object",
  new: "object",
  changed: "boolean",
  scope: "array",
  policies: "object",
  targets: "array",
  decisions: "object|null",
};
const DECISIONS_SHAPE = {
  source: "object",
  requests: "number",
  changed: "number",
  reattributed: "number",
  byTarget: "array",
  changes: "array",
};
const CHANGE_SHAPE = {
  line: "number|null",
  scenario: "string|null",
  target: "object",
  context: "object",
  old: "object",
  new: "object",
  effectChanged: "boolean",
};

const T = { service: "billing", resource: "invoice", action: "create" };

/** A draft (old.json) with the paid-plans rule, and a bundle built from it (old-bundle.json). */
async function setUp(s: Scratch): Promise<void> {
  await s.fixture("draft.json", "old.json");
  await s.fixture("draft.json", "policy-drafts.json");
  assert.equal((await s.run(["build"])).code, 0);
  await Deno.rename(path.join(s.wf, "policy-bundle.json"), path.join(s.wf, "old-bundle.json"));
  const draft = await s.readJson("old.json");
  const billing = (draft.policies as Record<string, unknown>[])[0]!;
  (billing.rules as unknown[]).push(rule("seat-cap", {
    priority: 100,
    effect: { type: "deny" },
    when: { op: "gt", path: "ctx.seats", value: 50 },
  }));
  await s.write("new.json", draft);
}

function line(context: Record<string, unknown> | undefined, extra: Record<string, unknown> = {}) {
  return JSON.stringify({ ...extra, target: T, ...(context === undefined ? {} : { context }) });
}

Deno.test("diff of a bundle and a draft: what changed by meaning, as a JSON document", async () => {
  await using s = await scratch();
  await setUp(s);
  const r = await s.json(["diff", "old-bundle.json", "new.json"]);
  assert.equal(r.code, 0, r.stderr);
  assertShape(r.doc, SHAPE);
  assert.deepEqual(r.doc.old, { path: path.join(s.wf, "old-bundle.json"), type: "bundle" });
  assert.deepEqual(r.doc.new, { path: path.join(s.wf, "new.json"), type: "draft" });
  assert.equal(r.doc.changed, true);
  assert.deepEqual(r.doc.scope, [], "scope is not compared with a draft");
  const policies = r.doc.policies as {
    changed: { policyKey: string; rules: { added: { ruleId: string }[] } }[];
  };
  assert.deepEqual(policies.changed.map((p) => [p.policyKey, p.rules.added.map((a) => a.ruleId)]), [
    ["billing.invoice.create", ["seat-cap"]],
  ]);
  const targets = r.doc.targets as { target: unknown; new: { ruleId: string }[] }[];
  assert.deepEqual(targets.map((t) => t.target), [T]);
  assert.equal(targets[0]!.new[0]!.ruleId, "seat-cap");
  assert.equal(r.doc.decisions, null);

  const text = await s.run(["diff", "old-bundle.json", "new.json"]);
  assert.match(text.stdout, /^old: old-bundle\.json \(bundle\)\nnew: new\.json \(draft\)\n/);
  assert.match(text.stdout, /~ policy billing\.invoice\.create\n {4}\+ rule seat-cap\n/);
  assert.match(
    text.stdout,
    /ranking of billing\/invoice\/create:\n {4}old: .*\n {4}new: deny \(billing\.invoice\.create\/seat-cap\)/,
  );
});

Deno.test("diff ignores key order and formatting; --fail-on-change exits 1 only on a change", async () => {
  await using s = await scratch();
  await setUp(s);
  const draft = await s.readJson("old.json");
  await s.write("reformatted.json", JSON.stringify(reverseKeys(draft), null, "\t") + "\r\n");
  const same = await s.json(["diff", "old.json", "reformatted.json", "--fail-on-change"]);
  assert.equal(same.code, 0);
  assert.equal(same.doc.changed, false);
  assert.match(
    (await s.run(["diff", "old.json", "reformatted.json"])).stdout,
    /no change in meaning/,
  );
  // The bundle built from the draft means the same as the draft.
  assert.equal((await s.json(["diff", "old-bundle.json", "old.json"])).doc.changed, false);
  const changed = await s.json(["diff", "old.json", "new.json", "--fail-on-change"]);
  assert.equal(changed.code, 1);
  assert.equal(changed.doc.changed, true, "the document is printed too");
});

Deno.test("diff --requests lists every request whose decision changes, with line numbers and counts", async () => {
  await using s = await scratch();
  await setUp(s);
  await s.write(
    "requests.jsonl",
    [
      line({ plan: "pro", seats: 10 }, { at: "2026-11-20T10:00:00Z", decision: "allow" }),
      "",
      line({ plan: "enterprise", seats: 400 }),
      line({ plan: "free", seats: 90 }),
      JSON.stringify({ target: { ...T, action: "read" } }),
    ].join("\r\n") + "\n",
  );
  const r = await s.json(["diff", "old.json", "new.json", "--requests", "requests.jsonl"]);
  assert.equal(r.code, 0);
  const decisions = r.doc.decisions as Record<string, unknown>;
  assertShape(decisions, DECISIONS_SHAPE, "decisions");
  assert.deepEqual(decisions.source, { kind: "requests", path: path.join(s.wf, "requests.jsonl") });
  assert.deepEqual([decisions.requests, decisions.changed, decisions.reattributed], [4, 1, 1]);
  const changes = decisions.changes as Record<string, unknown>[];
  for (const change of changes) assertShape(change, CHANGE_SHAPE, "change");
  assert.deepEqual(changes.map((c) => [c.line, c.effectChanged]), [[3, true], [4, false]]);
  assert.deepEqual(changes[0], {
    line: 3,
    scenario: null,
    target: T,
    context: { plan: "enterprise", seats: 400 },
    old: {
      decision: "allow",
      reason: "rule",
      policyKey: "billing.invoice.create",
      ruleId: "paid-plans",
    },
    new: {
      decision: "deny",
      reason: "rule",
      policyKey: "billing.invoice.create",
      ruleId: "seat-cap",
    },
    effectChanged: true,
  });
  assert.deepEqual(decisions.byTarget, [
    {
      target: T,
      requests: 3,
      changed: 1,
      reattributed: 1,
      transitions: [{ from: "allow", to: "deny", count: 1 }],
    },
    { target: { ...T, action: "read" }, requests: 1, changed: 0, reattributed: 0, transitions: [] },
  ]);
  const text = await s.run(["diff", "old.json", "new.json", "--requests", "requests.jsonl"]);
  assert.match(text.stdout, /decisions: 4 requests, 1 changed, 1 decided by another rule\n/);
  assert.match(
    text.stdout,
    /billing\/invoice\/create: 1 of 3 changed \(allow -> deny: 1\), 1 decided by another rule\n/,
  );
  assert.match(
    text.stdout,
    /line 3 billing\/invoice\/create \{"plan":"enterprise","seats":400\}: allow \(billing\.invoice\.create\/paid-plans\) -> deny \(billing\.invoice\.create\/seat-cap\)\n/,
  );
  assert.doesNotMatch(text.stdout, /line 4/, "text lists enforced changes only");

  const gate = await s.run([
    "diff",
    "old.json",
    "new.json",
    "--requests",
    "requests.jsonl",
    "--fail-on-change",
  ]);
  assert.equal(gate.code, 1, "CHANGE_DETECTED: exit code only, the output shows the changes");
  // Only a reattribution: the gate passes.
  await s.write("free.jsonl", line({ plan: "free", seats: 90 }) + "\n");
  const passes = await s.run([
    "diff",
    "old.json",
    "new.json",
    "--requests",
    "free.jsonl",
    "--fail-on-change",
  ]);
  assert.equal(passes.code, 0, passes.stderr);
});

Deno.test("diff --suite replays the scenarios of a simulation suite", async () => {
  await using s = await scratch();
  await setUp(s);
  await s.write("suite.json", {
    $schema: "https://jsr.io/@policy/runtime/0.1.0/schemas/suite.schema.json",
    name: "seats",
    scenarios: [
      {
        name: "big enterprise",
        target: T,
        context: { plan: "enterprise", seats: 400 },
        expected: { decision: "allow" },
      },
      {
        name: "small pro",
        target: T,
        context: { plan: "pro", seats: 3 },
        expected: { decision: "allow" },
      },
    ],
  });
  const r = await s.json(["diff", "old.json", "new.json", "--suite", "suite.json"]);
  assert.equal(r.code, 0, r.stderr);
  const decisions = r.doc.decisions as { source: unknown; changes: Record<string, unknown>[] };
  assert.deepEqual(decisions.source, { kind: "suite", path: path.join(s.wf, "suite.json") });
  assert.deepEqual(decisions.changes.map((c) => [c.line, c.scenario]), [[null, "big enterprise"]]);
  assert.match(
    (await s.run(["diff", "old.json", "new.json", "--suite", "suite.json"])).stdout,
    /scenario "big enterprise" billing\/invoice\/create/,
  );
});

Deno.test("diff --requests refuses bad lines with REQUESTS_INVALID, naming each line", async () => {
  await using s = await scratch();
  await setUp(s);
  const cases: [string, RegExp][] = [
    ["{not json", /line 1: not JSON/],
    ["[1]", /line 1: not a JSON object/],
    [JSON.stringify({ target: { service: "s", resource: "r" } }), /line 1: target must be/],
    [JSON.stringify({ target: T, context: [1] }), /line 1: context must be a JSON object/],
    [JSON.stringify({ target: T, context: null }), /line 1: context must be a JSON object/],
    [`${line({})}\n${"x".repeat(1_048_577)}`, /line 2: longer than 1048576 characters/],
  ];
  for (const [text, message] of cases) {
    await s.write("bad.jsonl", text);
    const r = await s.json(["diff", "old.json", "new.json", "--requests", "bad.jsonl"]);
    assertError(r, 2, "REQUESTS_INVALID");
    assert.match((r.doc.error as { message: string }).message, message);
  }
  await s.write("many.jsonl", Array.from({ length: 25 }, (_, i) => `bad ${i}`).join("\n"));
  const many = await s.json(["diff", "old.json", "new.json", "--requests", "many.jsonl"]);
  const message = (many.doc.error as { message: string }).message;
  assert.match(message, /has 25 bad line\(s\): line 1: .*line 10: .*; …$/);
  assert.doesNotMatch(message, /line 11:/);
});

Deno.test("diff: usage errors, unreadable or invalid inputs", async () => {
  await using s = await scratch();
  await setUp(s);
  assertError(await s.run(["diff", "old.json"]), 2, "USAGE_ERROR");
  assertError(
    await s.run(["diff", "old.json", "new.json", "--requests", "a", "--suite", "b"]),
    2,
    "USAGE_ERROR",
  );
  assertError(await s.run(["diff", "old.json", "missing.json"]), 2, "DOCUMENT_READ_ERROR");
  await s.write("broken.json", "{");
  assertError(await s.run(["diff", "broken.json", "new.json"]), 2, "DOCUMENT_PARSE_ERROR");
  await s.write("invalid-bundle.json", { schemaVersion: 1, env: "qa", policies: [] });
  assertError(await s.run(["diff", "invalid-bundle.json", "new.json"]), 1, "BUNDLE_INVALID");
  await s.write("invalid-draft.json", { schemaVersion: "1.0", policies: [{}] });
  assertError(await s.run(["diff", "old.json", "invalid-draft.json"]), 1, "DRAFT_INVALID");
  const bundle = await s.readJson("old-bundle.json");
  (bundle.policies as { activeVersion: number }[])[0]!.activeVersion = 99;
  await s.write("tampered.json", bundle);
  assertError(await s.run(["diff", "tampered.json", "new.json"]), 1, "CHECKSUM_MISMATCH");
  await s.write("policy.config.json", { limits: { maxFileBytes: 4000 } });
  await s.write("big.jsonl", `${line({ plan: "pro" })}\n`.repeat(100));
  assertError(
    await s.run(["diff", "old-bundle.json", "old-bundle.json", "--requests", "big.jsonl"]),
    2,
    "DOCUMENT_TOO_LARGE",
  );
});

Deno.test("diff compares the scope of two bundles", async () => {
  await using s = await scratch();
  await setUp(s);
  assert.equal((await s.run(["build", "--env", "staging", "--org-id", "acme"])).code, 0);
  const r = await s.json(["diff", "old-bundle.json", "policy-bundle.json"]);
  assert.deepEqual(r.doc.scope, [
    { field: "env", old: "prod", new: "staging" },
    { field: "orgId", old: null, new: "acme" },
  ]);
});
