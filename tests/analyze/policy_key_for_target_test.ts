import assert from "node:assert/strict";
import { policyKeyForTarget } from "../../src/analyze/policy_key_for_target.ts";
import type { Target } from "../../src/engine/types.ts";

const { cases } = JSON.parse(
  await Deno.readTextFile("tests/testdata/analyze/policy_keys.json"),
) as { cases: { target: Target; want: string }[] };

Deno.test("policyKeyForTarget() gives the documented key for each target of policy_keys.json", () => {
  for (const { target, want } of cases) {
    assert.equal(policyKeyForTarget(target), want, JSON.stringify(target));
  }
});

Deno.test("policyKeyForTarget() keeps ordinary names readable and case as written", () => {
  assert.equal(
    policyKeyForTarget({ service: "billing", resource: "invoice", action: "create" }),
    "billing.invoice.create",
  );
  assert.notEqual(
    policyKeyForTarget({ service: "Billing", resource: "invoice", action: "create" }),
    policyKeyForTarget({ service: "billing", resource: "invoice", action: "create" }),
  );
});

Deno.test("policyKeyForTarget() gives distinct keys to all distinct targets", () => {
  // Field values made of one or two tricky pieces.
  const pieces = ["", "a", "A", ".", "%", "%2E", "2E", "é", "\uD800", "\uDC00", "😀", " ", "*"];
  const values = new Set<string>();
  for (const first of pieces) for (const second of pieces) values.add(first + second);
  const fields = [...values];

  // 1. Each field's encoding is one-to-one and never contains the "." separator...
  const encoded = new Map<string, string>();
  for (const field of fields) {
    const key = policyKeyForTarget({ service: field, resource: "r", action: "a" });
    const part = key.slice(0, -".r.a".length);
    assert.ok(!part.includes("."), `${JSON.stringify(field)} encodes to ${part}`);
    assert.equal(encoded.get(part), undefined, `${JSON.stringify(field)} collides`);
    encoded.set(part, field);
  }

  // 2. ...so whole keys collide only for equal targets; checked exhaustively on a sample.
  const sample = fields.filter((_, i) => i % 7 === 0);
  const seen = new Map<string, string>();
  for (const service of sample) {
    for (const resource of sample) {
      for (const action of sample) {
        const key = policyKeyForTarget({ service, resource, action });
        const id = JSON.stringify([service, resource, action]);
        assert.equal(seen.get(key), undefined, `${id} and ${seen.get(key)} share ${key}`);
        seen.set(key, id);
      }
    }
  }
  assert.equal(seen.size, sample.length ** 3);
});

Deno.test("policyKeyForTarget() encodes lone surrogates without losing them", () => {
  assert.equal(
    policyKeyForTarget({ service: "\uD800", resource: "\uDC00x", action: "\uFFFD" }),
    "%uD800.%uDC00x.%EF%BF%BD",
  );
});
