/**
 * `policy simulate --suite`: finds and checks the suite files, runs the
 * scenarios `--run` selects against what is evaluated, reports each with
 * the rules' coverage, and with `--junit` writes the JUnit report.
 *
 * @module
 */
import type { CompiledBundle } from "../../../engine/compile_bundle.ts";
import { policiesOf } from "../../../engine/compile_bundle.ts";
import type { Clock } from "../../../public/clock.ts";
import { describeError, type ExitCode, exitCodeFor } from "../../kit/errors.ts";
import type { Session } from "../../kit/session.ts";
import { plural } from "../../kit/describe.ts";
import { writeFileAtomic } from "../../kit/atomic_write.ts";
import type { Output } from "../../kit/output.ts";
import { parseSuite, suiteFiles } from "../../kit/suite.ts";
import {
  coverageOf,
  describeOutcome,
  runScenarios,
  type Scenario,
  type ScenarioResult as AuthoredScenarioResult,
} from "../../../authoring/suite.ts";
import { COVERAGE_SUITE, type JunitError, type JunitSuite, renderJunit } from "./_junit.ts";
import {
  describeVerification,
  type SimulationSource,
  simulationSource,
} from "./_simulate_source.ts";

/** What the suite flags ask for, checked before anything is read. */
export interface SuiteOptions {
  /** `--run`: the scenarios selected by name; null: all. */
  filter: ((name: string) => boolean) | null;
  /** `--coverage-threshold`, a percentage; null: none. */
  threshold: number | null;
}

/** The result of one scenario, with the suite file it comes from. */
export type ScenarioResult = { suitePath: string } & AuthoredScenarioResult;

/** A suite file read: its path and name, and the scenarios `--run` selects. */
export interface LoadedSuite {
  path: string;
  name: string;
  scenarios: Scenario[];
  /** Scenarios `--run` left out. */
  skipped: number;
}

/** One suite in the report (`suites` of the JSON document). */
export interface SuiteSummary {
  path: string;
  name: string;
  scenarios: number;
  passed: number;
  failed: number;
  skipped: number;
}

/** What running the suites found: the JSON document's parts, and when each suite ran. */
export interface SuiteRun {
  results: ScenarioResult[];
  timings: { startedAt: Date; durationMs: number }[];
  summary: {
    scenarios: number;
    passed: number;
    failed: number;
    skipped: number;
    durationMs: number;
  };
  suites: SuiteSummary[];
  coverage: {
    activeRules: number;
    exercised: number;
    unexercised: { policyKey: string; ruleId: string }[];
    percent: number;
    threshold: number | null;
    belowThreshold: boolean;
  };
}

/**
 * Runs the scenarios of `loaded` against `compiled`, timed on `clock`
 * (`started`: when the run began, on its monotonic clock), and sums them up
 * with the coverage of the bundle's active rules against `threshold`.
 */
export function planSuiteRun(
  compiled: CompiledBundle,
  loaded: readonly LoadedSuite[],
  threshold: number | null,
  clock: Pick<Clock, "now" | "wallNow">,
  started: number,
): SuiteRun {
  const exercised = new Set<string>();
  const results: ScenarioResult[] = [];
  const timings: { startedAt: Date; durationMs: number }[] = [];
  for (const suite of loaded) {
    const suiteStartedAt = new Date(clock.wallNow());
    const suiteStarted = clock.now();
    const own = runScenarios(compiled, suite.scenarios, { now: () => clock.now(), exercised });
    results.push(...own.map((r) => ({ suitePath: suite.path, ...r })));
    timings.push({ startedAt: suiteStartedAt, durationMs: Math.round(clock.now() - suiteStarted) });
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
  const { activeRules, exercised: count, unexercised } = coverageOf(
    policiesOf(compiled),
    exercised,
  );
  const percent = activeRules === 0 ? 100 : Math.floor(count / activeRules * 1000) / 10;
  const coverage = {
    activeRules,
    exercised: count,
    unexercised,
    percent,
    threshold,
    belowThreshold: threshold !== null && percent < threshold,
  };
  return { results, timings, summary, suites, coverage };
}

/** The exit code of a suite run: a failed scenario, else coverage below the threshold, else 0. */
export function suiteExitCode({ summary, coverage }: SuiteRun): ExitCode {
  return summary.failed > 0
    ? exitCodeFor("SIMULATION_FAILED")
    : coverage.belowThreshold
    ? exitCodeFor("COVERAGE_BELOW_THRESHOLD")
    : 0;
}

/**
 * The JUnit report of a suite run: a testsuite per suite file, a testcase
 * per scenario, and with a threshold a testsuite for the coverage, whose
 * shortfall is a failure CI dashboards count, not only an exit code.
 */
export function junitSuites(
  run: SuiteRun,
  loaded: readonly LoadedSuite[],
  startedAt: Date,
): JunitSuite[] {
  const { activeRules, exercised, unexercised, percent, threshold } = run.coverage;
  const notExercised = unexercised.map((r) => `${r.policyKey}/${r.ruleId}`).join(", ");
  const coverageSuite: JunitSuite[] = threshold === null ? [] : [{
    name: COVERAGE_SUITE,
    timestamp: startedAt,
    durationMs: 0,
    error: null,
    cases: [{
      name: `at least ${threshold}% of the active rules exercised`,
      durationMs: 0,
      failure: !run.coverage.belowThreshold ? null : {
        type: "COVERAGE_BELOW_THRESHOLD",
        message: `coverage ${percent}% is below --coverage-threshold ${threshold}%`,
        details:
          `${exercised} of ${activeRules} active rules exercised (${percent}%); not exercised: ${notExercised}`,
      },
    }],
  }];
  return [
    ...loaded.map((s, i): JunitSuite => ({
      name: s.name,
      timestamp: run.timings[i]!.startedAt,
      durationMs: run.timings[i]!.durationMs,
      error: null,
      cases: run.results.filter((r) => r.suitePath === s.path).map((r) => ({
        name: r.name,
        durationMs: r.durationMs,
        failure: r.passed ? null : {
          message: `expected ${describeOutcome(r.expected)}, got ${describeOutcome(r.actual)}`,
          details: `expected: ${JSON.stringify(r.expected)}\nactual: ${JSON.stringify(r.actual)}`,
        },
      })),
    })),
    ...coverageSuite,
  ];
}

/** The text output of a suite run (`relative`: a suite's path as shown). */
function render(
  out: Output,
  run: SuiteRun,
  evaluated: SimulationSource,
  relative: (path: string) => string,
): void {
  const { results, summary, coverage } = run;
  out.info(`${evaluated.source}: ${evaluated.file}`);
  out.info(`signature: ${describeVerification(evaluated.verification)}`);
  for (const s of run.suites) {
    out.info(
      `suite "${s.name}" (${relative(s.path)}): ${plural(s.scenarios, "scenario")}${
        s.skipped === 0 ? "" : ` (${s.skipped} left out by --run)`
      }`,
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
      summary.skipped === 0 ? "" : `, left out by --run ${summary.skipped}`
    } (${summary.durationMs} ms)`,
  );
  const unexercised = coverage.unexercised.map((r) => `${r.policyKey}/${r.ruleId}`).join(", ");
  out.info(
    `coverage: ${coverage.exercised} of ${
      plural(coverage.activeRules, "active rule")
    } exercised (${coverage.percent}%)${
      coverage.unexercised.length === 0 ? "" : `; not exercised: ${unexercised}`
    }`,
  );
  if (coverage.belowThreshold) {
    out.line(
      `coverage ${coverage.percent}% is below --coverage-threshold ${coverage.threshold}%: exercise ${unexercised}`,
    );
  }
}

/**
 * The suite files and what is evaluated; when they cannot be read, with
 * `--junit`, the report says why (an `<error>` per suite) before the error
 * stops the command.
 */
async function loadSuites(
  session: Session,
  options: SuiteOptions,
  junitFile: string | null,
  startedAt: Date,
): Promise<{ loaded: LoadedSuite[]; evaluated: SimulationSource }> {
  const given = await Promise.all(
    session.strings("suite").map((p) => session.fromWorkingFolder(p)),
  );
  let files: string[] = given;
  const loaded: LoadedSuite[] = [];
  try {
    files = await suiteFiles(session.files, given, {
      onFolder: (folder) => session.filesRead.add(folder),
    });
    for (const file of files) loaded.push(await readSuite(session, file, options));
    return { loaded, evaluated: await simulationSource(session) };
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
}

/**
 * Runs the suites: finds and checks every suite file, loads what is
 * evaluated, runs the selected scenarios, reports, and with `--junit` writes
 * the report, also when the suites could not run (an `<error>` saying why).
 */
export async function runSuites(session: Session, options: SuiteOptions): Promise<number> {
  const out = session.out;
  const junit = session.string("junit");
  const junitFile = junit === undefined ? null : await session.fromWorkingFolder(junit);
  const { clock } = session.io;
  // When the suites ran (the JUnit report's timestamps), and durations on the monotonic clock.
  const startedAt = new Date(clock.wallNow());
  const started = clock.now();
  const { loaded, evaluated } = await loadSuites(session, options, junitFile, startedAt);
  const run = planSuiteRun(evaluated.compiled, loaded, options.threshold, clock, started);
  if (junitFile !== null) await writeJunit(session, junitFile, junitSuites(run, loaded, startedAt));
  const wf = (await session.workingFolder()).path;
  const { suites, summary, coverage } = run;
  out.result(
    {
      path: evaluated.file,
      source: evaluated.source,
      suite: suites.length === 1 ? { path: suites[0]!.path, name: suites[0]!.name } : null,
      suites,
      verification: evaluated.verification,
      scenarios: run.results,
      summary,
      coverage,
      junitPath: junitFile,
      warnings: out.warnings,
    },
    () => render(out, run, evaluated, (p) => session.files.path.relative(wf, p)),
  );
  return suiteExitCode(run);
}

/** Reads and checks one suite file, printing its warnings; the scenarios `--run` selects. */
async function readSuite(
  session: Session,
  file: string,
  options: SuiteOptions,
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
