// This module is browser compatible.
/**
 * Simulation suites (docs/cli.md, "`simulate`"): the document, its check
 * and its run, without I/O. `policy simulate --suite`, `policy diff --suite`
 * and the playground (docs/playground.md) use these; the CLI adds reading
 * the file and its errors (`src/cli/kit/suite.ts`).
 *
 * @module
 */
import type { Decision, EffectType, Issue, Policy, Target } from "../engine/types.ts";
import { EFFECT_TYPES } from "../public/vocabulary.ts";
import { type CompiledBundle, policiesOf } from "../engine/compile_bundle.ts";
import { createEvaluator } from "../engine/evaluate.ts";
import { rulesThatFire } from "../engine/trace_evaluation.ts";
import { unknownFieldIssues } from "../_internal/unknown_field_issue.ts";
import { isEffectType, isRecord } from "../_internal/guards.ts";

/** A scenario of a simulation suite. */
export interface Scenario {
  name: string;
  target: Target;
  context: Record<string, unknown>;
  expected: { decision: EffectType; ruleId?: string; reason?: "rule" | "default" };
}

/** A checked suite: its scenarios, or every problem that makes it invalid. */
export interface CheckedSuite {
  /** The suite's name; null when it has none (a problem then says so). */
  name: string | null;
  /** The scenarios, when there is no problem. */
  scenarios: Scenario[];
  /** Unknown fields (`UNKNOWN_FIELD`), with their JSON Pointer. */
  warnings: Issue[];
  /** What makes the suite invalid, for people (`scenarios[2].name must be …`); empty when valid. */
  problems: string[];
}

/** The fields of a suite, a scenario, its target and its expectation (`$schema` for editors). */
const SUITE_FIELDS = {
  suite: ["$schema", "name", "scenarios"],
  scenario: ["name", "target", "context", "expected"],
  target: ["service", "resource", "action"],
  expected: ["decision", "ruleId", "reason"],
} as const;

/**
 * Checks a parsed suite document. Unknown fields are returned as warnings
 * (an expectation spelled `ruleID` would otherwise go unchecked and its
 * scenario pass); with `strict` they are also a problem.
 */
export function checkSuite(document: unknown, options: { strict?: boolean } = {}): CheckedSuite {
  if (!isRecord(document)) {
    return {
      name: null,
      scenarios: [],
      warnings: [],
      problems: ["a suite must be a JSON object with name and scenarios"],
    };
  }
  const problems: string[] = [];
  const warnings: Issue[] = [];
  const fields = (object: unknown, known: readonly string[], at: string, name: string) =>
    warnings.push(...unknownFieldIssues(object, known, at, name, "simulate"));
  fields(document, SUITE_FIELDS.suite, "", "the suite");
  const name = typeof document.name === "string" && document.name !== "" ? document.name : null;
  if (name === null) problems.push("name must be a non-empty string");
  const scenarios: Scenario[] = [];
  if (!Array.isArray(document.scenarios)) {
    problems.push("scenarios must be an array");
  } else {
    document.scenarios.forEach((s: unknown, i: number) => {
      const at = `scenarios[${i}]`;
      if (!isRecord(s)) return void problems.push(`${at} must be an object`);
      const pointer = `/scenarios/${i}`;
      const label = `scenario ${typeof s.name === "string" ? JSON.stringify(s.name) : i}`;
      fields(s, SUITE_FIELDS.scenario, pointer, label);
      fields(s.target, SUITE_FIELDS.target, `${pointer}/target`, label);
      fields(s.expected, SUITE_FIELDS.expected, `${pointer}/expected`, label);
      if (typeof s.name !== "string" || s.name === "") {
        problems.push(`${at}.name must be a non-empty string`);
      }
      const t = s.target;
      if (
        !isRecord(t) || typeof t.service !== "string" || typeof t.resource !== "string" ||
        typeof t.action !== "string"
      ) {
        problems.push(`${at}.target must be {service, resource, action} (strings)`);
      }
      if (s.context !== undefined && !isRecord(s.context)) {
        problems.push(`${at}.context must be an object`);
      }
      const e = s.expected;
      if (!isRecord(e) || !isEffectType(e.decision)) {
        problems.push(`${at}.expected.decision must be one of ${EFFECT_TYPES.join(", ")}`);
      } else {
        if (e.ruleId !== undefined && typeof e.ruleId !== "string") {
          problems.push(`${at}.expected.ruleId must be a string`);
        }
        if (e.reason !== undefined && e.reason !== "rule" && e.reason !== "default") {
          problems.push(`${at}.expected.reason must be rule or default`);
        }
      }
      if (problems.length === 0) {
        const target = t as unknown as Target;
        const expected = e as Scenario["expected"];
        scenarios.push({
          name: s.name as string,
          target: { service: target.service, resource: target.resource, action: target.action },
          context: (s.context ?? {}) as Record<string, unknown>,
          expected: {
            decision: expected.decision,
            ...(expected.ruleId === undefined ? {} : { ruleId: expected.ruleId }),
            ...(expected.reason === undefined ? {} : { reason: expected.reason }),
          },
        });
      }
    });
  }
  if (options.strict && warnings.length > 0) {
    problems.push(`${warnings.length} unknown field(s), which --strict refuses`);
  }
  return { name, scenarios: problems.length === 0 ? scenarios : [], warnings, problems };
}

/** The result of one scenario. */
export interface ScenarioResult {
  name: string;
  passed: boolean;
  expected: Scenario["expected"];
  actual: Decision;
  /** The expected fields that differ: `decision`, `ruleId`, `reason`. */
  mismatches: string[];
  durationMs: number;
}

/** A rule, by its policy and id. */
export interface RuleRef {
  policyKey: string;
  ruleId: string;
}

/** The result of {@link runSuite}. */
export interface SuiteRun {
  /** One result per scenario, in suite order. */
  results: ScenarioResult[];
  summary: { scenarios: number; passed: number; failed: number; durationMs: number };
  /** The active rules of the bundle, and those no scenario made fire. */
  coverage: { activeRules: number; exercised: number; unexercised: RuleRef[] };
}

/**
 * Runs scenarios against a compiled bundle with the engine: each scenario's
 * decision against its expectation (the expected fields only). The rules
 * that fired for a scenario (per its trace) are added to `exercised`, for
 * {@link coverageOf}. `now` (monotonic milliseconds, `Clock.now`) times
 * each scenario, in whole milliseconds; without it durations are 0.
 */
export function runScenarios(
  compiled: CompiledBundle,
  scenarios: readonly Scenario[],
  options: { now?: () => number; exercised?: Set<string> } = {},
): ScenarioResult[] {
  const now = options.now ?? (() => 0);
  const exercised = options.exercised ?? new Set<string>();
  const evaluate = createEvaluator(compiled);
  const results: ScenarioResult[] = [];
  for (const scenario of scenarios) {
    const t0 = now();
    const request = { target: scenario.target, context: scenario.context };
    const actual = evaluate(request);
    for (const r of rulesThatFire(compiled, request)) exercised.add(ruleKey(r.policyKey, r.ruleId));
    const e = scenario.expected;
    const mismatches: string[] = [];
    if (actual.decision !== e.decision) mismatches.push("decision");
    if (e.ruleId !== undefined && actual.ruleId !== e.ruleId) mismatches.push("ruleId");
    if (e.reason !== undefined && actual.reason !== e.reason) mismatches.push("reason");
    results.push({
      name: scenario.name,
      passed: mismatches.length === 0,
      expected: e,
      actual,
      mismatches,
      durationMs: Math.round(now() - t0),
    });
  }
  return results;
}

/**
 * The active rules of a bundle's policies (`policiesOf` of the compiled
 * bundle), and those not in `exercised` (filled by {@link runScenarios}).
 */
export function coverageOf(
  policies: readonly Policy[],
  exercised: ReadonlySet<string>,
): SuiteRun["coverage"] {
  const active = policies.flatMap((p) =>
    p.rules.filter((r) => r.status === "active").map((r) => ({
      policyKey: p.policyKey,
      ruleId: r.id,
    }))
  );
  const unexercised = active.filter((r) => !exercised.has(ruleKey(r.policyKey, r.ruleId)));
  return {
    activeRules: active.length,
    exercised: active.length - unexercised.length,
    unexercised,
  };
}

/**
 * Runs one suite's scenarios ({@link runScenarios}) and sums them up: the
 * counts, and the active rules no scenario made fire.
 */
export function runSuite(
  compiled: CompiledBundle,
  scenarios: readonly Scenario[],
  options: { now?: () => number } = {},
): SuiteRun {
  const now = options.now ?? (() => 0);
  const exercised = new Set<string>();
  const started = now();
  const results = runScenarios(compiled, scenarios, { now, exercised });
  const durationMs = Math.round(now() - started);
  const passed = results.filter((r) => r.passed).length;
  return {
    results,
    summary: { scenarios: results.length, passed, failed: results.length - passed, durationMs },
    coverage: coverageOf(policiesOf(compiled), exercised),
  };
}

function ruleKey(policyKey: string, ruleId: string): string {
  return JSON.stringify([policyKey, ruleId]);
}

/** An expectation or a decision in words, for example `deny (reason rule, rule free-plan)`. */
export function describeOutcome(
  o: {
    decision: string;
    reason?: string | undefined;
    ruleId?: string | undefined;
    policyKey?: string | undefined;
  },
): string {
  const parts = [
    o.reason === undefined ? undefined : `reason ${o.reason}`,
    o.policyKey === undefined ? undefined : `policy ${o.policyKey}`,
    o.ruleId === undefined ? undefined : `rule ${o.ruleId}`,
  ].filter((p) => p !== undefined);
  return parts.length === 0 ? o.decision : `${o.decision} (${parts.join(", ")})`;
}
