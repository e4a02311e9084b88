import assert from "node:assert/strict";
import { buildDraft } from "../../src/analyze/build_draft.ts";
import { listDiscoveredPolicies } from "../../src/analyze/list_discovered_policies.ts";
import type { KnownPolicy } from "../../src/analyze/list_discovered_policies.ts";
import type { EvaluationPoint } from "../../src/analyze/types.ts";
import type { RuntimeBundleV1 } from "../../src/engine/types.ts";

const TESTDATA = "tests/testdata/analyze";

async function readJson<T>(name: string): Promise<T> {
  return JSON.parse(await Deno.readTextFile(`${TESTDATA}/${name}`)) as T;
}

const points = (await readJson<{ points: EvaluationPoint[] }>("sample-service.want.json")).points;

function point(action: string, file = "a.ts", line = 1, column = 1): EvaluationPoint {
  return { target: { service: "billing", resource: "invoice", action }, file, line, column };
}

Deno.test("listDiscoveredPolicies() gives exactly the listing JSON of the sample service against a bundle", async () => {
  const bundle = await readJson<RuntimeBundleV1>("sample-service.bundle.json");
  const listing = listDiscoveredPolicies(points, bundle.policies);
  assert.equal(
    JSON.stringify(listing, null, 2) + "\n",
    await Deno.readTextFile(`${TESTDATA}/sample-service.listing.want.json`),
  );
});

Deno.test("listDiscoveredPolicies() lists every target missing when there are no policies", () => {
  const listing = listDiscoveredPolicies(points, []);
  assert.ok(listing.policies.every((policy) => policy.status === "missing"));
  assert.ok(listing.policies.every((policy) => policy.matchedPolicyKeys.length === 0));
  assert.deepEqual(listing.summary, { targets: 10, evaluationPoints: 11, present: 0, missing: 10 });
});

Deno.test("listDiscoveredPolicies() lists every target present against the draft built from the same points", () => {
  const draft = buildDraft(points, new Date("2025-06-01T00:00:00Z"));
  const listing = listDiscoveredPolicies(points, draft.policies);
  assert.deepEqual(listing.summary, { targets: 10, evaluationPoints: 11, present: 10, missing: 0 });
  for (const policy of listing.policies) {
    assert.deepEqual(policy.matchedPolicyKeys, [policy.policyKey]);
  }
});

Deno.test("listDiscoveredPolicies() counts a disabled rule as naming its target", () => {
  const known: KnownPolicy[] = [{
    policyKey: "p",
    rules: [{ target: { service: "billing", resource: "invoice", action: "create" } }],
  }];
  assert.equal(listDiscoveredPolicies([point("create")], known).policies[0]?.status, "present");
});

Deno.test("listDiscoveredPolicies() matches targets exactly, case and wildcards included", () => {
  const known: KnownPolicy[] = [
    {
      policyKey: "star",
      rules: [{ target: { service: "billing", resource: "invoice", action: "*" } }],
    },
    {
      policyKey: "case",
      discoveredTarget: { service: "Billing", resource: "invoice", action: "create" },
    },
  ];
  const listing = listDiscoveredPolicies([point("create")], known);
  assert.equal(listing.policies[0]?.status, "missing");
});

Deno.test("listDiscoveredPolicies() groups the points of a target, sorted by file, line and column", () => {
  const listing = listDiscoveredPolicies([
    point("create", "b.ts", 3, 1),
    point("create", "a.ts", 10, 2),
    point("create", "a.ts", 2, 9),
    point("create", "a.ts", 2, 4),
  ], []);
  assert.equal(listing.policies.length, 1);
  assert.deepEqual(listing.policies[0]?.evaluationPoints, [
    { file: "a.ts", line: 2, column: 4 },
    { file: "a.ts", line: 2, column: 9 },
    { file: "a.ts", line: 10, column: 2 },
    { file: "b.ts", line: 3, column: 1 },
  ]);
  assert.deepEqual(listing.summary, { targets: 1, evaluationPoints: 4, present: 0, missing: 1 });
});

Deno.test("listDiscoveredPolicies() ignores malformed known policies and rules", () => {
  const known = [
    null,
    {
      policyKey: 7,
      discoveredTarget: { service: "billing", resource: "invoice", action: "create" },
    },
    { policyKey: "no-rules", rules: "none" },
    { policyKey: "bad-rules", rules: [null, { target: "billing.invoice.create" }, {}] },
    {
      policyKey: "good",
      rules: [{ target: { service: "billing", resource: "invoice", action: "create" } }],
    },
  ] as unknown as KnownPolicy[];
  const listing = listDiscoveredPolicies([point("create")], known);
  assert.deepEqual(listing.policies[0]?.matchedPolicyKeys, ["good"]);
});

Deno.test("listDiscoveredPolicies() gives an empty listing for no points", () => {
  assert.deepEqual(listDiscoveredPolicies([], []), {
    policies: [],
    summary: { targets: 0, evaluationPoints: 0, present: 0, missing: 0 },
  });
});
