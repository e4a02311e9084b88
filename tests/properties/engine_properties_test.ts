import assert from "node:assert/strict";
import {
  compileBundle,
  createEvaluator,
  isPolicyError,
  loadBundle,
  type RuntimeBundleV1,
  signBundle,
  validateBundle,
  verifyBundleSignature,
} from "../../mod.ts";
import {
  canonicalJson,
  canonicalPayload,
  policiesOf,
  traceEvaluation,
} from "../../src/engine/mod.ts";
import { rulesThatFire } from "../../src/engine/trace_evaluation.ts";
import { bundle, context, fc, target } from "./_arbitraries.ts";
import { referenceEvaluate, referenceTrace } from "./_reference_evaluator.ts";
import { reverseKeys } from "../_reverse_keys.ts";

const RUNS = { numRuns: 300 };

Deno.test("property: validateBundle() never throws, whatever the input", () => {
  fc.assert(
    fc.property(fc.anything({ withNullPrototype: true, withObjectString: true }), (doc) => {
      const result = validateBundle(doc);
      assert.equal(typeof result.valid, "boolean");
    }),
    { numRuns: 1000 },
  );
  fc.assert(
    fc.property(bundle, fc.jsonValue(), (b, junk) => {
      // Graft junk onto a random place of an otherwise valid bundle.
      const doc = structuredClone(b) as unknown as Record<string, unknown>;
      const policy = (doc.policies as Record<string, unknown>[])[0];
      if (policy) policy.rules = [junk, ...(policy.rules as unknown[])];
      else doc.env = junk;
      validateBundle(doc);
    }),
    RUNS,
  );
});

Deno.test("property: generated bundles are valid and load with allowUnsigned", async () => {
  await fc.assert(
    fc.asyncProperty(bundle, async (b) => {
      assert.deepEqual(validateBundle(b).errors, []);
      const loaded = await loadBundle(JSON.stringify(b), { allowUnsigned: true });
      assert.equal(loaded.status.signature.status, "unsigned");
    }),
    { numRuns: 100 },
  );
});

Deno.test("property: evaluate() and traceEvaluation() agree with a naive reference and never throw", () => {
  fc.assert(
    fc.property(
      bundle,
      fc.array(fc.tuple(target, context), { minLength: 1, maxLength: 8 }),
      fc.boolean(),
      (b, requests, parseCustomEffect) => {
        const compiled = compileBundle(b);
        const evaluate = createEvaluator(compiled, { parseCustomEffect });
        for (const [t, ctx] of requests) {
          const request = { target: t, context: ctx };
          const decision = evaluate(request);
          assert.deepEqual(decision, referenceEvaluate(b, t, ctx, parseCustomEffect));
          const trace = traceEvaluation(compiled, request, { parseCustomEffect });
          assert.deepEqual(trace.decision, decision);
          const { decision: _, selected, ...explanation } = trace;
          assert.deepEqual(explanation, referenceTrace(b, t, ctx));
          assert.deepEqual(selected, trace.candidates[0] ?? null);
          // Plain JSON: nothing undefined, nothing that does not survive a round trip.
          assert.deepEqual(JSON.parse(JSON.stringify(trace)), trace);
          // What suites count as covered: the rules the trace shows with an effect.
          assert.deepEqual(
            rulesThatFire(compiled, request),
            trace.rules.filter((r) => r.effect !== undefined).map(({ policyKey, ruleId }) => ({
              policyKey,
              ruleId,
            })),
          );
        }
      },
    ),
    { numRuns: 1000 },
  );
});

Deno.test("property: policiesOf() gives every policy and rule as written, but descriptions; scope the bundle's", () => {
  fc.assert(
    fc.property(bundle, fc.array(fc.tuple(target, context), { maxLength: 4 }), (b, requests) => {
      const compiled = compileBundle(b);
      const policies = policiesOf(compiled);
      // Identical conditions and effects are shared, compared by canonical form.
      const expected = b.policies.map((policy) => ({
        ...policy,
        rules: policy.rules.map(({ description: _, ...rule }) => rule),
      }));
      assert.equal(canonicalJson(policies), canonicalJson(expected));
      assert.deepEqual(policies.map((p) => Object.keys(p)), expected.map((p) => Object.keys(p)));
      assert.equal(compiled.scope.env, b.env);
      assert.equal(compiled.scope.orgId, b.orgId);
      // What policiesOf gives compiles to the same decisions.
      const again = createEvaluator(compileBundle({ ...b, policies }));
      const evaluate = createEvaluator(compiled);
      for (const [t, ctx] of requests) {
        assert.deepEqual(again({ target: t, context: ctx }), evaluate({ target: t, context: ctx }));
      }
    }),
    RUNS,
  );
});

Deno.test("property: decisions do not depend on key order or whitespace of the file", () => {
  fc.assert(
    fc.property(bundle, fc.array(fc.tuple(target, context), { maxLength: 6 }), (b, requests) => {
      const a = createEvaluator(compileBundle(JSON.parse(JSON.stringify(b))));
      const c = createEvaluator(
        compileBundle(JSON.parse(JSON.stringify(reverseKeys(b), null, "\t"))),
      );
      for (const [t, ctx] of requests) {
        const request = { target: t, context: ctx };
        assert.deepEqual(a(request), c(request));
        assert.deepEqual(a(request), a(request));
      }
      assert.equal(canonicalPayload(reverseKeys(b) as RuntimeBundleV1), canonicalPayload(b));
    }),
    RUNS,
  );
});

/** Every leaf of the canonical projection, as a path of keys. */
function canonicalLeaves(b: RuntimeBundleV1): (string | number)[][] {
  const out: (string | number)[][] = [["env"], ["orgId"]];
  const walk = (v: unknown, path: (string | number)[]) => {
    if (v !== null && typeof v === "object") {
      for (const [k, x] of Object.entries(v)) walk(x, [...path, Array.isArray(v) ? Number(k) : k]);
    } else out.push(path);
  };
  b.policies.forEach((p, i) => {
    out.push(["policies", i, "policyKey"], ["policies", i, "activeVersion"]);
    walk(p.rules, ["policies", i, "rules"]);
    if (p.defaults) walk(p.defaults, ["policies", i, "defaults"]);
  });
  return out;
}

function mutateLeaf(b: RuntimeBundleV1, path: (string | number)[]): RuntimeBundleV1 {
  const copy = structuredClone(b) as unknown as Record<string | number, unknown>;
  let parent = copy;
  for (const key of path.slice(0, -1)) parent = parent[key] as Record<string | number, unknown>;
  const key = path.at(-1)!;
  const v = parent[key];
  parent[key] = typeof v === "string"
    ? v + "x"
    : typeof v === "number"
    ? v + 1
    : typeof v === "boolean"
    ? !v
    : 0;
  return copy as unknown as RuntimeBundleV1;
}

const hmacSecret = "5f".repeat(32);
const ecKeys = await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, [
  "sign",
  "verify",
]);

Deno.test("property: sign then verify round-trips, and any canonical change is detected", async () => {
  const keys = [
    { algorithm: "HMAC_SHA256" as const, key: hmacSecret, publicKey: hmacSecret },
    { algorithm: "ECDSA_SHA_256" as const, key: ecKeys.privateKey, publicKey: ecKeys.publicKey },
  ];
  await fc.assert(
    fc.asyncProperty(bundle, fc.constantFrom(0, 1), fc.nat(), async (b, k, pick) => {
      const { algorithm, key, publicKey } = keys[k]!;
      const signed = await signBundle(b, { algorithm, key, keyId: "prop" });
      const verify = { algorithm, publicKey };
      assert.equal((await verifyBundleSignature(signed, { verify })).status, "verified");
      const leaves = canonicalLeaves(signed);
      const tampered = mutateLeaf(signed, leaves[pick % leaves.length]!);
      await assert.rejects(
        verifyBundleSignature(tampered, { verify }),
        (e) => isPolicyError(e, "BUNDLE_SIGNATURE_INVALID"),
      );
      await assert.rejects(
        loadBundle(JSON.stringify(tampered), { verify }),
        (e) => isPolicyError(e, "CHECKSUM_MISMATCH") || isPolicyError(e, "BUNDLE_INVALID"),
      );
    }),
    { numRuns: 150 },
  );
});
