/**
 * A bundle and a draft whose rule writes `elseEffect` with an escape
 * (`"\u0065lseEffect"`), after an ignored top-level field holding the
 * trigger of the V8 JSON.parse bug (`tests/testdata/escaped_keys/`). They
 * mean what their JSON says, through the library and the CLI, with the
 * checksum Python's json module and the independent canonical payload of
 * `make_expected.py` give. `tests/node/escaped_keys.test.mjs` checks the
 * same files through the npm build under Node.
 */
import assert from "node:assert/strict";
import { createEvaluator, loadBundle } from "../../mod.ts";
import { scratch } from "../cli/_helpers.ts";

const DATA = new URL("../testdata/escaped_keys/", import.meta.url);
const bundleText = await Deno.readTextFile(new URL("bundle.json", DATA));
const draftText = await Deno.readTextFile(new URL("draft.json", DATA));
const expected = JSON.parse(await Deno.readTextFile(new URL("expected.json", DATA))) as {
  checksum: string;
  ruleKeys: string[];
};
const TARGET = { service: "billing", resource: "invoice", action: "create" };

Deno.test("the fixture triggers the V8 bug in this runtime's JSON.parse (so the tests below mean something)", () => {
  const rule = JSON.parse(bundleText).policies[0].rules[0];
  assert.ok(!("elseEffect" in rule), Object.keys(rule).join(","));
});

Deno.test("loadBundle() reads the escaped elseEffect: the checksum an independent parser gives, and the decision the JSON says", async () => {
  const loaded = await loadBundle(bundleText, { allowUnsigned: true });
  assert.equal(loaded.status.checksum, expected.checksum);
  const evaluate = createEvaluator(loaded.compiled);
  assert.deepEqual(evaluate({ target: TARGET, context: { plan: "pro" } }), {
    decision: "deny",
    reason: "rule",
    policyKey: "billing.invoice.create",
    ruleId: "free-only",
  });
  assert.equal(evaluate({ target: TARGET, context: { plan: "free" } }).decision, "allow");
});

Deno.test("policy simulate and policy build read escaped keys exactly: the decision and checksum of the JSON", async () => {
  await using s = await scratch();
  await s.write("policy-bundle.json", bundleText);
  const simulated = await s.json([
    "simulate",
    "--service",
    "billing",
    "--resource",
    "invoice",
    "--action",
    "create",
    "--context",
    '{"plan":"pro"}',
  ]);
  assert.equal(simulated.code, 0, simulated.stderr);
  assert.equal((simulated.doc.decision as Record<string, unknown>).decision, "deny");
  assert.equal((simulated.doc.decision as Record<string, unknown>).ruleId, "free-only");

  await s.write("policy-drafts.json", draftText);
  const built = await s.json(["build"]);
  assert.equal(built.code, 0, built.stderr);
  assert.equal(built.doc.checksum, expected.checksum);
  const bundle = await s.readJson("policy-bundle.json");
  const rule = (bundle.policies as { rules: Record<string, unknown>[] }[])[0]!.rules[0]!;
  assert.deepEqual(Object.keys(rule).sort(), expected.ruleKeys);
});
