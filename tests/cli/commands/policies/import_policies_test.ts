/**
 * `policy policies import`: the two shapes policies are also exchanged in
 * (docs/import.md) map into the draft, and what cannot be mapped is refused
 * with a code naming the field.
 */
import assert from "node:assert/strict";
import { assertError, assertShape, type Scratch, scratch } from "../../_helpers.ts";

const SHAPE = {
  formatVersion: "number",
  draftPath: "string",
  created: "boolean",
  source: "object",
  policies: "array",
  warnings: "array",
  omittedWarnings: "number",
};

const importFile = (file: string, ...flags: string[]) => ["policies", "import", file, ...flags];

async function decide(s: Scratch, target: string[], context: unknown) {
  const r = await s.json([
    "simulate",
    "--service",
    target[0]!,
    "--resource",
    target[1]!,
    "--action",
    target[2]!,
    "--context",
    JSON.stringify(context),
  ]);
  assert.equal(r.code, 0, r.stderr);
  const d = r.doc.decision as { decision: string; ruleId?: string };
  return `${d.decision}${d.ruleId === undefined ? "" : ` ${d.ruleId}`}`;
}

Deno.test("policies import maps a policy wrapper into the draft: key, name, version, snapshot; env is not kept", async () => {
  await using s = await scratch();
  await s.fixture("import_wrapper.json");
  const r = await s.json(importFile("import_wrapper.json"));
  assert.equal(r.code, 0, r.stderr);
  assertShape(r.doc, SHAPE);
  assert.deepEqual(r.doc.source, { path: `${s.wf}/import_wrapper.json`, form: "wrapper" });
  assert.equal(r.doc.created, true, "there was no draft: one is created");
  assert.deepEqual(r.doc.policies, [{
    policyKey: "billing.invoice.create",
    activeVersion: 4,
    ruleCount: 1,
    defaultsEffect: "deny",
    replaced: false,
  }]);
  assert.deepEqual((r.doc.warnings as { code: string }[]).map((w) => w.code), [
    "IMPORT_ENV_DIFFERS",
  ]);
  const draft = await s.readJson("policy-drafts.json");
  const policy = (draft.policies as Record<string, unknown>[])[0]!;
  assert.deepEqual(Object.keys(policy), [
    "policyKey",
    "activeVersion",
    "friendlyName",
    "rules",
    "defaults",
  ]);
  assert.equal(policy.friendlyName, "Create invoices");
  assert.equal((await s.run(["validate", "--strict"])).code, 0);
  assert.equal((await s.run(["build"])).code, 0);
  const create = ["billing", "invoice", "create"];
  assert.equal(await decide(s, create, { plan: "pro" }), "allow paid-plans");
  assert.equal(await decide(s, create, { plan: "free" }), "deny");
});

Deno.test("policies import maps the older file form: target.* to the target, context.* to when, throttle to the effect", async () => {
  await using s = await scratch();
  await s.run(["working-folder", "init"]);
  await s.fixture("import_older.json");
  const text = await s.run(importFile("import_older.json"));
  assert.equal(text.code, 0, text.stderr);
  assert.match(
    text.stdout,
    /imported 1 policy \(2 rules\) from \S+import_older\.json \(older file form\)/,
  );
  assert.match(
    text.stdout,
    /added search\.index\.query: active version 1, 2 rules, default \(none\)/,
  );
  const draft = await s.readJson("policy-drafts.json");
  assert.deepEqual((draft.policies as unknown[])[0], {
    policyKey: "search.index.query",
    activeVersion: 1,
    friendlyName: "Search",
    rules: [
      {
        id: "per-user",
        status: "active",
        priority: 5,
        target: { service: "search", resource: "index", action: "query" },
        effect: { type: "throttle", throttle: { limit: 10, windowSeconds: 60, key: "user" } },
        when: {
          op: "and",
          conditions: [
            { op: "exists", path: "userId" },
            { op: "in", path: "plan", values: ["free", "trial"] },
          ],
        },
      },
      {
        id: "blocked-tenant",
        status: "active",
        priority: 50,
        target: { service: "search", resource: "index", action: "query" },
        effect: { type: "deny" },
        when: { op: "eq", path: "tenant", value: "t-blocked" },
      },
    ],
  });
  assert.equal((await s.run(["build"])).code, 0);
  const query = ["search", "index", "query"];
  assert.equal(await decide(s, query, { userId: "u", plan: "free" }), "throttle per-user");
  assert.equal(await decide(s, query, { plan: "free" }), "deny", "no userId: the rule is skipped");
  assert.equal(await decide(s, query, { userId: "u", tenant: "t-blocked" }), "deny blocked-tenant");
});

Deno.test("policies import refuses what it cannot map with IMPORT_UNMAPPABLE naming the field, and changes nothing", async () => {
  await using s = await scratch();
  await s.run(["working-folder", "init"]);
  const before = await s.read("policy-drafts.json");
  const wrapper = JSON.parse(
    await Deno.readTextFile(new URL("../../../testdata/cli/import_wrapper.json", import.meta.url)),
  );
  const older = JSON.parse(
    await Deno.readTextFile(new URL("../../../testdata/cli/import_older.json", import.meta.url)),
  );
  const rule = () => structuredClone(older.policies[0].rules[0]);
  const olderWith = (r: unknown) => ({ version: 1, policies: [{ policyKey: "p", rules: [r] }] });
  const cases: [string, unknown, RegExp][] = [
    ["status", { ...wrapper, status: "disabled" }, /status is "disabled": only active policies/],
    ["env", { ...wrapper, env: "qa" }, /env must be one of prod, staging, dev, test/],
    ["policyKey", { ...wrapper, policyKey: "" }, /policyKey must be a non-empty string/],
    ["a list", [wrapper, { ...wrapper, status: "archived" }], /\[1\]\.status is "archived"/],
    [
      "in over a target",
      olderWith({
        ...rule(),
        all: [...rule().all.slice(0, 2), { in: { path: "target.action", values: ["a", "b"] } }],
      }),
      /policies\[0\]\.rules\[0\]\.all\[2\]\.in over target\.action cannot be a target/,
    ],
    [
      "a missing target field",
      olderWith({ ...rule(), all: rule().all.slice(1) }),
      /policies\[0\]\.rules\[0\]\.all has no equals over target\.service/,
    ],
    [
      "another path",
      olderWith({
        ...rule(),
        all: [...rule().all, { equals: { path: "request.ip", value: "1" } }],
      }),
      /all\[5\]\.equals\.path names "request\.ip": only target\.service/,
    ],
    [
      "two effects",
      olderWith({ ...rule(), effect: "deny" }),
      /rules\[0\]\.throttle and effect "deny" cannot both apply/,
    ],
    [
      "an operator",
      olderWith({ ...rule(), all: [...rule().all, { matches: { path: "context.a" } }] }),
      /all\[5\] must be one of \{"equals"/,
    ],
    [
      "a bad throttle",
      olderWith({ ...rule(), throttle: { limit: 10 } }),
      /maps to policies the engine refuses: .*a throttle effect needs throttle/,
    ],
    ["neither shape", { schemaVersion: 1, env: "prod", policies: [] }, /it is a bundle/],
  ];
  for (const [name, document, message] of cases) {
    await s.write("in.json", document);
    const r = await s.run(importFile("in.json"));
    assertError(r, 1, "IMPORT_UNMAPPABLE");
    assert.match(r.stderr, message, name);
    assert.match(r.stderr, /nothing was imported/, name);
    assert.equal(await s.read("policy-drafts.json"), before, name);
  }
});

Deno.test("policies import refuses a key the draft has (IMPORT_CONFLICT) unless --replace; unknown fields warn", async () => {
  await using s = await scratch();
  await s.fixture("import_wrapper.json");
  assert.equal((await s.run(importFile("import_wrapper.json"))).code, 0);
  assertError(await s.run(importFile("import_wrapper.json")), 1, "IMPORT_CONFLICT");
  const wrapper = JSON.parse(await s.read("import_wrapper.json"));
  await s.write("v5.json", { ...wrapper, env: "prod", activeVersion: 5, owner: "team-a" });
  assertError(
    await s.run([...importFile("v5.json", "--replace"), "--strict"]),
    1,
    "IMPORT_UNMAPPABLE",
  );
  const replaced = await s.json(importFile("v5.json", "--replace"));
  assert.equal(replaced.code, 0, replaced.stderr);
  assert.deepEqual(
    (replaced.doc.policies as { activeVersion: number; replaced: boolean }[]).map((p) => [
      p.activeVersion,
      p.replaced,
    ]),
    [[5, true]],
  );
  const [warning] = replaced.doc.warnings as { code: string; message: string }[];
  assert.equal(warning!.code, "UNKNOWN_FIELD");
  assert.match(warning!.message, /unknown field "owner", which import ignores/);
  const draft = await s.readJson("policy-drafts.json");
  assert.equal((draft.policies as unknown[]).length, 1);
});

Deno.test("policies import lists at most 1,000 warnings and counts the rest; values are quoted short", async () => {
  await using s = await scratch();
  const fields = Object.fromEntries(Array.from({ length: 1_005 }, (_, i) => [`extra${i}`, i]));
  await s.write("many.json", { policyKey: "p", snapshot: {}, ...fields });
  const r = await s.json(importFile("many.json"));
  assert.equal(r.code, 0, r.stderr);
  assertShape(r.doc, SHAPE);
  assert.equal((r.doc.warnings as unknown[]).length, 1_000);
  assert.equal(r.doc.omittedWarnings, 5);
  assert.match(r.stderr, /^warning: … and 5 more warnings, not listed \(at most 1000 are\)$/m);
  assert.equal(r.stderr.split("\n").filter((l) => l.startsWith("warning: ")).length, 1_001);
  const strict = await s.run([...importFile("many.json"), "--strict"]);
  assertError(strict, 1, "IMPORT_UNMAPPABLE");
  assert.match(strict.stderr, /has 1005 fields that would not be imported/);

  const long = "x".repeat(100_000);
  await s.write("status.json", { policyKey: "q", status: long, snapshot: {} });
  const status = await s.run(importFile("status.json"));
  assertError(status, 1, "IMPORT_UNMAPPABLE");
  assert.match(status.stderr, /status is .{1,70}: only active policies/);
  assert.doesNotMatch(status.stderr, /x{61}/, "the value is not quoted whole");
  await s.write("key.json", { policyKey: long, snapshot: {} });
  const key = await s.run(importFile("key.json"));
  assert.equal(key.code, 0, key.stderr);
  assert.match(key.stdout, /^ {2}added .{1,70}: active version 1/m);
  assert.ok(key.stdout.length < 1_000, "the key is not printed whole");
});
