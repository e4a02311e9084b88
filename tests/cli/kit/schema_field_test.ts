/**
 * `$schema` (docs/schemas.md): the CLI writes it into bundles and drafts, and
 * every reader accepts and ignores it, without a warning.
 */
import assert from "node:assert/strict";
import { rule, scratch } from "../_helpers.ts";
import { schemaUrl } from "../../../src/cli/kit/schema.ts";

const T = { service: "billing", resource: "invoice", action: "create" };

Deno.test("$schema is accepted and ignored by every reader, and never warned about", async () => {
  await using s = await scratch();
  await s.write("policy.config.json", {
    $schema: schemaUrl("config"),
    build: { scope: { orgId: "acme", projectId: "shop" } },
  });
  assert.equal((await s.run(["working-folder", "init"])).code, 0);
  assert.equal(
    (await s.run([
      "policies",
      "update-policy",
      "--create",
      "--policy-key",
      "billing",
      "--defaults-effect",
      "deny",
    ]))
      .code,
    0,
  );
  const paid = rule("paid", { when: { op: "eq", path: "plan", value: "pro" } });
  await s.write("rule.json", { $schema: schemaUrl("rule"), ...paid });
  const added = await s.run([
    "policies",
    "add-rule",
    "--policy-key",
    "billing",
    "--rule-file",
    "rule.json",
  ]);
  assert.deepEqual([added.code, added.stderr], [0, ""]);
  const draft = await s.readJson("policy-drafts.json");
  assert.equal(draft.$schema, schemaUrl("draft"));
  const [billing] = draft.policies as { rules: Record<string, unknown>[] }[];
  assert.deepEqual(
    billing!.rules[0],
    paid,
    "the rule file's $schema is not part of the rule",
  );

  const validated = await s.json(["validate", "policy-drafts.json"]);
  assert.deepEqual([validated.doc.valid, validated.doc.warnings], [true, []]);
  const built = await s.json(["build"]);
  assert.deepEqual([built.code, built.doc.warnings], [0, []]);
  const bundle = await s.json(["validate", "policy-bundle.json"]);
  assert.deepEqual([bundle.doc.type, bundle.doc.warnings, bundle.stderr], ["bundle", [], ""]);

  await s.write("suite.json", {
    $schema: schemaUrl("suite"),
    name: "s",
    scenarios: [{
      name: "pro",
      target: T,
      context: { plan: "pro" },
      expected: { decision: "allow" },
    }],
  });
  const simulated = await s.run(["simulate", "--suite", "suite.json"]);
  assert.deepEqual([simulated.code, simulated.stderr], [0, ""]);
  await s.write(
    "requests.jsonl",
    JSON.stringify({ $schema: schemaUrl("requests-line"), target: T }),
  );
  const diffed = await s.json([
    "diff",
    "policy-drafts.json",
    "policy-bundle.json",
    "--requests",
    "requests.jsonl",
  ]);
  assert.equal(diffed.code, 0, diffed.stderr);
  assert.equal(diffed.doc.changed, false, "$schema is not a change");
});

Deno.test("sign adds $schema to a bundle without one, and keeps one that names another schema", async () => {
  await using s = await scratch();
  const bundle = { schemaVersion: 1, env: "prod", policies: [] };
  await s.write("policy-bundle.json", bundle);
  const env = { POLICY_HMAC_SECRET: "ab".repeat(32) };
  const args = ["sign", "--signing-algorithm", "HMAC_SHA256", "--signing-key-id", "k"];
  assert.equal((await s.run(args, { env })).code, 0);
  const signed = await s.readJson("policy-bundle.json");
  assert.equal(Object.keys(signed)[0], "$schema");
  assert.equal(signed.$schema, schemaUrl("bundle"));
  await s.write("policy-bundle.json", { ...bundle, $schema: "./my.schema.json" });
  assert.equal((await s.run(args, { env })).code, 0);
  assert.equal((await s.readJson("policy-bundle.json")).$schema, "./my.schema.json");
});
