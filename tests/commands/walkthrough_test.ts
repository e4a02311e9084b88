/**
 * docs/walkthrough.md, step by step, on a copy of examples/service: the
 * example's source, rules and suite must keep working together.
 */
import assert from "node:assert/strict";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { type Scratch, scratch } from "./_helpers.ts";

const EXAMPLE = fileURLToPath(new URL("../../examples/service/", import.meta.url));

async function copyTree(from: string, to: string): Promise<void> {
  await Deno.mkdir(to, { recursive: true });
  for await (const entry of Deno.readDir(from)) {
    const source = path.join(from, entry.name);
    const target = path.join(to, entry.name);
    if (entry.isDirectory) await copyTree(source, target);
    else await Deno.copyFile(source, target);
  }
}

async function step(s: Scratch, args: string[]) {
  const result = await s.run(args);
  assert.equal(result.code, 0, `policy ${args.join(" ")}\n${result.stdout}\n${result.stderr}`);
  return result;
}

Deno.test("walkthrough: analyze examples/service, add its rules, build, sign and simulate its suite", async () => {
  await using s = await scratch();
  await copyTree(EXAMPLE, s.wf);

  const analyzed = await s.json(["analyze"]);
  assert.equal(analyzed.code, 0, analyzed.stderr);
  assert.deepEqual(
    (analyzed.doc.policies as { policyKey: string; status: string }[]).map((p) => [
      p.policyKey,
      p.status,
    ]),
    [
      ["billing.invoice.create", "missing"],
      ["billing.invoice.export", "missing"],
      ["billing.refund.create", "missing"],
      ["search.index.query", "missing"],
    ],
  );
  assert.deepEqual(analyzed.doc.warnings, []);
  const before = await s.json(["analyze", "--check"]);
  assert.equal(before.code, 0);
  assert.equal((before.doc.warnings as unknown[]).length, 4, "4 targets without rules yet");

  for (
    const [key, rule] of [
      ["billing.invoice.create", "paid-plans"],
      ["billing.invoice.create", "free-small-teams"],
      ["billing.invoice.export", "export-per-tenant"],
      ["billing.refund.create", "finance-only"],
      ["search.index.query", "search-open"],
      ["search.index.query", "search-off"],
    ]
  ) {
    await step(s, [
      "policies",
      "add-rule",
      "--policy-key",
      key!,
      "--rule-file",
      `policy/rules/${rule}.json`,
    ]);
  }
  await step(s, [
    "policies",
    "update-policy",
    "--policy-key",
    "billing.invoice.create",
    "--defaults-effect",
    "deny",
  ]);
  await step(s, ["analyze", "--check", "--strict"]);
  await step(s, ["validate", "--strict"]);
  await step(s, ["keys", "generate", "--algorithm", "ECDSA_SHA_256", "--out-dir", "keys"]);
  const built = await s.json(["build"]);
  assert.equal(built.code, 0, built.stderr);
  assert.deepEqual(
    [built.doc.orgId, built.doc.projectId, built.doc.policyCount, built.doc.ruleCount],
    ["acme", "billing-service", 4, 6],
  );
  assert.deepEqual(built.doc.signature, { algorithm: "ECDSA_SHA_256", keyId: "release-1" });
  assert.match((await step(s, ["inspect", "--signature"])).stdout, /signature: valid/);
  const suite = await step(s, ["simulate", "--suite", "policy/suite.json"]);
  assert.match(suite.stdout, /signature: verified \(ECDSA_SHA_256, key id release-1\)/);
  assert.match(suite.stdout, /scenarios 7, passed 7, failed 0/);
  assert.match(suite.stdout, /coverage: 5 of 5 active rules exercised/);
});
