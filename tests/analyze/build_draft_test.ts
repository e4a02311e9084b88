import assert from "node:assert/strict";
import { buildDraft } from "../../src/analyze/build_draft.ts";
import type { EvaluationPoint } from "../../src/analyze/types.ts";
import { isPolicyError } from "../../src/public/policy_error.ts";

const TESTDATA = "tests/testdata/analyze";
const NOW = new Date("2025-06-01T12:00:00Z");

async function samplePoints(): Promise<EvaluationPoint[]> {
  return (JSON.parse(await Deno.readTextFile(`${TESTDATA}/sample-service.want.json`)) as {
    points: EvaluationPoint[];
  }).points;
}

function point(service: string, resource: string, action: string, file = "a.ts", line = 1) {
  return { target: { service, resource, action }, file, line, column: 1 };
}

Deno.test("buildDraft() writes exactly the draft JSON of the sample service", async () => {
  const draft = buildDraft(await samplePoints(), NOW);
  const text = JSON.stringify(draft, null, 2) + "\n";
  assert.equal(text, await Deno.readTextFile(`${TESTDATA}/sample-service.draft.want.json`));
});

Deno.test("buildDraft() writes SPEC's draft fields in SPEC's order", () => {
  const draft = buildDraft([point("billing", "invoice", "create")], NOW);
  assert.deepEqual(Object.keys(draft), ["schemaVersion", "generatedAt", "policies"]);
  assert.deepEqual(Object.keys(draft.policies[0]!), [
    "policyKey",
    "activeVersion",
    "friendlyName",
    "discoveredTarget",
    "rules",
  ]);
  assert.deepEqual(draft.policies[0], {
    policyKey: "billing.invoice.create",
    activeVersion: 1,
    friendlyName: "billing invoice create",
    discoveredTarget: { service: "billing", resource: "invoice", action: "create" },
    rules: [],
  });
});

Deno.test("buildDraft() makes one policy per distinct target", () => {
  const draft = buildDraft([
    point("billing", "invoice", "create", "a.ts", 1),
    point("billing", "invoice", "create", "b.ts", 7),
    point("billing", "invoice", "create", "a.ts", 9),
    point("billing", "invoice", "void"),
    point("Billing", "invoice", "create"),
  ], NOW);
  assert.deepEqual(draft.policies.map((policy) => policy.policyKey), [
    "Billing.invoice.create",
    "billing.invoice.create",
    "billing.invoice.void",
  ]);
});

Deno.test("buildDraft() gives the same document for the same points in any order", async () => {
  const points = await samplePoints();
  const expected = JSON.stringify(buildDraft(points, NOW));
  for (let shift = 1; shift < points.length; shift++) {
    const rotated = [...points.slice(shift), ...points.slice(0, shift)];
    assert.equal(JSON.stringify(buildDraft(rotated, NOW)), expected);
    assert.equal(JSON.stringify(buildDraft([...rotated].reverse(), NOW)), expected);
  }
});

Deno.test("buildDraft() sorts policies by policy key in code unit order", () => {
  const draft = buildDraft([
    point("b", "x", "y"),
    point("a.b", "x", "y"),
    point("a", "x", "y"),
    point("Z", "x", "y"),
  ], NOW);
  assert.deepEqual(draft.policies.map((policy) => policy.policyKey), [
    "Z.x.y",
    "a%2Eb.x.y",
    "a.x.y",
    "b.x.y",
  ]);
});

Deno.test("buildDraft() copies only the three target fields", () => {
  const target = { service: "s", resource: "r", action: "a", extra: true };
  const draft = buildDraft([{ target, file: "a.ts", line: 1, column: 1 }], NOW);
  assert.deepEqual(draft.policies[0]?.discoveredTarget, {
    service: "s",
    resource: "r",
    action: "a",
  });
  assert.notEqual(draft.policies[0]?.discoveredTarget, target);
});

Deno.test("buildDraft() writes an empty policy list when nothing was found", () => {
  assert.deepEqual(buildDraft([], NOW), {
    schemaVersion: "1.0",
    generatedAt: "2025-06-01T12:00:00.000Z",
    policies: [],
  });
});

Deno.test("buildDraft() rejects an invalid date with INVALID_OPTIONS", () => {
  assert.throws(() => buildDraft([], new Date(Number.NaN)), (error: unknown) => {
    assert.ok(isPolicyError(error, "INVALID_OPTIONS"));
    return true;
  });
});
