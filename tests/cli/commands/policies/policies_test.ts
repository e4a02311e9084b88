import assert from "node:assert/strict";
import * as path from "node:path";
import { assertError, assertShape, draftWith, rule, scratch } from "../../_helpers.ts";

const UPDATE_SHAPE = {
  formatVersion: "number",
  draftPath: "string",
  policyKey: "string",
  created: "boolean",
  activeVersion: "number",
  defaultsEffect: "string|null",
  defaults: "object|null",
  ruleCount: "number",
  warnings: "array",
};

const ADD_SHAPE = {
  formatVersion: "number",
  draftPath: "string",
  policyKey: "string",
  ruleId: "string",
  status: "string",
  priority: "number",
  target: "object",
  effect: "string",
  thenEffect: "string|null",
  elseEffect: "string|null",
  ruleCount: "number",
  replaced: "boolean",
  warnings: "array",
};

const update = (
  ...flags: string[]
) => ["policies", "update-policy", "--create", "--policy-key", "billing", ...flags];

Deno.test("update-policy creates a missing policy and sets its default", async () => {
  await using s = await scratch();
  await s.run(["working-folder", "init"]);
  const r = await s.json(update("--defaults-effect", "deny"));
  assert.equal(r.code, 0, r.stderr);
  assertShape(r.doc, UPDATE_SHAPE);
  assert.equal(r.doc.created, true);
  assert.equal(r.doc.activeVersion, 1);
  assert.equal(r.doc.defaultsEffect, "deny");
  assert.equal(r.doc.draftPath, path.join(s.wf, "policy-drafts.json"));
  const draft = await s.readJson("policy-drafts.json");
  assert.deepEqual(draft.policies, [{
    policyKey: "billing",
    activeVersion: 1,
    friendlyName: "billing",
    rules: [],
    defaults: { effect: "deny" },
  }]);
  const again = await s.json(update("--defaults-effect", "allow", "--active-version", "4"));
  assert.equal(again.doc.created, false);
  assert.equal(again.doc.activeVersion, 4);
});

Deno.test("update-policy builds each effect's descriptor from its flags", async () => {
  await using s = await scratch();
  await s.run(["working-folder", "init"]);
  const cases: [string[], unknown][] = [
    [["--defaults-effect", "allow"], { effect: "allow" }],
    [
      [
        "--defaults-effect",
        "kill_switch",
        "--kill-switch-service",
        "payments",
        "--kill-switch-reason",
        "incident",
      ],
      { effect: "kill_switch", killSwitch: { service: "payments", reason: "incident" } },
    ],
    [
      ["--defaults-effect", "kill_switch", "--kill-switch-service", "payments"],
      { effect: "kill_switch", killSwitch: { service: "payments" } },
    ],
    [
      [
        "--defaults-effect",
        "throttle",
        "--throttle-limit",
        "100",
        "--throttle-window-seconds",
        "60",
        "--throttle-key",
        "tenant",
      ],
      { effect: "throttle", throttle: { limit: 100, windowSeconds: 60, key: "tenant" } },
    ],
    [["--defaults-effect", "custom", "--custom-effect", '{"tier":"gold"}'], {
      effect: "custom",
      customEffect: '{"tier":"gold"}',
    }],
  ];
  for (const [flags, defaults] of cases) {
    const r = await s.json(update(...flags));
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(r.doc.defaults, defaults);
    const draft = await s.readJson("policy-drafts.json");
    assert.deepEqual((draft.policies as { defaults: unknown }[])[0]!.defaults, defaults);
  }
});

Deno.test("update-policy refuses missing or mismatched descriptor flags and bad values", async () => {
  await using s = await scratch();
  await s.run(["working-folder", "init"]);
  assertError(await s.run(update("--defaults-effect", "kill_switch")), 2, "USAGE_ERROR");
  assertError(
    await s.run(
      update("--defaults-effect", "throttle", "--throttle-limit", "5", "--throttle-key", "ip"),
    ),
    2,
    "USAGE_ERROR",
  );
  assertError(
    await s.run(update("--defaults-effect", "deny", "--throttle-limit", "5")),
    2,
    "USAGE_ERROR",
  );
  assertError(await s.run(update("--defaults-effect", "custom")), 2, "USAGE_ERROR");
  assertError(await s.run(update("--defaults-effect", "block")), 2, "USAGE_ERROR");
  assertError(
    await s.run(update(
      "--defaults-effect",
      "throttle",
      "--throttle-limit",
      "ten",
      "--throttle-window-seconds",
      "1",
      "--throttle-key",
      "ip",
    )),
    2,
    "USAGE_ERROR",
  );
  // Values the engine refuses (a window of 0 seconds) are refused with its rules.
  assertError(
    await s.run(update(
      "--defaults-effect",
      "throttle",
      "--throttle-limit",
      "10",
      "--throttle-window-seconds",
      "0",
      "--throttle-key",
      "ip",
    )),
    1,
    "DEFAULTS_INVALID",
  );
  assertError(
    await s.run(["policies", "update-policy", "--defaults-effect", "deny"]),
    2,
    "USAGE_ERROR",
  );
});

Deno.test("update-policy without a draft says how to create one", async () => {
  await using s = await scratch();
  const r = await s.run(update("--defaults-effect", "deny"));
  assertError(r, 2, "DOCUMENT_READ_ERROR");
  assert.match(r.stderr, /working-folder init/);
});

Deno.test("add-rule adds a valid rule and prints key, rule id, priority and effect", async () => {
  await using s = await scratch();
  await draftWith(s, []);
  await s.write(
    "r.json",
    rule("paid", {
      priority: 20,
      when: { op: "eq", path: "plan", value: "free" },
      thenEffect: { type: "deny" },
    }),
  );
  const text = await s.run([
    "policies",
    "add-rule",
    "--policy-key",
    "billing",
    "--rule-file",
    "r.json",
  ]);
  assert.equal(text.code, 0, text.stderr);
  assert.match(text.stdout, /key: +billing/);
  assert.match(text.stdout, /rule id: +paid/);
  assert.match(text.stdout, /priority: +20/);
  assert.match(text.stdout, /effect: +allow/);
  await s.write(
    "r2.json",
    rule("second", {
      effect: { type: "throttle", throttle: { limit: 1, windowSeconds: 1, key: "ip" } },
    }),
  );
  const r = await s.json([
    "policies",
    "add-rule",
    "--policy-key",
    "billing",
    "--rule-file",
    "r2.json",
  ]);
  assertShape(r.doc, ADD_SHAPE);
  assert.deepEqual(
    [r.doc.ruleId, r.doc.priority, r.doc.effect, r.doc.thenEffect, r.doc.ruleCount],
    ["second", 10, "throttle", null, 2],
  );
  const draft = await s.readJson("policy-drafts.json");
  assert.deepEqual(
    (draft.policies as { rules: { id: string }[] }[])[0]!.rules.map((x) => x.id),
    ["paid", "second"],
  );
});

Deno.test("add-rule refuses a rule id already used in the policy (DUPLICATE_RULE_ID, exit 1)", async () => {
  await using s = await scratch();
  await draftWith(s, [rule("r1")]);
  await s.write("dup.json", rule("r1", { priority: 99 }));
  const r = await s.json([
    "policies",
    "add-rule",
    "--policy-key",
    "billing",
    "--rule-file",
    "dup.json",
  ]);
  assertError(r, 1, "DUPLICATE_RULE_ID");
  assert.equal((r.doc.error as { code: string }).code, "DUPLICATE_RULE_ID");
});

Deno.test("add-rule validates the rule with the engine's rules and leaves the draft unchanged", async () => {
  await using s = await scratch();
  await draftWith(s, []);
  const before = await s.read("policy-drafts.json");
  for (
    const bad of [
      rule("x", { status: "on" }),
      rule("x", { priority: "high" }),
      rule("x", { target: { service: "billing", resource: "invoice" } }),
      rule("x", { effect: { type: "kill_switch" } }),
      { status: "active", priority: 1, target: rule("x").target, effect: { type: "allow" } },
    ]
  ) {
    await s.write("bad.json", bad);
    const r = await s.run([
      "policies",
      "add-rule",
      "--policy-key",
      "billing",
      "--rule-file",
      "bad.json",
    ]);
    assertError(r, 1, "RULE_INVALID");
  }
  assert.equal(await s.read("policy-drafts.json"), before);
});

Deno.test("add-rule warns on a wildcard target and refuses it under --strict", async () => {
  await using s = await scratch();
  await draftWith(s, []);
  await s.write(
    "wild.json",
    rule("w", { target: { service: "billing", resource: "*", action: "create" } }),
  );
  const strict = await s.run([
    "policies",
    "add-rule",
    "--policy-key",
    "billing",
    "--rule-file",
    "wild.json",
    "--strict",
  ]);
  assertError(strict, 1, "RULE_INVALID");
  const lax = await s.run([
    "policies",
    "add-rule",
    "--policy-key",
    "billing",
    "--rule-file",
    "wild.json",
  ]);
  assert.equal(lax.code, 0);
  assert.match(lax.stderr, /TARGET_WILDCARD_LITERAL/);
});

Deno.test("add-rule refuses an unknown policy with a suggestion, and an unreadable rule file", async () => {
  await using s = await scratch();
  await draftWith(s, []);
  await s.write("r.json", rule("r"));
  const r = await s.run([
    "policies",
    "add-rule",
    "--policy-key",
    "biling",
    "--rule-file",
    "r.json",
  ]);
  assertError(r, 1, "POLICY_NOT_FOUND");
  assert.match(r.stderr, /did you mean billing\?/);
  assertError(
    await s.run(["policies", "add-rule", "--policy-key", "billing", "--rule-file", "nope.json"]),
    2,
    "DOCUMENT_READ_ERROR",
  );
  await s.write("broken.json", "{ not json");
  assertError(
    await s.run(["policies", "add-rule", "--policy-key", "billing", "--rule-file", "broken.json"]),
    2,
    "DOCUMENT_PARSE_ERROR",
  );
});

Deno.test("draft edits keep fields the CLI does not know", async () => {
  await using s = await scratch();
  await s.write("policy-drafts.json", {
    schemaVersion: "1.0",
    generatedAt: "2026-01-01T00:00:00Z",
    source: { tool: "analyze" },
    policies: [{
      policyKey: "billing",
      activeVersion: 2,
      friendlyName: "Billing",
      discoveredTarget: { service: "billing", resource: "invoice", action: "create" },
      status: "missing",
      rules: [],
    }],
  });
  assert.equal((await s.run(update("--defaults-effect", "deny"))).code, 0);
  const draft = await s.readJson("policy-drafts.json");
  assert.deepEqual(draft.source, { tool: "analyze" });
  const policy = (draft.policies as Record<string, unknown>[])[0]!;
  assert.equal(policy.status, "missing");
  assert.deepEqual(policy.discoveredTarget, {
    service: "billing",
    resource: "invoice",
    action: "create",
  });
  assert.equal(policy.activeVersion, 2);
});

const addRule = (file: string, key = "billing") => [
  "policies",
  "add-rule",
  "--policy-key",
  key,
  "--rule-file",
  file,
];

Deno.test("add-rule warns on an unknown rule field with the closest name, and --strict refuses it", async () => {
  await using s = await scratch();
  await draftWith(s, []);
  await s.write(
    "typo.json",
    rule("typo", {
      when: { op: "eq", path: "plan", value: "free" },
      thenEfect: { type: "deny" }, // meant thenEffect: without it, a free plan is allowed
    }),
  );
  const strict = await s.run([...addRule("typo.json"), "--strict"]);
  assertError(strict, 1, "RULE_INVALID");
  const r = await s.json(addRule("typo.json"));
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(r.doc.warnings, [{
    code: "UNKNOWN_FIELD",
    message:
      'policy "billing", rule "typo": unknown field "thenEfect" (did you mean "thenEffect"?), which the runtime ignores; correct or remove it (at /thenEfect)',
  }]);
});

Deno.test("add-rule warns when a rule's target is neither the policy's discovered target nor another rule's", async () => {
  await using s = await scratch();
  await s.write("policy-drafts.json", {
    schemaVersion: "1.0",
    generatedAt: "2026-01-01T00:00:00Z",
    policies: [{
      policyKey: "billing.invoice.create",
      activeVersion: 1,
      friendlyName: "billing invoice create",
      discoveredTarget: { service: "billing", resource: "invoice", action: "create" },
      rules: [],
    }],
  });
  await s.write(
    "plural.json",
    rule("plural", { target: { service: "billing", resource: "invoices", action: "create" } }),
  );
  const key = "billing.invoice.create";
  assertError(await s.run([...addRule("plural.json", key), "--strict"]), 1, "RULE_INVALID");
  const r = await s.json(addRule("plural.json", key));
  assert.equal(r.code, 0, r.stderr);
  const [warning] = r.doc.warnings as { code: string; message: string }[];
  assert.equal(warning!.code, "RULE_TARGET_UNMATCHED");
  assert.match(
    warning!.message,
    /target billing\/invoices\/create is neither the policy's discoveredTarget \(billing\/invoice\/create\)/,
  );
  assert.match(warning!.message, /did you mean billing\/invoice\/create\?/);
  // validate (the CI step) says the same about the draft, and fails under --strict.
  const validated = await s.json(["validate", "--strict"]);
  assert.equal(validated.code, 1);
  assert.deepEqual((validated.doc.warnings as { code: string }[]).map((w) => w.code), [
    "RULE_TARGET_UNMATCHED",
  ]);
  await s.write(
    "right.json",
    rule("right", { target: { service: "billing", resource: "invoice", action: "create" } }),
  );
  const right = await s.json(addRule("right.json", key));
  assert.deepEqual(right.doc.warnings, [], "a rule on the discovered target draws no warning");
});

Deno.test("update-policy does not warn about a policy that simply has no rules yet, and says plainly what is wrong with a default", async () => {
  await using s = await scratch();
  await s.run(["working-folder", "init"]);
  const created = await s.json(update("--defaults-effect", "deny"));
  assert.deepEqual(created.doc.warnings, []);
  assert.equal(created.stderr, "");
  const text = await s.run(update("--defaults-effect", "allow"));
  assert.equal(text.stderr, "");
  assert.match(
    text.stdout,
    /rules: +0 \(the default applies at the targets the policy's rules name: add one with 'policy policies add-rule'\)/,
  );
  // validate and build still say it while it is so.
  const validated = await s.json(["validate"]);
  assert.deepEqual(
    (validated.doc.warnings as { code: string }[]).map((w) => w.code),
    ["DEFAULTS_UNREACHABLE"],
  );
  const r = await s.run(update(
    "--defaults-effect",
    "throttle",
    "--throttle-limit",
    "10",
    "--throttle-window-seconds",
    "0",
    "--throttle-key",
    "ip",
  ));
  assertError(r, 1, "DEFAULTS_INVALID");
  assert.match(
    r.stderr,
    /error: policy "billing": a throttle default needs throttle: \{limit >= 0, windowSeconds > 0, key \(string\)\} \(INVALID_DEFAULT_EFFECT\); the draft was not changed \(DEFAULTS_INVALID\)/,
  );
  assert.doesNotMatch(r.stderr, /defaults a throttle/);
});

Deno.test("drafts and rule files take comments; rewriting a commented draft says the comments go", async () => {
  await using s = await scratch();
  await s.write(
    "policy-drafts.json",
    `// written by hand
{
  "schemaVersion": "1.0",
  "generatedAt": "2026-01-01T00:00:00Z",
  "policies": [
    { "policyKey": "billing", "activeVersion": 1, "rules": [], }, // trailing commas too
  ],
}
`,
  );
  await s.write(
    "r.json",
    `{
  // the paid plans
  "id": "paid", "status": "active", "priority": 1,
  "target": { "service": "billing", "resource": "invoice", "action": "create" },
  "effect": { "type": "allow" },
}`,
  );
  const r = await s.json(addRule("r.json"));
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual((r.doc.warnings as { code: string }[]).map((w) => w.code), [
    "DRAFT_COMMENTS_DROPPED",
  ]);
  const again = await s.json(update("--defaults-effect", "deny"));
  assert.deepEqual(again.doc.warnings, [], "the rewritten draft has no comments left to lose");
});

Deno.test("rewriting the draft or the bundle keeps its file mode", {
  ignore: Deno.build.os === "windows",
}, async () => {
  await using s = await scratch();
  await draftWith(s, [rule("a")]);
  const draft = path.join(s.wf, "policy-drafts.json");
  await Deno.chmod(draft, 0o600);
  await s.write("b.json", rule("b"));
  assert.equal((await s.run(addRule("b.json"))).code, 0);
  assert.equal((await Deno.stat(draft)).mode! & 0o777, 0o600);
  assert.equal((await s.run(["build"])).code, 0);
  const bundle = path.join(s.wf, "policy-bundle.json");
  await Deno.chmod(bundle, 0o600);
  assert.equal((await s.run(["build"])).code, 0);
  assert.equal((await Deno.stat(bundle)).mode! & 0o777, 0o600);
});

Deno.test("update-policy refuses a key the draft does not have, naming the close one, and creates only with --create", async () => {
  await using s = await scratch();
  await s.run(["working-folder", "init"]);
  const key = (k: string, ...flags: string[]) => [
    "policies",
    "update-policy",
    "--policy-key",
    k,
    "--defaults-effect",
    "deny",
    ...flags,
  ];
  assert.equal((await s.run(key("catalog.product.list", "--create"))).code, 0);
  const before = await s.read("policy-drafts.json");
  for (const json of [false, true]) {
    const typo = await s.run(key("catalog.prodcut.list", ...(json ? ["--format", "json"] : [])));
    assertError(typo, 1, "POLICY_NOT_FOUND");
    assert.match(
      typo.stderr,
      /the draft has no policy "catalog.prodcut.list"; did you mean catalog.product.list\?/,
    );
    assert.match(typo.stderr, /hint: pass --create/);
    if (json) {
      assert.match(JSON.parse(typo.stdout).error.message, /did you mean catalog.product.list\?/);
    }
  }
  assert.equal(await s.read("policy-drafts.json"), before, "the draft is unchanged");
  const created = await s.json(key("catalog.prodcut.list", "--create"));
  assert.equal(created.code, 0, created.stderr);
  assert.equal(created.doc.created, true);
  const again = await s.json(key("catalog.prodcut.list", "--create"));
  assert.equal(again.doc.created, false, "--create on a key the draft has updates it");
  const keys = ((await s.readJson("policy-drafts.json")).policies as { policyKey: string }[])
    .map((p) => p.policyKey);
  assert.deepEqual(keys, ["catalog.product.list", "catalog.prodcut.list"]);
  // add-rule never creates, and says how to.
  await s.write("r.json", rule("r"));
  const add = await s.run(addRule("r.json", "catalog.product.lst"));
  assertError(add, 1, "POLICY_NOT_FOUND");
  assert.match(add.stderr, /did you mean catalog.product.list\?/);
  assert.match(add.stderr, /update-policy --create --policy-key "catalog.product.lst"/);
});

Deno.test("add-rule refusing a rule with mistyped fields names the fields it meant, as validate does", async () => {
  await using s = await scratch();
  await draftWith(s, []);
  const typo = rule("typo", { priorty: 10, efect: { type: "allow" } });
  delete typo.priority;
  delete typo.effect;
  await s.write("typo.json", typo);
  for (const json of [false, true]) {
    const r = await s.run([...addRule("typo.json"), ...(json ? ["--format", "json"] : [])]);
    assertError(r, 1, "RULE_INVALID");
    const message = json ? JSON.parse(r.stdout).error.message : r.stderr;
    assert.match(message, /unknown field "priorty" \(did you mean "priority"\?\)/);
    assert.match(message, /unknown field "efect" \(did you mean "effect"\?\)/);
  }
  // The hint is validate's own: the same words for the same rule in a draft.
  const draft = await s.readJson("policy-drafts.json");
  (draft.policies as { rules: unknown[] }[])[0]!.rules.push(typo);
  await s.write("check.json", draft);
  const validated = await s.json(["validate", "check.json"]);
  const messages = (validated.doc.warnings as { message: string }[]).map((w) => w.message);
  assert.ok(messages.some((m) => m.includes('unknown field "priorty" (did you mean "priority"?)')));
});

Deno.test("add-rule shows a rule's status in text output: a disabled kill switch does not read as live", async () => {
  await using s = await scratch();
  await draftWith(s, []);
  await s.write(
    "off.json",
    rule("payments-off", {
      status: "disabled",
      effect: { type: "kill_switch", killSwitch: { service: "payments" } },
    }),
  );
  const off = await s.run(addRule("off.json"));
  assert.equal(off.code, 0, off.stderr);
  assert.match(off.stdout, /added disabled rule payments-off/);
  assert.match(off.stdout, /status: +disabled \(never fires\)/);
  await s.write("on.json", rule("live"));
  const on = await s.run(addRule("on.json"));
  assert.match(on.stdout, /status: +active/);
});

Deno.test("a mistyped condition operator gets a 'did you mean' from validate and add-rule", async () => {
  await using s = await scratch();
  await draftWith(s, []);
  const cases: [string, string][] = [
    ["equals", "eq"],
    ["==", "eq"],
    ["not_equals", "neq"],
    ["greaterThan", "gt"],
    ["exist", "exists"],
    ["lte ", "lte"],
  ];
  for (const [op, meant] of cases) {
    await s.write("op.json", rule(`r-${meant}`, { when: { op, path: "plan", value: 1 } }));
    // Refused by default, with the same "did you mean" (docs/cli.md "policies add-rule").
    const refused = await s.run(addRule("op.json"));
    assertError(refused, 1, "RULE_INVALID");
    assert.match(refused.stderr, new RegExp(`did you mean "${meant}"\\?`), op);
    const r = await s.json([...addRule("op.json"), "--allow-unknown-operators"]);
    const warning = (r.doc.warnings as { code: string; message: string }[])
      .find((w) => w.code === "CONDITION_UNKNOWN_OPERATOR");
    assert.ok(warning, `${op}: ${r.stdout}`);
    assert.match(warning.message, new RegExp(`did you mean "${meant}"\\?`), op);
    // Added with --allow-unknown-operators (newer bundles on older runtimes); remove it again.
    const draft = await s.readJson("policy-drafts.json");
    (draft.policies as { rules: unknown[] }[])[0]!.rules.pop();
    await s.write("policy-drafts.json", draft);
  }
  await s.write("op.json", rule("far", { when: { op: "regexMatch", path: "plan", value: 1 } }));
  const far = await s.json([...addRule("op.json"), "--allow-unknown-operators"]);
  assert.doesNotMatch(JSON.stringify(far.doc.warnings), /did you mean/);
  const validated = await s.json(["validate"]);
  const messages = (validated.doc.warnings as { message: string }[]).map((w) => w.message);
  assert.ok(messages.some((m) => /unknown operator "regexMatch" always evaluates/.test(m)));
});
