/**
 * The commands that write a rule (`policies add-rule`, with or without
 * `--replace`, and `policies import`) refuse an operator this version does
 * not know, with the "did you mean", unless `--allow-unknown-operators`;
 * the runtime keeps the spec's rule (an unknown operator is false) and
 * `validate` keeps its warning (docs/cli.md "policies add-rule").
 */
import assert from "node:assert/strict";
import { assertError, draftWith, rule, scratch } from "../../_helpers.ts";

const equals = { op: "equals", path: "plan", value: "pro" };

Deno.test("policies add-rule refuses an unknown operator, naming the one meant, unless allowed", async () => {
  await using s = await scratch();
  await draftWith(s, [rule("a")]);
  const before = await s.read("policy-drafts.json");
  const key = "billing";
  await s.write("r.rule.json", rule("pro", { when: equals }));
  const refused = await s.run([
    "policies",
    "add-rule",
    "--policy-key",
    key,
    "--rule-file",
    "r.rule.json",
  ]);
  assertError(refused, 1, "RULE_INVALID");
  assert.match(refused.stderr, /unknown operator "equals"/);
  assert.match(refused.stderr, /did you mean "eq"/);
  assert.match(refused.stderr, /--allow-unknown-operators/);
  assert.equal(await s.read("policy-drafts.json"), before, "the draft was not changed");

  // --replace too.
  await s.write("a.rule.json", rule("a", { when: equals }));
  const replaced = await s.run([
    "policies",
    "add-rule",
    "--policy-key",
    key,
    "--rule-file",
    "a.rule.json",
    "--replace",
  ]);
  assertError(replaced, 1, "RULE_INVALID");
  assert.equal(await s.read("policy-drafts.json"), before);

  // Allowed: written, with validate's warning, as before.
  const allowed = await s.json([
    "policies",
    "add-rule",
    "--policy-key",
    key,
    "--rule-file",
    "r.rule.json",
    "--allow-unknown-operators",
  ]);
  assert.equal(allowed.code, 0, allowed.stderr);
  assert.deepEqual(
    (allowed.doc.warnings as { code: string }[]).map((w) => w.code),
    ["CONDITION_UNKNOWN_OPERATOR"],
  );
  const validated = await s.json(["validate"]);
  assert.ok(
    (validated.doc.warnings as { code: string }[]).some((w) =>
      w.code === "CONDITION_UNKNOWN_OPERATOR"
    ),
  );
});

Deno.test("policies import refuses an unknown operator unless --allow-unknown-operators", async () => {
  await using s = await scratch();
  const wrapper = {
    policyKey: "billing.invoice.create",
    env: "prod",
    status: "active",
    activeVersion: 1,
    snapshot: { defaults: { effect: "deny" }, rules: [rule("pro", { when: equals })] },
  };
  await s.write("wrapper.json", wrapper);
  const refused = await s.run(["policies", "import", "wrapper.json"]);
  assertError(refused, 1, "IMPORT_UNMAPPABLE");
  assert.match(refused.stderr, /unknown operator "equals"/);
  assert.match(refused.stderr, /did you mean "eq"/);
  assert.match(refused.stderr, /--allow-unknown-operators/);
  const allowed = await s.run(["policies", "import", "wrapper.json", "--allow-unknown-operators"]);
  assert.equal(allowed.code, 0, allowed.stderr);
  assert.match(allowed.stderr, /CONDITION_UNKNOWN_OPERATOR/);
});
