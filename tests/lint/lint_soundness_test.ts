/**
 * Soundness of the dead-rule analysis: on random bundles and contexts, the
 * engine never selects a rule reported dead, never takes a branch reported
 * impossible or never selected, never applies defaults reported never to
 * decide; a condition reported never true (false) is never true (false);
 * enabling a disabled rule reported pointless changes no decision. And the
 * analysis is not vacuous: over the run, every code is reported.
 *
 * The seed is fixed, so every run checks the same bundles (POLICY_TEST_SEED
 * draws others, `tests/_random.ts`); `deno task test:long` checks twenty
 * times as many.
 */
import assert from "node:assert/strict";
import { compileBundle, createEvaluator, type Decision, type RuntimeBundleV1 } from "../../mod.ts";
import { compileCondition } from "../../src/engine/compile_condition.ts";
import { LINT_CODES, lintBundle, type LintIssue } from "../../src/lint/mod.ts";
import { LONG } from "../_long.ts";
import { ADDED_OPERATORS } from "../../src/public/vocabulary.ts";
import { testSeed } from "../_random.ts";
import { bundle, contextFor, fc, interestingValues } from "./_arbitraries.ts";

const RUNS = LONG ? 20_000 : 1_000;
const SEED = testSeed(19);

/** The value at a JSON Pointer of `document`. */
function at(document: unknown, pointer: string): unknown {
  let value = document;
  for (const segment of pointer.split("/").slice(1)) {
    value = (value as Record<string, unknown>)[segment];
  }
  return value;
}

/** `/policies/1/rules/2/…` → [1, 2]; `/policies/1/defaults` → [1, -1]. */
function owner(pointer: string): [number, number] {
  const parts = pointer.split("/");
  return [Number(parts[2]), parts[3] === "rules" ? Number(parts[4]) : -1];
}

/** Checks one finding against one decision of the engine. */
function checkFinding(
  b: RuntimeBundleV1,
  finding: LintIssue,
  target: RuntimeBundleV1["policies"][number]["rules"][number]["target"],
  context: Record<string, unknown>,
  decision: Decision,
  enabled: (pointer: string) => Decision,
): void {
  const [p, r] = owner(finding.path);
  const policy = b.policies[p]!;
  const rule = r >= 0 ? policy.rules[r]! : null;
  const fromRule = rule !== null && decision.policyKey === policy.policyKey &&
    decision.ruleId === rule.id;
  const why = () => `${finding.code} at ${finding.path}: ${finding.message}`;
  switch (finding.code) {
    case "RULE_SHADOWED":
    case "RULE_DUPLICATE":
      assert.ok(!fromRule, `selected although reported dead: ${why()}`);
      return;
    case "RULE_BRANCH_SHADOWED": {
      if (!fromRule) return;
      const onTrue = rule!.when === undefined || compileCondition(rule!.when)(context);
      const branch = finding.path.slice(finding.path.lastIndexOf("/") + 1);
      assert.notEqual(onTrue ? "then" : "else", branch === "elseEffect" ? "else" : "then", why());
      return;
    }
    case "DEFAULTS_SHADOWED":
      assert.ok(
        !(decision.reason === "default" && decision.policyKey === policy.policyKey),
        `defaults applied although reported never to decide: ${why()}`,
      );
      return;
    case "CONDITION_NEVER_TRUE":
    case "CONDITION_NEVER_FALSE": {
      const result = compileCondition(at(b, finding.path))(context);
      assert.equal(result, finding.code === "CONDITION_NEVER_FALSE", why());
      return;
    }
    case "RULE_DISABLED_DUPLICATE":
      assert.deepEqual(enabled(finding.path), decision, `enabling it changed a decision: ${why()}`);
      void target;
      return;
    case "OPERATOR_NEEDS_NEWER_RUNTIME": {
      // A note about older runtimes, not contexts: what it says of the rule is so.
      const node = at(b, finding.path) as { op: string };
      assert.ok((ADDED_OPERATORS as readonly string[]).includes(node.op), why());
      assert.equal(rule!.status, "active", why());
      const type = (rule!.thenEffect ?? rule!.effect).type;
      assert.ok(["deny", "kill_switch", "throttle"].includes(type), why());
      return;
    }
  }
}

Deno.test(`property (seed ${SEED}): the engine never contradicts what the dead-rule analysis reports`, () => {
  const reported = new Map<string, number>(LINT_CODES.map((code) => [code, 0]));
  const arbitrary = bundle.chain((b) =>
    fc.tuple(
      fc.constant(b),
      fc.array(contextFor(interestingValues(b)), { minLength: 8, maxLength: 24 }),
    )
  );
  fc.assert(
    fc.property(arbitrary, ([b, contexts]) => {
      const findings = lintBundle(b);
      for (const f of findings) reported.set(f.code, reported.get(f.code)! + 1);
      const evaluate = createEvaluator(compileBundle(b));
      const enabledEvaluators = new Map<string, ReturnType<typeof createEvaluator>>();
      const targets = new Map(
        b.policies.flatMap((p) => p.rules).map((r) => [JSON.stringify(r.target), r.target]),
      );
      for (const target of targets.values()) {
        for (const context of contexts) {
          const decision = evaluate({ target, context });
          const enabled = (pointer: string) => {
            let evaluator = enabledEvaluators.get(pointer);
            if (evaluator === undefined) {
              const copy = structuredClone(b);
              (at(copy, pointer) as Record<string, unknown>).status = "active";
              enabledEvaluators.set(pointer, evaluator = createEvaluator(compileBundle(copy)));
            }
            return evaluator({ target, context });
          };
          for (const finding of findings) {
            checkFinding(b, finding, target, context, decision, enabled);
          }
        }
      }
    }),
    { seed: SEED, numRuns: RUNS },
  );
  // Not vacuous: the generated bundles make every kind of finding, often.
  for (const [code, count] of reported) {
    assert.ok(
      count >= (LONG ? 50 : 3),
      `${code} was reported only ${count} times in ${RUNS} bundles`,
    );
  }
});
