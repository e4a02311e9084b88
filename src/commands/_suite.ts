/**
 * Simulation suites (`simulate --suite`, `diff --suite`): the document and
 * its check.
 *
 * @module
 */
import type { EffectType, Issue, Target } from "../engine/types.ts";
import { EFFECT_TYPES } from "../engine/types.ts";
import { unknownFieldIssues } from "../_internal/unknown_field_issue.ts";
import { CliError } from "./_errors.ts";
import { isEffectType, isRecord } from "../_internal/guards.ts";

/** A scenario of a simulation suite. */
export interface Scenario {
  name: string;
  target: Target;
  context: Record<string, unknown>;
  expected: { decision: EffectType; ruleId?: string; reason?: "rule" | "default" };
}

/** The fields of a suite, a scenario, its target and its expectation (`$schema` for editors). */
const SUITE_FIELDS = {
  suite: ["$schema", "name", "scenarios"],
  scenario: ["name", "target", "context", "expected"],
  target: ["service", "resource", "action"],
  expected: ["decision", "ruleId", "reason"],
} as const;

/**
 * Checks a suite document. Unknown fields are returned as warnings
 * (`UNKNOWN_FIELD`, with the closest known name: an expectation spelled
 * `ruleID` would otherwise go unchecked and its scenario pass); with
 * `strict` they make the suite invalid.
 *
 * @throws {CliError} `SUITE_INVALID`, listing every problem.
 */
export function parseSuite(
  document: unknown,
  file: string,
  options: { strict?: boolean } = {},
): { name: string; scenarios: Scenario[]; warnings: Issue[] } {
  const problems: string[] = [];
  if (!isRecord(document)) {
    throw new CliError("SUITE_INVALID", `${file} must be a JSON object with name and scenarios`);
  }
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
  if (problems.length > 0) {
    throw new CliError(
      "SUITE_INVALID",
      `${file} is not a valid simulation suite: ${problems.join("; ")}`,
    );
  }
  return { name: name!, scenarios, warnings };
}
