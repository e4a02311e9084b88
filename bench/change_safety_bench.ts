// deno task bench:change-safety — the dead-rule analysis and the semantic diff,
// against compiling the same bundle; and the analysis on one target whose
// rules are built to make a careless analysis quadratic, at n and 4n rules.
import { compileBundle, type RuntimeBundleV1 } from "../mod.ts";
import { lintBundle } from "../src/lint/mod.ts";
import { diffBundles } from "../src/diff/mod.ts";
import { THREE_RULES } from "./scenarios/mod.ts";

const bundle = THREE_RULES.bundle(10_000);
const changed = structuredClone(bundle);
changed.policies[5_000]!.rules[1]!.priority = 99;
changed.policies.push(structuredClone(changed.policies[0]!));
changed.policies[changed.policies.length - 1]!.policyKey = "policy-new";

Deno.bench({
  name: "compileBundle (skipValidation)",
  group: "10,000 targets",
  baseline: true,
  fn: () => {
    compileBundle(bundle, { skipValidation: true });
  },
});
Deno.bench({
  name: "lintBundle",
  group: "10,000 targets",
  fn: () => {
    lintBundle(bundle);
  },
});
Deno.bench({
  name: "diffBundles",
  group: "10,000 targets",
  fn: () => {
    diffBundles(bundle, changed);
  },
});

/**
 * One target, n rules: a rule whose else-branch can fire only for the `m`
 * values of a large `in` list, then rules that each exclude one of those
 * values. Checking, after every rule, whether some rule surely fired would
 * look at the whole list each time (n × m); the analysis tests after 1, 2,
 * 4, … rules only.
 */
function adversarial(n: number): RuntimeBundleV1 {
  const target = THREE_RULES.target(0);
  const values = Array.from({ length: n }, (_, i) => `v${i}`);
  const rules = [
    {
      id: "big-in",
      status: "active" as const,
      priority: 100,
      target,
      when: { op: "not" as const, condition: { op: "in" as const, path: "x", values } },
      effect: { type: "kill_switch" as const, killSwitch: { service: "s" } },
      elseEffect: { type: "kill_switch" as const, killSwitch: { service: "s" } },
    },
    ...values.map((value, i) => ({
      id: `r${i}`,
      status: "active" as const,
      priority: 1,
      target,
      when: { op: "neq" as const, path: "x", value },
      effect: { type: "deny" as const },
    })),
  ];
  return {
    schemaVersion: 1,
    env: "prod",
    policies: [{ policyKey: "p", activeVersion: 1, rules }],
  } as RuntimeBundleV1;
}

for (const n of [2_000, 8_000]) {
  const hostile = adversarial(n);
  Deno.bench({
    name: `lintBundle, one target, ${n} rules`,
    group: "one target",
    baseline: n === 2_000,
    fn: () => {
      lintBundle(hostile);
    },
  });
}
