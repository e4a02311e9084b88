/**
 * Text output never passes a terminal control from data (docs/cli.md, "Output, `--quiet`,
 * `--verbose`"): policy keys, rule ids, descriptions, targets, condition paths and values, file
 * names, licence fields and whatever else a command shows that it did not write itself reach the terminal with their C0
 * and C1 controls, DEL and bidi controls escaped (`\u001b`), so a bundle or a draft cannot rewrite
 * a reviewer's screen (a rule id of `x\r\e[2K\e[1A\e[2K` used to erase its own line of a diff).
 * Every command's text output is fed such data here; JSON output is unchanged (JSON escapes).
 */
import assert from "node:assert/strict";
import { HMAC_SECRET, type RunResult, type Scratch, scratch } from "./_helpers.ts";
import { issueLicense } from "../_license.ts";

const ESC = "\x1b";
/**
 * Data that rewrites a terminal: a carriage return, erase line and cursor up (CSI), a clipboard
 * write (OSC 52, ended by BEL), a C1 CSI, DEL, bidi overrides, isolates and marks, a line
 * separator, and a newline that would start a line of its own.
 */
const H =
  `\r${ESC}[2K${ESC}[1A${ESC}[2K${ESC}]52;c;aGk=\x07\u009b2J\x7f\u202e\u2066\u2069\u200f\u061c\u2028\nFAKE`;

/**
 * What must never reach a terminal raw: C0 controls but the line feed, DEL, C1, the bidi controls
 * (Unicode's Bidi_Control: embeddings, overrides, isolates, marks) and the line and paragraph
 * separators.
 */
const RAW =
  // deno-lint-ignore no-control-regex -- matching control characters is the point
  /[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/u;

/** The text output of `name` holds no raw control, no line started by data, and (when it shows the data) its escaped form. */
function assertEscaped(name: string, result: RunResult, shows = true): void {
  const text = result.stdout + result.stderr;
  const raw = RAW.exec(text);
  assert.equal(
    raw,
    null,
    `${name} prints U+${raw?.[0].codePointAt(0)?.toString(16).padStart(4, "0")} raw:\n${
      JSON.stringify(text)
    }`,
  );
  assert.doesNotMatch(text, /^FAKE/m, `${name}: a newline in data starts a line of its own`);
  if (shows) {
    assert.ok(
      text.includes("\\u001b"),
      `${name} shows the data, escaped:\n${JSON.stringify(text)}`,
    );
  }
}

const TARGET = { service: `billing${H}`, resource: "invoice", action: "create" };

function hostileRule(id: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: `${id}${H}`,
    status: "active",
    priority: 10,
    target: TARGET,
    description: `why${H}`,
    effect: { type: "allow" },
    ...overrides,
  };
}

/** A draft whose every free string carries {@link H}. */
function hostileDraft(): Record<string, unknown> {
  return {
    schemaVersion: "1.0",
    generatedAt: "2026-11-20T08:00:00Z",
    policies: [
      {
        policyKey: `billing${H}`,
        activeVersion: 1,
        friendlyName: `Billing${H}`,
        defaults: { effect: "deny" },
        rules: [
          // Fires always, so the rules below it are shadowed: lint names them.
          hostileRule("always", { priority: 100 }),
          hostileRule("paid", {
            when: { op: "in", path: `ctx.plan${H}`, values: [`pro${H}`, "enterprise"] },
          }),
          hostileRule("custom", {
            priority: 20,
            when: { op: "eq", path: "plan", value: `free${H}` },
            effect: { type: "custom", value: `v${H}` },
          }),
          hostileRule("kill", {
            status: "disabled",
            priority: 1,
            effect: {
              type: "kill_switch",
              killSwitch: { service: `billing${H}`, reason: `r${H}` },
            },
          }),
        ],
      },
      {
        policyKey: `spare${H}`,
        activeVersion: 1,
        defaults: { effect: "allow" },
        rules: [],
      },
    ],
  };
}

/** A working folder with the hostile draft, built into a signed bundle. */
async function setUp(s: Scratch): Promise<void> {
  assert.equal((await s.run(["working-folder", "init"])).code, 0);
  await s.write("policy-drafts.json", hostileDraft());
  const built = await s.run(
    [
      "build",
      "--signed",
      "--signing-algorithm",
      "HMAC_SHA256",
      "--signing-key-id",
      "k1",
      "--org-id",
      `acme${H}`,
    ],
    { env: { POLICY_HMAC_SECRET: HMAC_SECRET } },
  );
  assert.equal(built.code, 0, built.stderr);
  assertEscaped("build", built, false);
}

const secret = { env: { POLICY_HMAC_SECRET: HMAC_SECRET } };

Deno.test("validate, policies list, inspect, simulate --trace: data is escaped in text", async () => {
  await using s = await scratch();
  await setUp(s);
  assertEscaped("validate (draft)", await s.run(["validate"]));
  assertEscaped("validate (bundle)", await s.run(["validate", "policy-bundle.json"]));
  assertEscaped("policies list", await s.run(["policies", "list"]));
  assertEscaped("inspect", await s.run(["inspect"]));
  assertEscaped("inspect --policies", await s.run(["inspect", "--policies"]));
  assertEscaped("inspect --signature", await s.run(["inspect", "--signature"], secret), false);
  assertEscaped(
    "simulate --trace full",
    await s.run([
      "simulate",
      "--service",
      TARGET.service,
      "--resource",
      "invoice",
      "--action",
      "create",
      "--context",
      JSON.stringify({ plan: `pro${H}` }),
      "--trace",
      "full",
      "--draft",
    ]),
  );
  assertEscaped(
    "sign",
    await s.run(["sign", "--signing-algorithm", "HMAC_SHA256", "--signing-key-id", "k2"], secret),
    false,
  );
  // JSON output is unchanged: JSON escapes C0 itself, and the rest is data as it is.
  const json = await s.run(["policies", "list", "--format", "json"]);
  assert.ok(json.stdout.includes(JSON.stringify(`billing${H}`)), json.stdout);
});

Deno.test("simulate --suite and diff: scenario names, rule ids and requests are escaped", async () => {
  await using s = await scratch();
  await setUp(s);
  await s.write("suite.json", {
    name: `suite${H}`,
    scenarios: [
      {
        name: `scenario${H}`,
        target: TARGET,
        context: { plan: `pro${H}` },
        expected: { decision: "deny", ruleId: `paid${H}` },
      },
    ],
  });
  assertEscaped("simulate --suite", await s.run(["simulate", "--suite", "suite.json", "--draft"]));
  // JUnit XML is read by CI systems and shown in their logs and dashboards: the same escapes,
  // never a control dropped (a name changed without a trace) or passed on.
  await s.run(["simulate", "--suite", "suite.json", "--draft", "--junit", "junit.xml"]);
  const xml = await s.read("junit.xml");
  assertEscaped("simulate --junit (the file)", { stdout: xml, stderr: "" } as RunResult);
  assert.ok(xml.includes("scenario\\u000d\\u001b[2K"), `the scenario's name, escaped:\n${xml}`);
  const changed = hostileDraft();
  const billing = (changed.policies as Record<string, unknown>[])[0]!;
  (billing.rules as unknown[]).push(
    hostileRule("added", { priority: 200, effect: { type: "deny" } }),
  );
  (changed.policies as unknown[]).push({
    policyKey: `new${H}`,
    activeVersion: 1,
    rules: [hostileRule("other", { target: { ...TARGET, action: `delete${H}` } })],
  });
  await s.write("new.json", changed);
  assertEscaped("diff", await s.run(["diff", "policy-bundle.json", "new.json"]));
  await s.write(
    "requests.jsonl",
    [
      JSON.stringify({ target: TARGET, context: { plan: `free${H}` } }),
      JSON.stringify({ target: TARGET, context: { plan: `pro${H}` } }),
    ].join("\n") + "\n",
  );
  assertEscaped(
    "diff --requests",
    await s.run(["diff", "policy-bundle.json", "new.json", "--requests", "requests.jsonl"]),
  );
  assertEscaped(
    "diff --suite",
    await s.run(["diff", "policy-bundle.json", "new.json", "--suite", "suite.json"]),
  );
});

Deno.test("the policies subcommands escape the keys and ids they print", async () => {
  await using s = await scratch();
  await setUp(s);
  const key = `billing${H}`;
  assertEscaped(
    "policies update-policy",
    await s.run([
      "policies",
      "update-policy",
      "--policy-key",
      key,
      "--defaults-effect",
      "custom",
      "--custom-effect",
      `c${H}`,
    ]),
  );
  await s.write("rules/new.json", hostileRule("new", { priority: 5 }));
  assertEscaped(
    "policies add-rule",
    await s.run(["policies", "add-rule", "--policy-key", key, "--rule-file", "rules/new.json"]),
  );
  assertEscaped(
    "policies add-rule --replace",
    await s.run([
      "policies",
      "add-rule",
      "--policy-key",
      key,
      "--rule-file",
      "rules/new.json",
      "--replace",
    ]),
  );
  assertEscaped(
    "policies set-status",
    await s.run([
      "policies",
      "set-status",
      "--policy-key",
      key,
      "--rule-id",
      `new${H}`,
      "disabled",
    ]),
  );
  assertEscaped(
    "policies remove-rule",
    await s.run(["policies", "remove-rule", "--policy-key", key, "--rule-id", `new${H}`]),
  );
  assertEscaped(
    "policies rename",
    await s.run(["policies", "rename", "--policy-key", `spare${H}`, "--to", `renamed${H}`]),
  );
  assertEscaped(
    "policies remove",
    await s.run(["policies", "remove", "--policy-key", `renamed${H}`]),
  );
  await s.write("import.json", {
    policyKey: `imported${H}`,
    friendlyName: `Imported${H}`,
    activeVersion: 1,
    snapshot: { defaults: { effect: "deny" }, rules: [hostileRule("imp")] },
  });
  assertEscaped("policies import", await s.run(["policies", "import", "import.json"]));
  // An unknown policy key is named in the error, escaped.
  assertEscaped(
    "policies remove (unknown key)",
    await s.run(["policies", "remove", "--policy-key", `nope${H}`]),
  );
});

Deno.test("fmt, analyze, activate, errors: file names, file lines and licence fields are escaped", async () => {
  await using s = await scratch();
  assert.equal((await s.run(["working-folder", "init"])).code, 0);
  // JSON strings may hold C1, DEL and bidi controls raw; a comment may hold any control.
  const unformatted = `{ // note${ESC}[2K\n"id":"a\u009b2J\u202e\x7f",  "status":"active",\n` +
    `"priority":1,"target":{"service":"s","resource":"r","action":"a"},"effect":{"type":"allow"}}\n`;
  await s.write(`policy/rules/odd${ESC}[2J.rule.json`, unformatted);
  assertEscaped("fmt --check", await s.run(["fmt", "--check", "policy"]));
  assertEscaped("fmt --diff", await s.run(["fmt", "--diff", "policy"]));
  assertEscaped("fmt", await s.run(["fmt", "policy"]));

  await s.write(
    "src/orders.ts",
    `export const go = (client: { evaluate(r: unknown): unknown }) =>\n` +
      `  client.evaluate({ target: { service: "orders\\u001b[2K\\u202e", resource: "order", action: "create" } });\n`,
  );
  assertEscaped("analyze --check", await s.run(["analyze", "--check"]));

  const license = JSON.stringify(
    await issueLicense({ licensee: `Acme${H}`, features: ["toolkit", `extra${H}`] }),
  );
  assertEscaped(
    "activate --status",
    await s.run(["activate", "--status"], { env: { POLICY_LICENSE: license } }),
  );

  // What the user typed is data too: an unknown command, a missing file, a bad flag value.
  assertEscaped("unknown command", await s.run([`bu\u202eild${H}`]), false);
  assertEscaped("missing file", await s.run(["validate", `missing${H}.json`]));
  assertEscaped("bad --format", await s.run(["validate", "--format", `x${H}`]), false);
  assertEscaped("help <unknown>", await s.run(["help", `x${H}`]), false);
  assertEscaped("completions <unknown>", await s.run(["completions", `x${H}`]), false);
  assertEscaped("playground --port", await s.run(["playground", "--port", `x${H}`]), false);
  assertEscaped(
    "keys generate",
    await s.run(["keys", "generate", "--algorithm", "ECDSA_SHA_256", "--out-dir", `keys${H}`]),
  );
  assertEscaped("working-folder set", await s.run(["working-folder", "set", `elsewhere${H}`]));
});
