/**
 * `policy simulate`: evaluates one request, or suites of scenarios, with
 * the same engine as the SDK, against the bundle or (`--draft`) the bundle
 * the draft builds to; `--watch` runs again on every change
 * (`docs/cli.md`, "simulate").
 *
 * @module
 */
import { parseJson } from "../../../engine/parse_json.ts";
import type { Target } from "../../../engine/types.ts";
import { policiesOf } from "../../../engine/compile_bundle.ts";
import { createEvaluator } from "../../../engine/evaluate.ts";
import { type EvaluationTrace, traceEvaluation } from "../../../engine/trace_evaluation.ts";
import { formatConditionTrace } from "../../../engine/format_condition.ts";
import {
  describeError,
  type ExitCode,
  exitCodeFor,
  exitCodeWhenNotRun,
  usageError,
} from "../../kit/errors.ts";
import { defineCommand, type Session } from "../../kit/session.ts";
import { isRecord } from "../../../_internal/guards.ts";
import { describeValue } from "../../../_internal/check_options.ts";
import { describeThrown } from "../../../_internal/describe_thrown.ts";
import { VERIFY_ALGORITHM_FLAG } from "../../kit/verify_key.ts";
import { describeEffect, plural } from "../../kit/describe.ts";
import { writeFileAtomic } from "../../kit/atomic_write.ts";
import { COVERAGE_SUITE, type JunitError, type JunitSuite, renderJunit } from "./_junit.ts";
import type { Output } from "../../kit/output.ts";
import { parseSuite, suiteFiles } from "../../kit/suite.ts";
import {
  coverageOf,
  describeOutcome,
  runScenarios,
  type Scenario,
  type ScenarioResult as AuthoredScenarioResult,
} from "../../../_authoring/suite.ts";
import { scenarioFilter } from "./scenario_filter.ts";
import {
  describeVerification,
  type SimulationSource,
  simulationSource,
} from "./_simulate_source.ts";
import { type FileStates, fileStates, waitForChange } from "./watch.ts";
import type { CommandSpec } from "../../kit/command_spec.ts";

/** Flags of one request; they cannot be combined with `--suite`. */
const REQUEST_FLAGS = ["service", "resource", "action", "context", "trace"];
/** Flags that only apply with `--suite`. */
const SUITE_ONLY_FLAGS = ["junit", "run", "coverage-threshold"];

/** The declaration of `simulate`. */
export const SIMULATE_SPEC: CommandSpec = {
  name: "simulate",
  usage: [
    "simulate --service <s> --resource <r> --action <a> [--context <json>] [--trace full]",
    "       policy simulate --suite <file|folder>… [--run <regex>] [--coverage-threshold <percent>]",
    "                       [--junit <path>]",
    "       common: [--draft | --bundle <path>] [--public-key <path> | --skip-verify] [--watch]",
  ].join("\n"),
  summary: [
    "Evaluates a request with the same engine as the SDK and prints the decision, reason,",
    "policy and rule; --trace full also lists the rules seen, each rule's outcome with its",
    "condition explained leaf by leaf (the value read, the comparison, the outcome), and the",
    "candidates. --suite runs simulation suites (a file, or every *.suite.json below a",
    "folder; repeatable), prints each scenario's result, a summary and the active rules no",
    "scenario exercised. --draft evaluates the draft as the bundle built from it would decide",
    "(nothing is built or written). With a verification key (found as 'policy inspect' finds",
    "it) the bundle's signature is verified first; without one a signed bundle is evaluated",
    "unverified, with a warning (--strict: refused). Exit 1: a scenario failed; 2: the run",
    "could not happen (bundle, key, suite file, flags); 4: below --coverage-threshold.",
    "--watch runs again whenever a file it read changes, until interrupted. Paths resolve",
    "from the working folder, --public-key from the current folder.",
  ].join("\n"),
  exitCodeOf: exitCodeWhenNotRun,
  flags: {
    service: { type: "string", value: "<service>", description: "target service" },
    resource: { type: "string", value: "<resource>", description: "target resource" },
    action: { type: "string", value: "<action>", description: "target action" },
    context: {
      type: "string",
      value: "<json>",
      description: "context object as JSON (default {})",
    },
    trace: {
      type: "string",
      value: "full",
      choices: ["full"],
      bare: "full",
      description: "print the full evaluation trace, conditions included (bare --trace: full)",
    },
    suite: {
      type: "string",
      value: "<path>",
      multiple: true,
      description: "run a suite file, or every *.suite.json below a folder (repeatable)",
    },
    run: {
      type: "string",
      value: "<regex>",
      description: "with --suite: run only the scenarios whose name matches",
    },
    "coverage-threshold": {
      type: "string",
      value: "<percent>",
      description: "with --suite: exit 4 when fewer active rules were exercised",
    },
    junit: {
      type: "string",
      value: "<path>",
      description: "with --suite: also write JUnit XML to <path>",
    },
    draft: {
      type: "boolean",
      description: "evaluate the draft as the bundle built from it would decide",
    },
    bundle: {
      type: "string",
      value: "<path>",
      description:
        "bundle to evaluate, relative to the working folder (default: the configured one)",
    },
    "public-key": {
      type: "string",
      value: "<path>",
      description: "verification key file, relative to the current folder",
    },
    "skip-verify": {
      type: "boolean",
      description: "do not verify the signature even when a key is configured",
    },
    ...VERIFY_ALGORITHM_FLAG,
    watch: {
      type: "boolean",
      description: "run again whenever the draft, bundle, suites, keys or config change",
    },
  },
  examples: [
    'policy simulate --draft --service billing --resource invoice --action create --context \'{"plan":"free","seats":12}\' --trace full',
    "policy simulate --draft --suite policy/suites --run '^free plan' --coverage-threshold 80",
    "policy simulate --suite policy/suite.json --junit report.xml",
  ],
};

/** Evaluates requests against the bundle or the draft. */
export const runSimulate = defineCommand(SIMULATE_SPEC, async (session) => {
  const options = simulationOptions(session);
  if (session.has("watch")) return await watch(session, options);
  return await runOnce(session, options);
});

/** What the flags ask for, checked before anything is read. */
interface SimulationOptions {
  suites: boolean;
  filter: ((name: string) => boolean) | null;
  threshold: number | null;
}

/**
 * Checks the flags together: every usage error comes out here, before any
 * file is read (and before `--watch` starts).
 *
 * @throws {CliError} `USAGE_ERROR`.
 */
function simulationOptions(session: Session): SimulationOptions {
  const given = (flags: readonly string[]) => flags.filter((f) => session.has(f));
  const suites = session.has("suite");
  if (suites && given(REQUEST_FLAGS).length > 0) {
    throw usageError(`--suite cannot be combined with --${given(REQUEST_FLAGS)[0]}`);
  }
  if (!suites && given(SUITE_ONLY_FLAGS).length > 0) {
    throw usageError(`--${given(SUITE_ONLY_FLAGS)[0]} needs --suite`);
  }
  if (session.has("draft")) {
    const other = given(["bundle", "public-key", "skip-verify", "algorithm"]);
    if (other.length > 0) {
      throw usageError(
        `--draft cannot be combined with --${other[0]}: the draft has no signature`,
        "drop --draft to evaluate the bundle",
      );
    }
  }
  if (session.has("public-key") && session.has("skip-verify")) {
    throw usageError(
      "--public-key names a key to verify with; it cannot be combined with --skip-verify",
    );
  }
  if (session.has("watch") && session.out.json) {
    throw usageError(
      "--watch prints for people, run after run; it cannot be combined with --format json",
      "run without --watch for one JSON document",
    );
  }
  const trace = session.string("trace");
  if (trace !== undefined && trace !== "full") {
    throw usageError(`--trace takes 'full', not ${describeValue(trace)}`);
  }
  const run = session.string("run");
  const threshold = session.number("coverage-threshold") ?? null;
  if (threshold !== null && !(threshold >= 0 && threshold <= 100)) {
    throw usageError(`--coverage-threshold is a percentage from 0 to 100, not ${threshold}`);
  }
  if (!suites) {
    for (const flag of ["service", "resource", "action"]) {
      session.requireString(flag, "(or --suite)");
    }
    parseContext(session.string("context"));
  }
  return { suites, filter: run === undefined ? null : scenarioFilter(run), threshold };
}

/** One run: a request or the suites. */
async function runOnce(session: Session, options: SimulationOptions): Promise<number> {
  return options.suites ? await runSuites(session, options) : await runOne(session);
}

/**
 * `--watch`: runs, then waits for a change of any file the run read (or a
 * folder it looked into for suites), and runs again, on a fresh session (the
 * config is read again too), until the I/O's signal aborts; a run that fails
 * prints its error and the watch goes on. Returns the last run's exit code.
 */
async function watch(session: Session, options: SimulationOptions): Promise<number> {
  const io = session.io;
  let run = session;
  let previous: readonly string[] = [];
  for (;;) {
    // The files of the last run, as they are before this one: a change made while it runs is seen.
    const before = await fileStates(io.files, previous);
    run.out.clearScreen();
    let code: number;
    try {
      code = await runOnce(run, options);
    } catch (error) {
      const report = describeError(error);
      run.out.error(report);
      code = exitCodeWhenNotRun(report.code);
    }
    const files = [...run.filesRead].sort();
    const since: Map<string, string> = new Map(await fileStates(io.files, files));
    for (const [file, state] of before) if (since.has(file)) since.set(file, state);
    run.out.aside(`watching ${plural(files.length, "file")} for changes (Ctrl-C to stop)`);
    const changed = await waitForChange(io, since as FileStates);
    if (changed === null) return code;
    run = session.again();
    run.out.aside(`${changed} changed: running again`);
    previous = files;
  }
}

async function runOne(session: Session): Promise<number> {
  const out = session.out;
  const target: Target = {
    service: session.requireString("service", "(or --suite)"),
    resource: session.requireString("resource", "(or --suite)"),
    action: session.requireString("action", "(or --suite)"),
  };
  const context = parseContext(session.string("context"));
  const { file, source, compiled, verification } = await simulationSource(session);
  const decision = createEvaluator(compiled)({ target, context });
  const traced = session.has("trace") ? traceEvaluation(compiled, { target, context }) : null;
  out.result(
    {
      path: file,
      source,
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
      out.info(`  ${source}: ${file}`);
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

/** The result of one scenario, with the suite file it comes from. */
type ScenarioResult = { suitePath: string } & AuthoredScenarioResult;

/** A suite file read: its path and name, and the scenarios `--run` selects. */
interface LoadedSuite {
  path: string;
  name: string;
  scenarios: Scenario[];
  /** Scenarios `--run` left out. */
  skipped: number;
}

/**
 * Runs the suites: finds and checks every suite file, loads what is
 * evaluated, runs the selected scenarios, reports, and with `--junit` writes
 * the report, also when the suites could not run (an `<error>` saying why).
 */
async function runSuites(session: Session, options: SimulationOptions): Promise<number> {
  const out = session.out;
  const junit = session.string("junit");
  const junitFile = junit === undefined ? null : await session.fromWorkingFolder(junit);
  const { clock } = session.io;
  // When the suites ran (the JUnit report's timestamps), and durations on the monotonic clock.
  const startedAt = new Date(clock.wallNow());
  const started = clock.now();
  const given = await Promise.all(
    session.strings("suite").map((p) => session.fromWorkingFolder(p)),
  );
  let files: string[] = given;
  const loaded: LoadedSuite[] = [];
  let evaluated: SimulationSource;
  try {
    files = await suiteFiles(session.files, given, {
      onFolder: (folder) => session.filesRead.add(folder),
    });
    for (const file of files) loaded.push(await readSuite(session, file, options));
    evaluated = await simulationSource(session);
  } catch (error) {
    if (junitFile !== null) {
      const wf = (await session.workingFolder()).path;
      const report = describeError(error);
      const why: JunitError = { type: report.code, message: report.message };
      const suites = files.map((file): JunitSuite => ({
        name: loaded.find((s) => s.path === file)?.name ?? session.files.path.relative(wf, file),
        timestamp: startedAt,
        durationMs: 0,
        cases: [],
        error: why,
      }));
      await writeJunit(session, junitFile, suites);
    }
    throw error;
  }
  const { file, source, compiled, verification } = evaluated;
  const policies = policiesOf(compiled);

  const exercised = new Set<string>();
  const results: ScenarioResult[] = [];
  const timings: { startedAt: Date; durationMs: number }[] = [];
  for (const suite of loaded) {
    const suiteStartedAt = new Date(clock.wallNow());
    const suiteStarted = clock.now();
    const own = runScenarios(compiled, suite.scenarios, { now: () => clock.now(), exercised });
    results.push(...own.map((r) => ({ suitePath: suite.path, ...r })));
    timings.push({
      startedAt: suiteStartedAt,
      durationMs: Math.round(clock.now() - suiteStarted),
    });
  }
  const durationMs = Math.round(clock.now() - started);
  const passed = results.filter((r) => r.passed).length;
  const skipped = loaded.reduce((n, s) => n + s.skipped, 0);
  const summary = {
    scenarios: results.length,
    passed,
    failed: results.length - passed,
    skipped,
    durationMs,
  };
  const suites = loaded.map((s) => {
    const own = results.filter((r) => r.suitePath === s.path);
    const ok = own.filter((r) => r.passed).length;
    return {
      path: s.path,
      name: s.name,
      scenarios: own.length,
      passed: ok,
      failed: own.length - ok,
      skipped: s.skipped,
    };
  });

  const { activeRules, exercised: exercisedCount, unexercised } = coverageOf(
    policies,
    exercised,
  );
  const percent = activeRules === 0 ? 100 : Math.floor(exercisedCount / activeRules * 1000) / 10;
  const threshold = options.threshold;
  const coverage = {
    activeRules,
    exercised: exercisedCount,
    unexercised,
    percent,
    threshold,
    belowThreshold: threshold !== null && percent < threshold,
  };

  if (junitFile !== null) {
    const notExercised = unexercised.map((r) => `${r.policyKey}/${r.ruleId}`).join(", ");
    // A shortfall is a failure CI dashboards count, not only an exit code.
    const coverageSuite: JunitSuite[] = threshold === null ? [] : [{
      name: COVERAGE_SUITE,
      timestamp: startedAt,
      durationMs: 0,
      error: null,
      cases: [{
        name: `at least ${threshold}% of the active rules exercised`,
        durationMs: 0,
        failure: !coverage.belowThreshold ? null : {
          type: "COVERAGE_BELOW_THRESHOLD",
          message: `coverage ${percent}% is below --coverage-threshold ${threshold}%`,
          details:
            `${exercisedCount} of ${activeRules} active rules exercised (${percent}%); not exercised: ${notExercised}`,
        },
      }],
    }];
    await writeJunit(session, junitFile, [
      ...loaded.map((s, i): JunitSuite => ({
        name: s.name,
        timestamp: timings[i]!.startedAt,
        durationMs: timings[i]!.durationMs,
        error: null,
        cases: results.filter((r) => r.suitePath === s.path).map((r) => ({
          name: r.name,
          durationMs: r.durationMs,
          failure: r.passed ? null : {
            message: `expected ${describeOutcome(r.expected)}, got ${describeOutcome(r.actual)}`,
            details: `expected: ${JSON.stringify(r.expected)}\nactual: ${JSON.stringify(r.actual)}`,
          },
        })),
      })),
      ...coverageSuite,
    ]);
  }

  const wf = (await session.workingFolder()).path;
  out.result(
    {
      path: file,
      source,
      suite: suites.length === 1 ? { path: suites[0]!.path, name: suites[0]!.name } : null,
      suites,
      verification,
      scenarios: results,
      summary,
      coverage,
      junitPath: junitFile,
      warnings: out.warnings,
    },
    () => {
      out.info(`${source}: ${file}`);
      out.info(`signature: ${describeVerification(verification)}`);
      for (const s of suites) {
        out.info(
          `suite "${s.name}" (${session.files.path.relative(wf, s.path)}): ${
            plural(s.scenarios, "scenario")
          }${s.skipped === 0 ? "" : ` (${s.skipped} left out by --run)`}`,
        );
        for (const r of results) {
          if (r.suitePath !== s.path) continue;
          if (r.passed) {
            out.info(`PASS ${r.name}`);
          } else {
            out.line(`FAIL ${r.name}`);
            out.line(`  expected: ${describeOutcome(r.expected)}`);
            out.line(`  actual:   ${describeOutcome(r.actual)}`);
          }
        }
      }
      out.line(
        `scenarios ${summary.scenarios}, passed ${summary.passed}, failed ${summary.failed}${
          skipped === 0 ? "" : `, left out by --run ${skipped}`
        } (${summary.durationMs} ms)`,
      );
      out.info(
        `coverage: ${coverage.exercised} of ${
          plural(coverage.activeRules, "active rule")
        } exercised (${percent}%)${
          unexercised.length === 0
            ? ""
            : `; not exercised: ${unexercised.map((r) => `${r.policyKey}/${r.ruleId}`).join(", ")}`
        }`,
      );
      if (coverage.belowThreshold) {
        out.line(
          `coverage ${percent}% is below --coverage-threshold ${threshold}%: exercise ${
            unexercised.map((r) => `${r.policyKey}/${r.ruleId}`).join(", ")
          }`,
        );
      }
    },
  );
  const exit: ExitCode = summary.failed > 0
    ? exitCodeFor("SIMULATION_FAILED")
    : coverage.belowThreshold
    ? exitCodeFor("COVERAGE_BELOW_THRESHOLD")
    : 0;
  return exit;
}

/** Reads and checks one suite file, printing its warnings; the scenarios `--run` selects. */
async function readSuite(
  session: Session,
  file: string,
  options: SimulationOptions,
): Promise<LoadedSuite> {
  const suite = parseSuite(await session.readJson(file, "suite"), file, {
    strict: session.global.strict,
  });
  for (const w of suite.warnings) session.out.warn(w.code, `${file}: ${w.message} (at ${w.path})`);
  const filter = options.filter;
  const scenarios = filter === null
    ? suite.scenarios
    : suite.scenarios.filter((s) => filter(s.name));
  return {
    path: file,
    name: suite.name,
    scenarios,
    skipped: suite.scenarios.length - scenarios.length,
  };
}

async function writeJunit(session: Session, file: string, suites: JunitSuite[]): Promise<void> {
  await writeFileAtomic(file, renderJunit(suites), { createParents: true });
  session.out.note(`wrote ${file} (JUnit XML)`);
}
