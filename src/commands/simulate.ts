/**
 * `policy simulate`: evaluates one request, or a suite of scenarios, with
 * the same engine as the SDK.
 *
 * @module
 */
import { parseJson } from "../engine/parse_json.ts";
import type { Target } from "../engine/types.ts";
import type { CompiledBundle } from "../engine/compile_bundle.ts";
import { createEvaluator } from "../engine/evaluate.ts";
import { isPolicyError } from "../_internal/policy_error.ts";
import type { LoadedBundle } from "../verify/load_bundle.ts";
import { type EvaluationTrace, traceEvaluation } from "../engine/trace_evaluation.ts";
import { exitCodeFor, usageError, withHint } from "./_errors.ts";
import { defineCommand, type Session } from "./_session.ts";
import { loadBundleFile, readBundleFileUnverified } from "./_bundle.ts";
import { bundleDocument } from "./_documents.ts";
import { isRecord } from "../_internal/guards.ts";
import { describeValue } from "../_internal/check_options.ts";
import { describeEffect, plural } from "./_describe.ts";
import { writeFileAtomic } from "./_atomic_write.ts";
import { renderJunit } from "./_junit.ts";
import {
  mergeSigningBlocks,
  resolveVerifyKey,
  VERIFY_ALGORITHM_FLAG,
  verifyAlgorithm,
} from "./_signing.ts";
import type { Output } from "./_output.ts";
import { parseSuite } from "./_suite.ts";
import { describeOutcome, runSuite } from "../_authoring/suite.ts";
import { describeThrown } from "../_internal/describe_thrown.ts";

/** Evaluates requests against the bundle. */
export const runSimulate = defineCommand(
  {
    name: "simulate",
    usage:
      "simulate --service <s> --resource <r> --action <a> [--context <json>] [--trace full]\n       policy simulate --suite <path> [--junit <path>]",
    summary: [
      "Evaluates a request against the bundle with the same engine as the SDK and prints the",
      "decision, reason, policy and rule; --trace full also lists the policies and rules seen,",
      "each rule's outcome and the candidates. --suite runs a simulation suite (name,",
      "scenarios[] of {name, target, context, expected: {decision, ruleId?, reason?}}),",
      "prints each scenario's result, a summary and the active rules no scenario exercised,",
      "and exits 1 when a scenario fails. When a verification key is configured (see",
      "'policy inspect --help'; sign.signing wins over build.signing) the bundle's signature",
      "is verified first. Paths resolve from the working folder.",
    ].join("\n"),
    flags: {
      service: { type: "string", value: "<service>", description: "target service" },
      resource: { type: "string", value: "<resource>", description: "target resource" },
      action: { type: "string", value: "<action>", description: "target action" },
      context: {
        type: "string",
        value: "<json>",
        description: "context object as JSON (default {})",
      },
      trace: { type: "string", value: "full", description: "print the full evaluation trace" },
      suite: { type: "string", value: "<path>", description: "run a simulation suite" },
      junit: {
        type: "string",
        value: "<path>",
        description: "with --suite: also write JUnit XML to <path>",
      },
      bundle: {
        type: "string",
        value: "<path>",
        description:
          "bundle to evaluate, relative to the working folder (default: the configured one)",
      },
      "skip-verify": {
        type: "boolean",
        description: "do not verify the signature even when a key is configured",
      },
      ...VERIFY_ALGORITHM_FLAG,
    },
  },
  async (session) => {
    const single = ["service", "resource", "action", "context", "trace"].filter((f) =>
      session.has(f)
    );
    if (session.has("suite")) {
      if (single.length > 0) {
        throw usageError(`--suite cannot be combined with --${single[0]}`);
      }
      return await runSuiteCommand(session);
    }
    if (session.has("junit")) throw usageError("--junit needs --suite");
    return await runOne(session);
  },
);

/** How the bundle's signature was treated. */
interface Verification {
  /**
   * `verified` with the configured key; `unsigned`: no key is configured and
   * the bundle has no signature (what a client with `allowUnsigned` loads);
   * `skipped`: `--skip-verify`.
   */
  status: "verified" | "unsigned" | "skipped";
  algorithm: string | null;
  keyId: string | null;
  keySource: string | null;
}

/**
 * Loads the bundle through the library's load pipeline with the key a
 * client would be given (the configured one), so the command accepts and
 * refuses exactly what that client would. `--skip-verify` is the explicit
 * way to evaluate a bundle whose signature cannot be checked; its checksum
 * must still match.
 */
async function prepare(
  session: Session,
): Promise<{ file: string; compiled: CompiledBundle; verification: Verification }> {
  const config = await session.config();
  const { file } = await bundleDocument(session);
  const skip = session.has("skip-verify");
  const algorithm = verifyAlgorithm(session);
  const key = skip ? null : await resolveVerifyKey(session, {
    signing: mergeSigningBlocks(config.build.signing, config.sign.signing),
    algorithm,
  });
  if (skip) session.out.note("signature verification skipped (--skip-verify)");
  else if (key === null) session.out.note("no verification key configured");
  else session.out.note(`verifying the signature with ${key.algorithm} key from ${key.source}`);
  if (skip) {
    // The pipeline, reporting integrity failures: only the checksum's stops the command.
    const seen = await readBundleFileUnverified(session, file);
    const verification: Verification = {
      status: "skipped",
      algorithm: null,
      keyId: null,
      keySource: null,
    };
    return { file, compiled: seen.compiled, verification };
  }
  let loaded: LoadedBundle;
  try {
    loaded = await loadBundleFile(session, file, key);
  } catch (error) {
    if (isPolicyError(error, "BUNDLE_SIGNATURE_UNVERIFIED")) {
      throw withHint(
        error,
        "configure the key clients verify it with (signature.publicKeyPath, POLICY_PUBLIC_KEY, POLICY_PUBLIC_KEY_PATH, or a signing block), or pass --skip-verify to evaluate it unverified",
      );
    }
    throw error;
  }
  const signature = loaded.status.signature;
  const verification: Verification = signature.status === "verified"
    ? {
      status: "verified",
      algorithm: signature.algorithm,
      keyId: signature.keyId,
      keySource: key?.source ?? null,
    }
    : { status: "unsigned", algorithm: null, keyId: null, keySource: null };
  return { file, compiled: loaded.compiled, verification };
}

async function runOne(session: Session): Promise<number> {
  const out = session.out;
  const target: Target = {
    service: session.requireString("service", "(or --suite)"),
    resource: session.requireString("resource", "(or --suite)"),
    action: session.requireString("action", "(or --suite)"),
  };
  const context = parseContext(session.string("context"));
  const trace = session.string("trace");
  if (trace !== undefined && trace !== "full") {
    throw usageError(`--trace takes 'full', not ${describeValue(trace)}`);
  }
  const { file, compiled, verification } = await prepare(session);
  const decision = createEvaluator(compiled)({ target, context });
  const traced = trace === "full" ? traceEvaluation(compiled, { target, context }) : null;
  out.result(
    {
      path: file,
      verification,
      target,
      context,
      decision,
      trace: traced,
      warnings: out.warnings,
    },
    () => {
      out.line(`decision: ${describeEffect(decision.decision, decision)}`);
      out.line(`  reason: ${decision.reason}`);
      out.line(`  policy: ${decision.policyKey ?? "(none: deny by default)"}`);
      out.line(`  rule:   ${decision.ruleId ?? "(none)"}`);
      out.info(`  bundle: ${file}`);
      out.info(`  signature: ${describeVerification(verification)}`);
      if (traced !== null) printTrace(out, traced);
    },
  );
  return 0;
}

function parseContext(text: string | undefined): Record<string, unknown> {
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

function describeVerification(v: Verification): string {
  switch (v.status) {
    case "verified":
      return `verified (${v.algorithm}, key id ${v.keyId})`;
    case "unsigned":
      return "unsigned (no key configured, and the bundle has no signature)";
    case "skipped":
      return "not verified (--skip-verify)";
  }
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

async function runSuiteCommand(session: Session): Promise<number> {
  const out = session.out;
  const suiteFile = await session.fromWorkingFolder(session.requireString("suite"));
  const junit = session.string("junit");
  const junitFile = junit === undefined ? null : await session.fromWorkingFolder(junit);
  const suite = parseSuite(await session.readJson(suiteFile, "suite"), suiteFile, {
    strict: session.global.strict,
  });
  for (const w of suite.warnings) {
    session.out.warn(w.code, `${suiteFile}: ${w.message} (at ${w.path})`);
  }
  const { file, compiled, verification } = await prepare(session);
  const { clock } = session.io;
  // When the suite ran (the JUnit report's timestamp), and its durations on the monotonic clock.
  const startedAt = new Date(clock.wallNow());
  const { results, summary, coverage } = runSuite(compiled, suite.scenarios, {
    now: () => clock.now(),
  });
  const { durationMs } = summary;
  const unexercised = coverage.unexercised;

  if (junitFile !== null) {
    const xml = renderJunit(
      suite.name,
      results.map((r) => ({
        name: r.name,
        durationMs: r.durationMs,
        failure: r.passed ? null : {
          message: `expected ${describeOutcome(r.expected)}, got ${describeOutcome(r.actual)}`,
          details: `expected: ${JSON.stringify(r.expected)}\nactual: ${JSON.stringify(r.actual)}`,
        },
      })),
      durationMs,
      startedAt,
    );
    await writeFileAtomic(junitFile, xml, { createParents: true });
    out.note(`wrote ${junitFile} (JUnit XML)`);
  }

  out.result(
    {
      path: file,
      suite: { path: suiteFile, name: suite.name },
      verification,
      scenarios: results,
      summary,
      coverage,
      junitPath: junitFile,
      warnings: out.warnings,
    },
    () => {
      out.info(`suite "${suite.name}": ${plural(results.length, "scenario")} against ${file}`);
      out.info(`signature: ${describeVerification(verification)}`);
      for (const r of results) {
        if (r.passed) {
          out.info(`PASS ${r.name}`);
        } else {
          out.line(`FAIL ${r.name}`);
          out.line(`  expected: ${describeOutcome(r.expected)}`);
          out.line(`  actual:   ${describeOutcome(r.actual)}`);
        }
      }
      out.line(
        `scenarios ${summary.scenarios}, passed ${summary.passed}, failed ${summary.failed} (${summary.durationMs} ms)`,
      );
      out.info(
        `coverage: ${coverage.exercised} of ${
          plural(coverage.activeRules, "active rule")
        } exercised${
          unexercised.length === 0
            ? ""
            : `; not exercised: ${unexercised.map((r) => `${r.policyKey}/${r.ruleId}`).join(", ")}`
        }`,
      );
    },
  );
  return summary.failed === 0 ? 0 : exitCodeFor("SIMULATION_FAILED");
}
