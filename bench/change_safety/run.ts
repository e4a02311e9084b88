// deno task bench:change-safety [--rounds 5] [--no-write]
//
// The dead-rule analysis and the semantic diff, against compiling the same
// bundle; and the analysis on one target whose rules are built to make a
// careless analysis quadratic, at n and 4n rules (docs/performance.md
// "Dead-rule analysis and diff"). Writes the block between the
// `change-safety` markers of docs/performance.md.
import { compileBundle, type RuntimeBundleV1 } from "../../mod.ts";
import { lintBundle } from "../../src/lint/mod.ts";
import { diffBundles } from "../../src/diff/mod.ts";
import { THREE_RULES } from "../scenarios/mod.ts";
import { caseRatio, caseSpread, measureRounds } from "../_rounds.ts";
import { formatRatioSpread } from "../_stats.ts";
import { formatMs, markdownTable } from "../_report.ts";
import { startInProcessRun } from "../_in_process_run.ts";

const run = startInProcessRun();

const TARGETS = 10_000;
const bundle = THREE_RULES.bundle(TARGETS);
const changed = structuredClone(bundle);
changed.policies[5_000]!.rules[1]!.priority = 99;
changed.policies.push(structuredClone(changed.policies[0]!));
changed.policies[changed.policies.length - 1]!.policyKey = "policy-new";

/**
 * One target, n rules: a rule whose else-branch can fire only for the `n`
 * values of a large `in` list, then rules that each exclude one of those
 * values. Checking, after every rule, whether some rule surely fired would
 * look at the whole list each time (n × n); the analysis tests after 1, 2,
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

const small = adversarial(2_000);
const large = adversarial(8_000);
const COMPILE = "compileBundle";
const cases = [
  { name: COMPILE, fn: () => compileBundle(bundle, { skipValidation: true }) },
  { name: "lintBundle", fn: () => lintBundle(bundle) },
  { name: "diffBundles", fn: () => diffBundles(bundle, changed) },
  { name: "lint 2,000", fn: () => lintBundle(small) },
  { name: "lint 8,000", fn: () => lintBundle(large) },
];
const figures = await measureRounds(cases, {
  rounds: run.rounds,
  warmupMs: 500,
  measureMs: 1_000,
  minBatches: 2,
});
const ms = (name: string) => formatMs(caseSpread(figures, name).median);
const n = TARGETS.toLocaleString("en-US");
const table = markdownTable([
  ["Measured", "ms", "Ratio"],
  [`\`compileBundle\`, ${n} targets (${3 * TARGETS / 1000},000 rules)`, ms(COMPILE), "1×"],
  [
    `\`lintBundle\` of that bundle, against \`compileBundle\``,
    ms("lintBundle"),
    formatRatioSpread(caseRatio(figures, "lintBundle", COMPILE)),
  ],
  [
    `\`diffBundles\` of that bundle and a copy with 2 changes, against \`compileBundle\``,
    ms("diffBundles"),
    formatRatioSpread(caseRatio(figures, "diffBundles", COMPILE)),
  ],
  [
    "`lintBundle`, one target: 8,000 rules against 2,000, built to make a careless analysis O(n²)",
    `${ms("lint 8,000")} / ${ms("lint 2,000")}`,
    `${formatRatioSpread(caseRatio(figures, "lint 8,000", "lint 2,000"))} (4× the rules)`,
  ],
]);
run.publish("change-safety", table, "its timed calls", "ratios");
