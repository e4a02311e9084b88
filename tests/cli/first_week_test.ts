/**
 * The scripted first week of a team with the CLI (issue 26, "Done when";
 * docs/cli.md): from an empty folder, with no hand-edited JSON — the draft
 * is only ever written by `policy` — analyze the code, add and replace
 * rules, flip a kill switch, remove a default, simulate the draft with a
 * trace that names the failing condition, run a folder of suites with a
 * filter and a coverage threshold, `fmt --check`, build, sign, inspect.
 */
import assert from "node:assert/strict";
import { assertError, scratch } from "./_helpers.ts";

type Scratch = Awaited<ReturnType<typeof scratch>>;

/** The service the team starts from: three routes that ask the policy client. */
const SOURCE: Record<string, string> = {
  "src/policy.ts": [
    "export interface Client {",
    "  evaluate(request: { target: object; context?: object }): { decision: string };",
    "}",
    "",
  ].join("\n"),
  "src/invoices.ts": [
    'import type { Client } from "./policy.ts";',
    "",
    "export function create(policy: Client, plan: string, seats: number) {",
    "  return policy.evaluate({",
    '    target: { service: "billing", resource: "invoice", action: "create" },',
    "    context: { plan, seats },",
    "  });",
    "}",
    "",
    "export function exportAll(policy: Client, tenant: string) {",
    "  return policy.evaluate({",
    '    target: { service: "billing", resource: "invoice", action: "export" },',
    "    context: { tenant },",
    "  });",
    "}",
    "",
  ].join("\n"),
  "src/search.ts": [
    'import type { Client } from "./policy.ts";',
    "",
    "export function search(policy: Client, tenant: string) {",
    '  const target = { service: "search", resource: "index", action: "query" } as const;',
    "  return policy.evaluate({ target, context: { tenant } });",
    "}",
    "",
  ].join("\n"),
};

const INVOICE = { service: "billing", resource: "invoice", action: "create" };
const EXPORT = { service: "billing", resource: "invoice", action: "export" };
const SEARCH = { service: "search", resource: "index", action: "query" };

/**
 * The rule files the team writes, as a person types them: compact, one line
 * (`policy fmt` lays them out). The draft itself is never written here.
 */
const RULES: Record<string, unknown> = {
  "rules/paid-plans.rule.json": {
    id: "paid-plans",
    status: "active",
    priority: 20,
    target: INVOICE,
    when: { op: "in", path: "ctx.plan", values: ["pro", "enterprise"] },
    effect: { type: "allow" },
  },
  "rules/free-small-teams.rule.json": {
    id: "free-small-teams",
    status: "active",
    priority: 10,
    target: INVOICE,
    when: {
      op: "and",
      conditions: [
        { op: "eq", path: "ctx.plan", value: "free" },
        { op: "lte", path: "ctx.seats", value: 5 },
      ],
    },
    effect: { type: "allow" },
  },
  "rules/export-per-tenant.rule.json": {
    id: "export-per-tenant",
    status: "active",
    priority: 10,
    target: EXPORT,
    effect: { type: "throttle", throttle: { limit: 10, windowSeconds: 60, key: "tenant" } },
  },
  "rules/search-open.rule.json": {
    id: "search-open",
    status: "active",
    priority: 1,
    target: SEARCH,
    effect: { type: "allow" },
  },
  "rules/search-off.rule.json": {
    id: "search-off",
    status: "disabled",
    priority: 100,
    target: SEARCH,
    effect: { type: "kill_switch", killSwitch: { service: "search", reason: "index rebuild" } },
  },
};

/** Suites in a folder of their own, one file per service. */
const SUITES: Record<string, unknown> = {
  "suites/billing.suite.json": {
    name: "billing",
    scenarios: [
      {
        name: "pro plan creates invoices",
        target: INVOICE,
        context: { plan: "pro", seats: 40 },
        expected: { decision: "allow", ruleId: "paid-plans" },
      },
      {
        name: "free plan, 8 seats, creates invoices",
        target: INVOICE,
        context: { plan: "free", seats: 8 },
        expected: { decision: "allow", ruleId: "free-small-teams" },
      },
      {
        name: "free plan, 12 seats, is refused",
        target: INVOICE,
        context: { plan: "free", seats: 12 },
        expected: { decision: "deny", reason: "default" },
      },
      {
        name: "exports are throttled per tenant",
        target: EXPORT,
        context: { tenant: "t-1" },
        expected: { decision: "throttle", ruleId: "export-per-tenant" },
      },
    ],
  },
  "suites/search/search.suite.json": {
    name: "search",
    scenarios: [
      {
        name: "search is open",
        target: SEARCH,
        context: { tenant: "t-1" },
        expected: { decision: "allow", ruleId: "search-open" },
      },
    ],
  },
};

/** Runs `policy <args>` and asserts its exit code; returns what it printed. */
async function policy(s: Scratch, code: number, ...args: string[]) {
  const r = await s.run(args);
  assert.equal(r.code, code, `policy ${args.join(" ")} exited ${r.code}:\n${r.stdout}${r.stderr}`);
  return r;
}

/** Runs `policy <args> --format json` and asserts its exit code; returns the document. */
async function policyJson(s: Scratch, code: number, ...args: string[]) {
  const r = await s.json(args);
  assert.equal(r.code, code, `policy ${args.join(" ")} exited ${r.code}:\n${r.stdout}${r.stderr}`);
  return r.doc;
}

/** What `simulate --draft` decides for one request: the draft, not built. */
async function decideDraft(s: Scratch, target: typeof INVOICE, context: object) {
  const doc = await policyJson(
    s,
    0,
    "simulate",
    "--draft",
    "--service",
    target.service,
    "--resource",
    target.resource,
    "--action",
    target.action,
    "--context",
    JSON.stringify(context),
  );
  return doc.decision as { decision: string; ruleId?: string; reason: string };
}

Deno.test("the first week: from an empty folder to a signed bundle, the draft never edited by hand", async () => {
  await using s = await scratch();
  const draftPolicies = async () =>
    (await s.readJson("policy-drafts.json")).policies as {
      policyKey: string;
      defaults?: unknown;
      rules: { id: string; status: string; when?: unknown }[];
    }[];

  // Monday: the code is there; analyze finds its evaluation points and writes the first draft.
  for (const [file, text] of Object.entries(SOURCE)) await s.write(file, text);
  const analyzed = await policyJson(s, 0, "analyze", "--source", "src");
  assert.deepEqual(analyzed.added, [
    "billing.invoice.create",
    "billing.invoice.export",
    "search.index.query",
  ]);
  await policy(s, 0, "analyze", "--source", "src", "--check");

  // Tuesday: rules and defaults, from rule files; a rule id used twice is refused with a way out.
  for (const [file, rule] of Object.entries(RULES)) await s.write(file, JSON.stringify(rule));
  const add = (key: string, file: string, ...more: string[]) =>
    policy(s, 0, "policies", "add-rule", "--policy-key", key, "--rule-file", file, ...more);
  await add("billing.invoice.create", "rules/paid-plans.rule.json");
  await add("billing.invoice.create", "rules/free-small-teams.rule.json");
  await add("billing.invoice.export", "rules/export-per-tenant.rule.json");
  await add("search.index.query", "rules/search-open.rule.json");
  const off = await add("search.index.query", "rules/search-off.rule.json");
  assert.match(off.stdout, /^added disabled rule search-off/m);
  await policy(
    s,
    0,
    "policies",
    "update-policy",
    "--policy-key",
    "billing.invoice.create",
    "--defaults-effect",
    "deny",
  );
  const searchDefault = await policy(
    s,
    0,
    "policies",
    "update-policy",
    "--policy-key",
    "search.index.query",
    "--defaults-effect",
    "allow",
  );
  assert.equal(searchDefault.stderr, "", "no warning for a default set before or after rules");
  await policy(s, 0, "analyze", "--source", "src", "--check", "--strict");

  // Wednesday: free teams up to 10 seats. The same id again is refused, then replaced.
  await s.write(
    "rules/free-small-teams.rule.json",
    JSON.stringify({
      ...RULES["rules/free-small-teams.rule.json"] as object,
      when: {
        op: "and",
        conditions: [
          { op: "eq", path: "ctx.plan", value: "free" },
          { op: "lte", path: "ctx.seats", value: 10 },
        ],
      },
    }),
  );
  const duplicate = await s.run([
    "policies",
    "add-rule",
    "--policy-key",
    "billing.invoice.create",
    "--rule-file",
    "rules/free-small-teams.rule.json",
  ]);
  assertError(duplicate, 1, "DUPLICATE_RULE_ID");
  assert.match(duplicate.stderr, /hint: pass --replace/);
  const replaced = await add(
    "billing.invoice.create",
    "rules/free-small-teams.rule.json",
    "--replace",
  );
  assert.match(
    replaced.stdout,
    /^replaced rule free-small-teams of policy billing\.invoice\.create/m,
  );
  const [invoice] = await draftPolicies();
  assert.deepEqual(invoice!.rules.map((r) => r.id), ["paid-plans", "free-small-teams"]);

  // The draft decides without a build.
  assert.deepEqual(await decideDraft(s, INVOICE, { plan: "free", seats: 8 }), {
    decision: "allow",
    reason: "rule",
    policyKey: "billing.invoice.create",
    ruleId: "free-small-teams",
  });

  // Thursday: an index rebuild. Flip the kill switch, check, flip it back; then search needs no
  // default of its own.
  const setStatus = (status: string) =>
    policyJson(
      s,
      0,
      "policies",
      "set-status",
      "--policy-key",
      "search.index.query",
      "--rule-id",
      "search-off",
      status,
    );
  assert.equal((await setStatus("active")).changed, true);
  const down = await decideDraft(s, SEARCH, { tenant: "t-1" });
  assert.deepEqual([down.decision, down.ruleId], ["kill_switch", "search-off"]);
  assert.equal((await setStatus("disabled")).changed, true);
  const removed = await policyJson(
    s,
    0,
    "policies",
    "update-policy",
    "--policy-key",
    "search.index.query",
    "--defaults-effect",
    "none",
  );
  assert.equal(removed.defaults, null);
  assert.equal(
    Object.hasOwn(
      (await draftPolicies()).find((p) => p.policyKey === "search.index.query")!,
      "defaults",
    ),
    false,
  );

  // Friday: why is a free team of 12 refused? The trace names the condition that failed.
  // The condition-level trace, on the draft.
  const context = JSON.stringify({ plan: "free", seats: 12 });
  const target = ["--service", "billing", "--resource", "invoice", "--action", "create"];
  const traced = await policyJson(
    s,
    0,
    "simulate",
    "--draft",
    ...target,
    "--context",
    context,
    "--trace",
    "full",
  );
  const rules = (traced.trace as { rules: Record<string, unknown>[] }).rules;
  const free = rules.find((r) => r.ruleId === "free-small-teams")!;
  assert.equal(free.outcome, "skipped (when_false)");
  assert.deepEqual(
    [
      (free.falseBecause as Record<string, unknown>).path,
      (free.falseBecause as Record<string, unknown>).value,
    ],
    ["ctx.seats", 12],
  );
  const text = await policy(
    s,
    0,
    "simulate",
    "--draft",
    ...target,
    "--context",
    context,
    "--trace",
    "full",
  );
  assert.match(text.stdout, /false because: ctx\.seats \(12\) <= 10 ✗/);

  // A folder of suites, a filter, a coverage threshold.
  for (const [file, suite] of Object.entries(SUITES)) await s.write(file, suite);
  const all = await policyJson(s, 0, "simulate", "--draft", "--suite", "suites");
  assert.deepEqual(
    (all.summary as Record<string, number>).failed,
    0,
    JSON.stringify(all.scenarios),
  );
  assert.equal((all.suites as unknown[]).length, 2);
  const filtered = await policyJson(
    s,
    0,
    "simulate",
    "--draft",
    "--suite",
    "suites",
    "--run",
    "^free plan",
    "--coverage-threshold",
    "25",
  );
  assert.deepEqual(
    [
      (filtered.summary as Record<string, number>).scenarios,
      (filtered.summary as Record<string, number>).skipped,
    ],
    [2, 3],
  );
  // One of the four active rules was exercised (25 %): a threshold of 75 % is not met (exit 4).
  const below = await s.json([
    "simulate",
    "--draft",
    "--suite",
    "suites",
    "--run",
    "^free plan",
    "--coverage-threshold",
    "75",
  ]);
  assert.equal(below.code, 4, below.stderr);
  assert.equal((below.doc.coverage as { belowThreshold: boolean }).belowThreshold, true);

  // The end of the week: the files people wrote are laid out as the CLI writes the draft.
  const unformatted = await policyJson(s, 1, "fmt", "--check");
  assert.deepEqual(
    (unformatted.files as { path: string; status: string }[])
      .filter((f) => f.status === "unformatted").map((f) => f.path.slice(s.wf.length + 1)),
    [
      ...Object.keys(RULES).sort(),
      "suites/billing.suite.json",
      "suites/search/search.suite.json",
    ],
    "the draft the CLI wrote is formatted; the rule files and suites typed compact are not",
  );
  await policy(s, 0, "fmt");
  await policy(s, 0, "fmt", "--check");

  // Build, sign, inspect: the bundle a service loads.
  await policy(s, 0, "validate", "--strict");
  const built = await policyJson(s, 0, "build", "--org-id", "acme", "--project-id", "shop");
  assert.deepEqual([built.policyCount, built.ruleCount, built.signed], [3, 5, false]);
  await policy(s, 0, "keys", "generate", "--algorithm", "ECDSA_SHA_256", "--out-dir", "keys");
  const signed = await policyJson(
    s,
    0,
    "sign",
    "--ecdsa-private-key",
    "keys/private-key.pem",
    "--signing-key-id",
    "release-1",
  );
  assert.deepEqual(signed.signature, { algorithm: "ECDSA_SHA_256", keyId: "release-1" });
  const inspected = await policyJson(
    s,
    0,
    "inspect",
    "--policies",
    "--signature",
    "--public-key",
    `${s.wf}/keys/public-key.pem`,
  );
  assert.equal((inspected.verification as { status: string }).status, "valid");
  assert.deepEqual(
    (inspected.policies as { policyKey: string; rules: { id: string; status: string }[] }[]).map(
      (p) => [p.policyKey, p.rules.map((r) => `${r.id}:${r.status}`)],
    ),
    [
      ["billing.invoice.create", ["paid-plans:active", "free-small-teams:active"]],
      ["billing.invoice.export", ["export-per-tenant:active"]],
      ["search.index.query", ["search-open:active", "search-off:disabled"]],
    ],
  );
  // The signed bundle decides as the draft did, and the suites pass against it.
  const suite = await s.json(["simulate", "--suite", "suites/billing.suite.json"], {
    env: { POLICY_PUBLIC_KEY_PATH: `${s.wf}/keys/public-key.pem` },
  });
  assert.equal(suite.code, 0, suite.stdout + suite.stderr);
  assert.equal((suite.doc.verification as { status: string }).status, "verified");
  assert.equal((suite.doc.summary as { failed: number }).failed, 0);
  const listed = await policyJson(s, 0, "policies", "list");
  assert.deepEqual(
    (listed.policies as { policyKey: string; defaultsEffect: string | null }[]).map((p) => [
      p.policyKey,
      p.defaultsEffect,
    ]),
    [["billing.invoice.create", "deny"], ["billing.invoice.export", null], [
      "search.index.query",
      null,
    ]],
  );
});
