/**
 * `policy simulate`: evaluates one request, or suites of scenarios, with
 * the same engine as the SDK, against the bundle or (`--draft`) the bundle
 * the draft builds to; `--watch` runs again on every change
 * (`docs/cli.md`, "simulate").
 *
 * @module
 */
import { describeError, exitCodeWhenNotRun, usageError } from "../../kit/errors.ts";
import { defineCommand, type Session } from "../../kit/session.ts";
import { describeValue } from "../../../_internal/check_options.ts";
import { VERIFY_ALGORITHM_FLAG } from "../../kit/verify_key.ts";
import { plural } from "../../kit/describe.ts";
import { scenarioFilter } from "./scenario_filter.ts";
import { type FileStates, fileStates, waitForChange } from "./watch.ts";
import type { Target } from "../../../engine/types.ts";
import type { CommandSpec } from "../../kit/command_spec.ts";
import { parseContext, runRequest } from "./request.ts";
import { runSuites, type SuiteOptions } from "./suites.ts";

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
    "candidates. --suite runs simulation suites (a file, or every suite.json and *.suite.json",
    "below a folder; repeatable), prints each scenario's result, a summary and the active rules no",
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
      description: "run a suite file, or a folder's suite.json and *.suite.json (repeatable)",
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
interface SimulationOptions extends SuiteOptions {
  /** Without `--suite`: the request of the flags (with it, the suites run). */
  request: { target: Target; context: Record<string, unknown> } | null;
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
  const request = suites ? null : {
    target: {
      service: session.requireString("service", "(or --suite)"),
      resource: session.requireString("resource", "(or --suite)"),
      action: session.requireString("action", "(or --suite)"),
    },
    context: parseContext(session.string("context")),
  };
  return { request, filter: run === undefined ? null : scenarioFilter(run), threshold };
}

/** One run: a request or the suites. */
async function runOnce(session: Session, options: SimulationOptions): Promise<number> {
  return options.request === null
    ? await runSuites(session, options)
    : await runRequest(session, options.request);
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
