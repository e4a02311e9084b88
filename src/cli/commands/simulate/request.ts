/**
 * `policy simulate` of one request: its decision, with `--trace full` how
 * the engine reached it.
 *
 * @module
 */
import { parseJson } from "../../../engine/parse_json.ts";
import type { Decision, Target } from "../../../engine/types.ts";
import type { CompiledBundle } from "../../../engine/compile_bundle.ts";
import { createEvaluator } from "../../../engine/evaluate.ts";
import { type EvaluationTrace, traceEvaluation } from "../../../engine/trace_evaluation.ts";
import { formatConditionTrace } from "../../../engine/format_condition.ts";
import { usageError } from "../../kit/errors.ts";
import type { Session } from "../../kit/session.ts";
import { isRecord } from "../../../_internal/guards.ts";
import { describeThrown } from "../../../_internal/describe_thrown.ts";
import { describeEffect } from "../../kit/describe.ts";
import type { Output } from "../../kit/output.ts";
import { describeVerification, simulationSource } from "./_simulate_source.ts";

/** The decision on one request, and its trace when asked for. */
export interface RequestPlan {
  decision: Decision;
  trace: EvaluationTrace | null;
}

/** Evaluates `target` and `context` against `compiled`, with its trace when `trace`. */
export function planRequest(
  compiled: CompiledBundle,
  target: Target,
  context: Record<string, unknown>,
  trace: boolean,
): RequestPlan {
  return {
    decision: createEvaluator(compiled)({ target, context }),
    trace: trace ? traceEvaluation(compiled, { target, context }) : null,
  };
}

/** Evaluates the request of the flags (read by `simulate`'s option check) and prints its decision. */
export async function runRequest(
  session: Session,
  { target, context }: { target: Target; context: Record<string, unknown> },
): Promise<number> {
  const out = session.out;
  const { file, source, compiled, verification } = await simulationSource(session);
  const { decision, trace } = planRequest(compiled, target, context, session.has("trace"));
  out.result(
    { path: file, source, verification, target, context, decision, trace, warnings: out.warnings },
    () => {
      out.line(`decision: ${describeEffect(decision.decision, decision)}`);
      out.line(`  reason: ${decision.reason}`);
      out.line(`  policy: ${decision.policyKey ?? "(none: deny by default)"}`);
      out.line(`  rule:   ${decision.ruleId ?? "(none)"}`);
      out.info(`  ${source}: ${file}`);
      out.info(`  signature: ${describeVerification(verification)}`);
      if (trace !== null) printTrace(out, trace);
    },
  );
  return 0;
}

/**
 * The request context of `--context`: a JSON object.
 *
 * @throws {CliError} `USAGE_ERROR`.
 */
export function parseContext(text: string | undefined): Record<string, unknown> {
  if (text === undefined) return {};
  let value: unknown;
  try {
    value = parseJson(text);
  } catch (error) {
    throw usageError(
      `--context is not JSON: ${describeThrown(error)}`,
      `for example --context '{"plan":"free"}'`,
    );
  }
  if (!isRecord(value)) throw usageError("--context must be a JSON object");
  return value;
}

function printTrace(out: Output, trace: EvaluationTrace): void {
  out.line("trace:");
  out.line(
    `  policies seen: ${
      trace.policiesSeen.length === 0 ? "(none)" : trace.policiesSeen.join(", ")
    }`,
  );
  out.line(`  rules seen:    ${trace.rulesSeen}`);
  out.line(`  matched:       ${trace.matchedCount}`);
  out.line("  rules considered:");
  if (trace.rules.length === 0) out.line("    (none)");
  for (const r of trace.rules) {
    out.line(
      `    ${r.policyKey}/${r.ruleId} (priority ${r.priority}): ${r.outcome}${
        r.effect === undefined ? "" : ` -> ${r.effect}`
      }`,
    );
    if (r.condition !== null) out.line(`      when: ${formatConditionTrace(r.condition)}`);
    if (r.falseBecause !== null && r.falseBecause !== r.condition) {
      out.line(`      false because: ${formatConditionTrace(r.falseBecause)}`);
    }
  }
  out.line("  candidates (strongest first):");
  if (trace.candidates.length === 0) out.line("    (none)");
  for (const c of trace.candidates) {
    out.line(`    ${c.decision} ${c.policyKey}/${c.ruleId} (priority ${c.priority}, ${c.reason})`);
  }
  const s = trace.selected;
  out.line(
    `  selected: ${
      s === null
        ? "(none: deny by default)"
        : `${s.policyKey}/${s.ruleId} (${s.decision}, priority ${s.priority})`
    }`,
  );
}
