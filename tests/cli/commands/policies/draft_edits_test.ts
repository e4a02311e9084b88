/**
 * The draft's edit commands (docs/cli.md, "policies list" … "policies
 * rename"): each changes the draft through the guarded path, prints its
 * documented JSON, refuses unknown keys and rule ids with a "did you mean"
 * and leaves the draft unchanged when it refuses.
 */
import assert from "node:assert/strict";
import { assertError, assertShape, draftWith, rule, scratch } from "../../_helpers.ts";

interface DraftRule {
  id: string;
  status: string;
  priority: number;
  effect: { type: string };
}
interface DraftPolicy {
  policyKey: string;
  friendlyName?: string;
  discoveredTarget?: unknown;
  rules: DraftRule[];
  defaults?: unknown;
}

/** `policies remove-rule` of policy `billing`. */
const removeRule = (
  id: string,
) => ["policies", "remove-rule", "--policy-key", "billing", "--rule-id", id];
/** `policies set-status` of a rule of policy `billing`. */
const setStatus = (
  id: string,
  status: string,
) => ["policies", "set-status", "--policy-key", "billing", "--rule-id", id, status];
/** `policies update-policy --defaults-effect` of policy `billing`. */
const defaultsEffect = (
  effect: string,
  ...more: string[]
) => ["policies", "update-policy", "--policy-key", "billing", "--defaults-effect", effect, ...more];
/** `policies add-rule` to policy `billing`. */
const addRule = (
  file: string,
  ...more: string[]
) => ["policies", "add-rule", "--policy-key", "billing", "--rule-file", file, ...more];

const policies = async (s: Awaited<ReturnType<typeof scratch>>) =>
  (await s.readJson("policy-drafts.json")).policies as DraftPolicy[];

const REMOVE_RULE_SHAPE = {
  formatVersion: "number",
  draftPath: "string",
  policyKey: "string",
  ruleId: "string",
  removed: "object",
  ruleCount: "number",
  warnings: "array",
};

const SET_STATUS_SHAPE = {
  formatVersion: "number",
  draftPath: "string",
  policyKey: "string",
  ruleId: "string",
  status: "string",
  previousStatus: "string|null",
  changed: "boolean",
  warnings: "array",
};

const REMOVE_SHAPE = {
  formatVersion: "number",
  draftPath: "string",
  policyKey: "string",
  ruleCount: "number",
  defaultsEffect: "string|null",
  discoveredTarget: "object|null",
  policyCount: "number",
  warnings: "array",
};

const RENAME_SHAPE = {
  formatVersion: "number",
  draftPath: "string",
  policyKey: "string",
  previousPolicyKey: "string",
  friendlyName: "string|null",
  discoveredTarget: "object|null",
  ruleCount: "number",
  warnings: "array",
};

const LIST_SHAPE = {
  formatVersion: "number",
  draftPath: "string",
  policyCount: "number",
  ruleCount: "number",
  policies: "array",
  warnings: "array",
};

const LISTED_POLICY_SHAPE = {
  policyKey: "string",
  friendlyName: "string|null",
  activeVersion: "number|null",
  discoveredTarget: "object|null",
  targets: "array",
  defaults: "object|null",
  defaultsEffect: "string|null",
  ruleCount: "number",
  statusCounts: "object",
  rules: "array",
};

const LISTED_RULE_SHAPE = {
  id: "string|null",
  status: "string|null",
  priority: "number|null",
  effect: "string|null",
  target: "object|null",
};

Deno.test("policies remove-rule removes one rule, keeps the others in order, and says what it removed", async () => {
  await using s = await scratch();
  await draftWith(s, [rule("a"), rule("b", { priority: 20 }), rule("c")]);
  const r = await s.json(removeRule("b"));
  assert.equal(r.code, 0, r.stderr);
  assertShape(r.doc, REMOVE_RULE_SHAPE);
  assert.equal(r.doc.ruleCount, 2);
  assert.deepEqual(r.doc.removed, rule("b", { priority: 20 }));
  assert.deepEqual((await policies(s))[0]!.rules.map((x) => x.id), ["a", "c"]);
  const text = await s.run(removeRule("a"));
  assert.equal(text.code, 0, text.stderr);
  assert.match(text.stdout, /^removed rule a from policy billing in .*policy-drafts\.json$/m);
  assert.match(text.stdout, /was: +active, priority 10, allow/);
  assert.match(text.stdout, /rules left: 1 rule/);
});

Deno.test("removing the last rule of a policy that has a default warns DEFAULTS_UNREACHABLE", async () => {
  await using s = await scratch();
  await draftWith(s, [rule("only")]);
  const r = await s.json(removeRule("only"));
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual((r.doc.warnings as { code: string }[]).map((w) => w.code), [
    "DEFAULTS_UNREACHABLE",
  ]);
  assert.match(r.stderr, /policy "billing" has no rules left/);
});

Deno.test("an unknown rule id is RULE_NOT_FOUND (exit 1) with the closest id, and the draft is unchanged", async () => {
  await using s = await scratch();
  await draftWith(s, [rule("paid-plans"), rule("free-small-teams")]);
  const before = await s.read("policy-drafts.json");
  for (
    const args of [
      removeRule("paid-plan"),
      setStatus("paid-plan", "disabled"),
    ]
  ) {
    const r = await s.json(args);
    assertError(r, 1, "RULE_NOT_FOUND");
    assert.equal((r.doc.error as { code: string }).code, "RULE_NOT_FOUND");
    assert.match(
      r.stderr,
      /error: policy "billing" has no rule "paid-plan"; did you mean paid-plans\? \(RULE_NOT_FOUND\)/,
    );
    assert.match(r.stderr, /hint: run 'policy policies list'/);
  }
  assert.equal(await s.read("policy-drafts.json"), before);
});

Deno.test("an unknown policy key is POLICY_NOT_FOUND (exit 1) with the closest key, for every edit command", async () => {
  await using s = await scratch();
  await draftWith(s, [rule("a")]);
  const before = await s.read("policy-drafts.json");
  for (
    const args of [
      ["policies", "remove-rule", "--policy-key", "biling", "--rule-id", "a"],
      ["policies", "set-status", "--policy-key", "biling", "--rule-id", "a", "active"],
      ["policies", "remove", "--policy-key", "biling"],
      ["policies", "rename", "--policy-key", "biling", "--to", "x"],
    ]
  ) {
    const r = await s.run(args);
    assertError(r, 1, "POLICY_NOT_FOUND");
    assert.match(r.stderr, /the draft has no policy "biling"; did you mean billing\?/, args[1]);
  }
  assert.equal(await s.read("policy-drafts.json"), before);
});

Deno.test("policies set-status flips a rule, and leaves a rule already in that status untouched", async () => {
  await using s = await scratch();
  await draftWith(s, [
    rule("search-off", {
      status: "disabled",
      priority: 100,
      effect: { type: "kill_switch", killSwitch: { service: "search", reason: "rebuild" } },
    }),
  ]);
  const on = await s.json(setStatus("search-off", "active"));
  assert.equal(on.code, 0, on.stderr);
  assertShape(on.doc, SET_STATUS_SHAPE);
  assert.deepEqual(
    [on.doc.status, on.doc.previousStatus, on.doc.changed],
    ["active", "disabled", true],
  );
  assert.equal((await policies(s))[0]!.rules[0]!.status, "active");

  const file = `${s.wf}/policy-drafts.json`;
  const written = (await Deno.stat(file)).mtime;
  const again = await s.json(setStatus("search-off", "ACTIVE"));
  assert.equal(again.code, 0, again.stderr);
  assert.deepEqual([again.doc.status, again.doc.changed], ["active", false]);
  assert.deepEqual((await Deno.stat(file)).mtime, written, "an unchanged draft is not rewritten");

  const off = await s.run(setStatus("search-off", "disabled"));
  assert.equal(off.code, 0, off.stderr);
  assert.match(off.stdout, /rule search-off of policy billing is now disabled \(was active\)/);
  assert.match(off.stdout, /kill_switch \(search: rebuild\) \(never fires\)/);
});

Deno.test("policies set-status needs active or disabled, with a suggestion for a typo", async () => {
  await using s = await scratch();
  await draftWith(s, [rule("a")]);
  const base = ["policies", "set-status", "--policy-key", "billing", "--rule-id", "a"];
  assertError(await s.run(base), 2, "USAGE_ERROR");
  const typo = await s.run([...base, "disable"]);
  assertError(typo, 2, "USAGE_ERROR");
  assert.match(typo.stderr, /must be active or disabled, not "disable"; did you mean disabled\?/);
  assertError(await s.run([...base, "active", "again"]), 2, "USAGE_ERROR");
});

Deno.test("add-rule --replace puts the new rule in the place of the rule with its id", async () => {
  await using s = await scratch();
  await draftWith(s, [rule("a"), rule("b"), rule("c")]);
  await s.write("b2.json", rule("b", { priority: 42, effect: { type: "deny" } }));
  const add = ["policies", "add-rule", "--policy-key", "billing", "--rule-file", "b2.json"];

  const duplicate = await s.run(add);
  assertError(duplicate, 1, "DUPLICATE_RULE_ID");
  assert.match(duplicate.stderr, /the draft was not changed \(DUPLICATE_RULE_ID\)/);
  assert.match(duplicate.stderr, /hint: pass --replace to replace rule "b" with this one/);

  const r = await s.json([...add, "--replace"]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.doc.replaced, true);
  assert.equal(r.doc.ruleCount, 3);
  const rules = (await policies(s))[0]!.rules;
  assert.deepEqual(rules.map((x) => [x.id, x.priority]), [["a", 10], ["b", 42], ["c", 10]]);

  const text = await s.run([...add, "--replace"]);
  assert.match(text.stdout, /^replaced rule b of policy billing in /m);

  // --replace needs a rule to replace: a typo in the id is not a silent second rule.
  await s.write("bee.json", rule("bb"));
  const missing = await s.run(addRule("bee.json", "--replace"));
  assertError(missing, 1, "RULE_NOT_FOUND");
  assert.match(missing.stderr, /has no rule "bb"; did you mean b\?/);
  assert.equal((await policies(s))[0]!.rules.length, 3);
});

Deno.test("add-rule --replace checks the new rule like add-rule does", async () => {
  await using s = await scratch();
  await draftWith(s, [rule("a")]);
  const before = await s.read("policy-drafts.json");
  await s.write("bad.json", rule("a", { priority: "high" }));
  const r = await s.run(addRule("bad.json", "--replace"));
  assertError(r, 1, "RULE_INVALID");
  assert.equal(await s.read("policy-drafts.json"), before);
});

Deno.test("update-policy --defaults-effect none removes the default", async () => {
  await using s = await scratch();
  await draftWith(s, [rule("a")]);
  const r = await s.json(defaultsEffect("none"));
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual([r.doc.defaultsEffect, r.doc.defaults], [null, null]);
  assert.equal(Object.hasOwn((await policies(s))[0]!, "defaults"), false);
  const text = await s.run(defaultsEffect("none"));
  assert.match(text.stdout, /default effect: \(none\)$/m);
  const flags = await s.run(defaultsEffect("none", "--kill-switch-service", "x"));
  assertError(flags, 2, "USAGE_ERROR");
  assert.match(flags.stderr, /--kill-switch-service applies to --defaults-effect kill_switch/);
  await s.run(defaultsEffect("deny"));
  const removed = await s.run(defaultsEffect("none"));
  assert.match(removed.stdout, /default effect: \(none\); removed deny/);
});

Deno.test("policies remove removes a policy and says when analyze found its target in the code", async () => {
  await using s = await scratch();
  await draftWith(s, [rule("a")]);
  await s.run([
    "policies",
    "update-policy",
    "--create",
    "--policy-key",
    "other",
    "--defaults-effect",
    "allow",
  ]);
  const r = await s.json(["policies", "remove", "--policy-key", "billing"]);
  assert.equal(r.code, 0, r.stderr);
  assertShape(r.doc, REMOVE_SHAPE);
  assert.deepEqual(
    [r.doc.ruleCount, r.doc.defaultsEffect, r.doc.discoveredTarget, r.doc.policyCount],
    [1, "deny", null, 1],
  );
  assert.deepEqual((await policies(s)).map((p) => p.policyKey), ["other"]);

  // A policy analyze wrote: its target is named.
  await s.write(
    "src/app.ts",
    [
      "declare const client: { evaluate(request: unknown): unknown };",
      'client.evaluate({ target: { service: "billing", resource: "invoice", action: "create" } });',
      "",
    ].join("\n"),
  );
  await Deno.remove(`${s.wf}/policy-drafts.json`);
  const analyzed = await s.run(["analyze", "--source", "src"]);
  assert.equal(analyzed.code, 0, analyzed.stderr);
  const text = await s.run(["policies", "remove", "--policy-key", "billing.invoice.create"]);
  assert.equal(text.code, 0, text.stderr);
  assert.match(
    text.stdout,
    /removed policy billing\.invoice\.create \(0 rules, default \(none\)\)/,
  );
  assert.match(
    text.stdout,
    /analyze found billing\/invoice\/create in the code: 'policy analyze --check' reports it missing/,
  );
  const check = await s.run(["analyze", "--source", "src", "--check"]);
  assert.equal(check.code, 1, "analyze --check now finds the target without a policy");
});

Deno.test("policies rename keeps rules, default and discovered target, and refuses a key the draft has", async () => {
  await using s = await scratch();
  await s.write(
    "src/app.ts",
    [
      "declare const client: { evaluate(request: unknown): unknown };",
      'client.evaluate({ target: { service: "billing", resource: "invoice", action: "create" } });',
      "",
    ].join("\n"),
  );
  assert.equal((await s.run(["analyze", "--source", "src"])).code, 0);
  await s.write("r.json", rule("paid"));
  await s.run([
    "policies",
    "add-rule",
    "--policy-key",
    "billing.invoice.create",
    "--rule-file",
    "r.json",
  ]);
  await s.run([
    "policies",
    "update-policy",
    "--create",
    "--policy-key",
    "taken",
    "--defaults-effect",
    "deny",
  ]);
  const before = await s.read("policy-drafts.json");
  const taken = await s.run([
    "policies",
    "rename",
    "--policy-key",
    "billing.invoice.create",
    "--to",
    "taken",
  ]);
  assertError(taken, 1, "POLICY_EXISTS");
  assert.match(taken.stderr, /the draft already has a policy "taken"/);
  assert.equal(await s.read("policy-drafts.json"), before);
  assertError(
    await s.run(["policies", "rename", "--policy-key", "taken", "--to", "taken"]),
    2,
    "USAGE_ERROR",
  );

  const r = await s.json([
    "policies",
    "rename",
    "--policy-key",
    "billing.invoice.create",
    "--to",
    "invoices.create",
  ]);
  assert.equal(r.code, 0, r.stderr);
  assertShape(r.doc, RENAME_SHAPE);
  assert.deepEqual([r.doc.policyKey, r.doc.previousPolicyKey, r.doc.ruleCount], [
    "invoices.create",
    "billing.invoice.create",
    1,
  ]);
  assert.deepEqual(r.doc.discoveredTarget, {
    service: "billing",
    resource: "invoice",
    action: "create",
  });
  const renamed = (await policies(s))[0]!;
  assert.equal(renamed.policyKey, "invoices.create");
  assert.equal(renamed.friendlyName, "billing invoice create", "analyze's friendly name stays");
  assert.deepEqual(renamed.rules.map((x) => x.id), ["paid"]);
  // analyze matches by target: the renamed policy still covers the evaluation point.
  const check = await s.run(["analyze", "--source", "src", "--check"]);
  assert.equal(check.code, 0, check.stdout + check.stderr);
  assert.match(check.stdout, /present +billing\.invoice\.create/);
  // A friendly name that was the key (what --create writes) follows it.
  const followed = await s.json(["policies", "rename", "--policy-key", "taken", "--to", "kept"]);
  assert.equal(followed.doc.friendlyName, "kept");
});

Deno.test("policies list shows key, targets, rules, default and status counts", async () => {
  await using s = await scratch();
  assertError(await s.run(["policies", "list"]), 2, "DOCUMENT_READ_ERROR");
  await draftWith(s, [
    rule("paid", { priority: 20 }),
    rule("off", {
      status: "disabled",
      target: { service: "billing", resource: "invoice", action: "export" },
      effect: { type: "kill_switch", killSwitch: { service: "billing" } },
    }),
  ]);
  await s.run([
    "policies",
    "update-policy",
    "--create",
    "--policy-key",
    "empty",
    "--defaults-effect",
    "none",
  ]);
  const r = await s.json(["policies", "list"]);
  assert.equal(r.code, 0, r.stderr);
  assertShape(r.doc, LIST_SHAPE);
  assert.deepEqual([r.doc.policyCount, r.doc.ruleCount], [2, 2]);
  const [billing, empty] = r.doc.policies as Record<string, unknown>[];
  assertShape(billing, LISTED_POLICY_SHAPE, "policies[0]");
  assertShape((billing!.rules as unknown[])[0], LISTED_RULE_SHAPE, "policies[0].rules[0]");
  assert.deepEqual(billing, {
    policyKey: "billing",
    friendlyName: "billing",
    activeVersion: 1,
    discoveredTarget: null,
    targets: [
      { service: "billing", resource: "invoice", action: "create" },
      { service: "billing", resource: "invoice", action: "export" },
    ],
    defaults: { effect: "deny" },
    defaultsEffect: "deny",
    ruleCount: 2,
    statusCounts: { active: 1, disabled: 1 },
    rules: [
      {
        id: "paid",
        status: "active",
        priority: 20,
        effect: "allow",
        target: { service: "billing", resource: "invoice", action: "create" },
      },
      {
        id: "off",
        status: "disabled",
        priority: 10,
        effect: "kill_switch",
        target: { service: "billing", resource: "invoice", action: "export" },
      },
    ],
  });
  assert.deepEqual([empty!.defaults, empty!.ruleCount, empty!.targets], [null, 0, []]);

  const text = await s.run(["policies", "list"]);
  assert.equal(text.code, 0, text.stderr);
  assert.equal(
    text.stdout.split("\n").slice(1).join("\n"),
    [
      "billing  billing/invoice/create, billing/invoice/export  default deny  2 rules: 1 active, 1 disabled",
      "  paid  active, priority 20, allow",
      "  off   disabled, priority 10, kill_switch (billing)",
      "empty  (no target)  default (none)  0 rules: 0 active, 0 disabled",
      "",
    ].join("\n"),
  );
  const quiet = await s.run(["policies", "list", "--quiet"]);
  assert.match(quiet.stdout, /^billing /, "the listing is what the command prints, also quiet");
});

Deno.test("the edit commands write the draft under the working folder's lock", async () => {
  await using s = await scratch();
  await draftWith(s, [rule("a"), rule("b"), rule("c"), rule("d")]);
  // Four concurrent edits of one draft: none is lost.
  const results = await Promise.all([
    s.run(removeRule("a")),
    s.run(setStatus("b", "disabled")),
    s.run(removeRule("c")),
    s.run(setStatus("d", "disabled")),
  ]);
  for (const r of results) assert.equal(r.code, 0, r.stderr);
  const [only] = await policies(s);
  assert.deepEqual(only!.rules.map((x) => [x.id, x.status]), [["b", "disabled"], [
    "d",
    "disabled",
  ]]);
});
