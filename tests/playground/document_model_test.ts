import assert from "node:assert/strict";
import { readDocument, ruleSites, targetsOf } from "../../playground/document_model.ts";
import { locatePointer } from "../../playground/pointer_offset.ts";
import { evaluate } from "../../src/engine/mod.ts";
import { signBundle } from "../../src/verify/mod.ts";

const bundleText = await Deno.readTextFile(new URL("../../examples/bundle.json", import.meta.url));
const draftText = await Deno.readTextFile(
  new URL("../../examples/playground/billing-draft.json", import.meta.url),
);

Deno.test("readDocument reads a bundle through the load pipeline: compiled, checksum, targets", async () => {
  const model = await readDocument(bundleText);
  assert.equal(model.kind, "bundle");
  assert.deepEqual(model.issues, []);
  assert.match(model.checksum!, /^sha256:[0-9a-f]{64}$/);
  assert.deepEqual(model.targets.map((t) => `${t.service}/${t.resource}/${t.action}`), [
    "billing/invoice/create",
    "search/catalog/query",
  ]);
  const target = { service: "billing", resource: "invoice", action: "create" };
  assert.deepEqual(evaluate(model.compiled!, { target, context: { plan: "pro" } }), {
    decision: "allow",
    reason: "rule",
    policyKey: "billing.invoice.create",
    ruleId: "paid-plans",
  });
});

Deno.test("readDocument reads a draft as validate does, and the bundle it builds", async () => {
  const model = await readDocument(draftText);
  assert.equal(model.kind, "draft");
  assert.deepEqual(model.issues, []);
  assert.equal(model.checksum, null);
  assert.equal(model.compiled!.policyCount, 4);
  assert.equal(model.bundle!.env, "dev");
  assert.equal(model.compiled!.scope.env, "dev");
  // A draft with comments is read too (bundles are strict JSON).
  const commented = await readDocument(`// the billing draft\n${draftText}`);
  assert.equal(commented.kind, "draft");
  assert.deepEqual(commented.issues, []);
  const bundle = await readDocument(`// a comment\n${bundleText}`);
  assert.equal(bundle.kind, "unreadable");
});

Deno.test("an edited signed bundle is still evaluated, with a warning that a client refuses it", async () => {
  const signed = await signBundle(JSON.parse(bundleText), {
    algorithm: "HMAC_SHA256",
    key: "8f1e0c2b9a7d6e5f4c3b2a1908f7e6d5c4b3a29180f7e6d5c4b3a2918f7e6d5c",
    keyId: "ci",
  });
  signed.policies[0]!.rules[0]!.priority = 11;
  const model = await readDocument(JSON.stringify(signed, null, 2));
  assert.notEqual(model.compiled, null);
  assert.deepEqual(model.issues.map((i) => [i.severity, i.code, i.path]), [
    ["warning", "CHECKSUM_MISMATCH", "/checksum"],
  ]);
});

Deno.test("readDocument lists every issue with a pointer that locates it", async () => {
  const bundle = JSON.parse(bundleText);
  bundle.policies[0].rules[1].effect = { type: "throttle" };
  bundle.policies[1].rules[0].efect = 1;
  const text = JSON.stringify(bundle, null, 2);
  const model = await readDocument(text);
  assert.equal(model.compiled, null);
  assert.ok(model.issues.length >= 1);
  for (const issue of model.issues) {
    assert.equal(issue.severity, "error");
    assert.notEqual(locatePointer(text, issue.path), null, issue.path);
  }
  // Dead rules of a valid bundle are warnings from the lint, with their pointer.
  const shadowed = JSON.parse(bundleText);
  shadowed.policies[2].rules[0].when = undefined;
  const linted = await readDocument(JSON.stringify(shadowed));
  assert.ok(linted.issues.some((i) => i.source === "lint" && i.code === "RULE_SHADOWED"));
});

Deno.test("readDocument says where a text stops being JSON, and never throws on bad input", async () => {
  const model = await readDocument('{"schemaVersion": 1, "policies": [}');
  assert.equal(model.kind, "unreadable");
  assert.equal(model.issues[0]!.offset, 34);
  for (const text of ["", "  ", "[]", "7", "null", '{"policies": 3}', '{"env": "prod"}']) {
    const read = await readDocument(text);
    assert.equal(read.compiled, null, text);
  }
});

Deno.test("targetsOf and ruleSites name each target once and each rule by its pointer", () => {
  const bundle = JSON.parse(bundleText);
  assert.equal(targetsOf(bundle).length, 2);
  assert.equal(
    ruleSites(bundle).get(JSON.stringify(["incident.search", "search-outage"]))!.pointer,
    "/policies/2/rules/0",
  );
});
