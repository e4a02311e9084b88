import assert from "node:assert/strict";
import type { Policy, RuntimeBundleV1, Target } from "../../mod.ts";
import { compileBundle, createEvaluator } from "../../mod.ts";
import { changedTargets, diffBundles } from "../../src/diff/mod.ts";
import {
  bundle as generatedBundle,
  context as generatedContext,
  fc,
} from "../properties/_arbitraries.ts";
import { reverseKeys } from "../_reverse_keys.ts";
import { testSeed } from "../_random.ts";

const SEED = testSeed(27);

const T = { service: "billing", resource: "invoice", action: "create" };
const U = { service: "billing", resource: "invoice", action: "export" };
const V = { service: "search", resource: "catalog", action: "read" };

type Obj = Record<string, unknown>;

function rule(id: string, extra: Obj = {}): Obj {
  return { id, status: "active", priority: 1, target: T, effect: { type: "allow" }, ...extra };
}

const base = (): Policy[] =>
  [
    {
      policyKey: "billing",
      activeVersion: 3,
      defaults: { effect: "deny" },
      rules: [
        rule("paid", { when: { op: "in", path: "plan", values: ["pro", "enterprise"] } }),
        rule("export", { target: U, description: "exports" }),
      ],
    },
    { policyKey: "search", activeVersion: 1, rules: [rule("open", { target: V })] },
  ] as unknown as Policy[];

/** `base()` changed by `change`. */
function changed(change: (policies: Obj[]) => void): Policy[] {
  const policies = structuredClone(base()) as unknown as Obj[];
  change(policies);
  return policies as unknown as Policy[];
}

const rulesOf = (policy: Obj | undefined) => policy!.rules as Obj[];

Deno.test("changedTargets() lists nothing for the same rules, whatever the formatting or metadata", () => {
  assert.deepEqual(changedTargets(base(), base()), []);
  const reformatted = JSON.parse(JSON.stringify(reverseKeys(base()), null, 2)) as Policy[];
  assert.deepEqual(changedTargets(base(), reformatted), []);
  const cosmetic = changed((p) => {
    p[0]!.activeVersion = 9;
    rulesOf(p[0])[1]!.description = "now documented";
    // A policy naming other targets, added before the others: bundle order
    // between the policies of one target is unchanged.
    p.unshift({
      policyKey: "other",
      activeVersion: 1,
      rules: [rule("x", { target: { ...T, action: "z" } })],
    });
  });
  assert.deepEqual(changedTargets(base(), cosmetic), [{ ...T, action: "z" }]);
});

Deno.test("changedTargets() lists each target whose rules changed by meaning, sorted", () => {
  const cases: [string, (p: Obj[]) => void, Target[]][] = [
    ["a condition", (p) => {
      rulesOf(p[0])[0]!.when = { op: "eq", path: "plan", value: "pro" };
    }, [T]],
    ["an effect", (p) => {
      rulesOf(p[1])[0]!.effect = { type: "deny" };
    }, [V]],
    ["a priority", (p) => {
      rulesOf(p[0])[1]!.priority = 5;
    }, [U]],
    ["a status", (p) => {
      rulesOf(p[0])[0]!.status = "disabled";
    }, [T]],
    ["a rule id", (p) => {
      rulesOf(p[1])[0]!.id = "opened";
    }, [V]],
    ["a policy's defaults, at every target of the policy", (p) => {
      p[0]!.defaults = { effect: "allow" };
    }, [T, U]],
    ["a rule moved to another target", (p) => {
      rulesOf(p[0])[1]!.target = V;
    }, [U, V]],
    ["a target removed, one added", (p) => {
      p.pop();
      rulesOf(p[0]).push(rule("new", { target: { ...V, action: "write" } }));
    }, [V, { ...V, action: "write" }]],
    ["a policy renamed", (p) => {
      p[1]!.policyKey = "search.v2";
    }, [V]],
    ["two policies of one target swapped", (p) => {
      rulesOf(p[1]).push(rule("also", { target: T }));
      p.reverse();
    }, [T]],
  ];
  for (const [what, change, want] of cases) {
    const before = what.startsWith("two policies")
      ? changed((p) => {
        rulesOf(p[1]).push(rule("also", { target: T }));
      })
      : base();
    assert.deepEqual(changedTargets(before, changed(change)), want, what);
  }
});

/** `b` with some of its policies replaced or dropped, and a rule of another bundle added. */
const variant = fc.tuple(generatedBundle, generatedBundle, fc.array(fc.nat(3), { maxLength: 6 }))
  .map(([b, other, picks]): [RuntimeBundleV1, RuntimeBundleV1] => {
    const policies = structuredClone(b.policies);
    for (const [n, pick] of picks.entries()) {
      const at = policies.length === 0 ? 0 : (pick * 7 + n) % policies.length;
      if (pick === 0) policies.splice(at, 1);
      else if (pick === 1 && other.policies[n] !== undefined && policies[at] !== undefined) {
        policies[at] = { ...other.policies[n]!, policyKey: policies[at]!.policyKey };
      } else if (pick === 2 && policies[at] !== undefined) {
        const rules = policies[at]!.rules;
        const moved = other.policies.flatMap((p) => p.rules)[n];
        if (moved !== undefined) rules.push({ ...moved, id: `moved-${n}` });
      }
    }
    return [b, { ...b, policies }];
  });

Deno.test(`property (seed ${SEED}): a target not listed decides every context as before; every ranking change is listed`, () => {
  fc.assert(
    fc.property(variant, fc.array(generatedContext, { maxLength: 8 }), ([a, b], contexts) => {
      const listed = changedTargets(a.policies, b.policies).map((t) => JSON.stringify(t));
      const before = createEvaluator(compileBundle(a));
      const after = createEvaluator(compileBundle(b));
      const targets = new Map<string, Target>();
      for (const p of [...a.policies, ...b.policies]) {
        for (const r of p.rules) {
          const { service, resource, action } = r.target;
          targets.set(JSON.stringify({ service, resource, action }), { service, resource, action });
        }
      }
      for (const [key, target] of targets) {
        if (listed.includes(key)) continue;
        for (const context of contexts) {
          assert.deepEqual(after({ target, context }), before({ target, context }), key);
        }
      }
      for (const { target } of diffBundles(a, b).targets) {
        assert.ok(listed.includes(JSON.stringify(target)), JSON.stringify(target));
      }
      assert.deepEqual(changedTargets(a.policies, a.policies), []);
    }),
    { seed: SEED, numRuns: 300 },
  );
});
