/**
 * JUnit XML for `simulate --suite … --junit <path>`, the format CI systems
 * read: one `testsuite` per suite file, one `testcase` per scenario run, a
 * `failure` for each failed expectation, and, for a suite that could not
 * run (its file, the bundle or the key), one `testcase` holding an `error`
 * that says why; with a coverage threshold, a last `testsuite` whose one
 * `testcase` fails when coverage is below it (`docs/cli.md`, "simulate").
 *
 * @module
 */
import { escapeControls, escapeLines } from "../../kit/output.ts";

/** One scenario result as JUnit sees it. */
export interface JunitCase {
  name: string;
  durationMs: number;
  /** Null when the case passed; `type` defaults to `SIMULATION_FAILED` (a failed expectation). */
  failure: { message: string; details: string; type?: string } | null;
}

/** Why a suite could not run: an error code and its message. */
export interface JunitError {
  type: string;
  message: string;
}

/** One suite file's results, or the reason it could not run. */
export interface JunitSuite {
  name: string;
  /** When the suite started. */
  timestamp: Date;
  durationMs: number;
  cases: readonly JunitCase[];
  /** Set when the suite could not run: it then has one case, holding this error. */
  error: JunitError | null;
}

/** The name of the suite that holds the coverage check, with `--coverage-threshold`. */
export const COVERAGE_SUITE = "policy simulate coverage";

/** The name of the case that carries a suite's {@link JunitSuite.error}. */
export const NOT_RUN_CASE = "policy simulate could not run the suite";

/** A JUnit XML document with one `testsuite` per suite. */
export function renderJunit(suites: readonly JunitSuite[]): string {
  const seconds = (ms: number) => (ms / 1000).toFixed(3);
  const counts = suites.map((s) => ({
    tests: s.error === null ? s.cases.length : 1,
    failures: s.error === null ? s.cases.filter((c) => c.failure !== null).length : 0,
    errors: s.error === null ? 0 : 1,
  }));
  const sum = (key: "tests" | "failures" | "errors") => counts.reduce((n, c) => n + c[key], 0);
  const total = suites.reduce((ms, s) => ms + s.durationMs, 0);
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="policy simulate" tests="${sum("tests")}" failures="${
      sum("failures")
    }" errors="${sum("errors")}" time="${seconds(total)}">`,
  ];
  suites.forEach((suite, i) => {
    const { tests, failures, errors } = counts[i]!;
    lines.push(
      `  <testsuite name="${
        attr(suite.name)
      }" tests="${tests}" failures="${failures}" errors="${errors}" skipped="0" time="${
        seconds(suite.durationMs)
      }" timestamp="${suite.timestamp.toISOString()}">`,
    );
    const open = (name: string, ms: number) =>
      `    <testcase name="${attr(name)}" classname="${attr(suite.name)}" time="${seconds(ms)}"`;
    if (suite.error !== null) {
      lines.push(
        `${open(NOT_RUN_CASE, 0)}>`,
        `      <error message="${attr(suite.error.message)}" type="${attr(suite.error.type)}">${
          text(suite.error.message)
        }</error>`,
        "    </testcase>",
      );
    }
    for (const c of suite.error === null ? suite.cases : []) {
      if (c.failure === null) {
        lines.push(`${open(c.name, c.durationMs)}/>`);
      } else {
        lines.push(
          `${open(c.name, c.durationMs)}>`,
          `      <failure message="${attr(c.failure.message)}" type="${
            attr(c.failure.type ?? "SIMULATION_FAILED")
          }">${text(c.failure.details)}</failure>`,
          "    </testcase>",
        );
      }
    }
    lines.push("  </testsuite>");
  });
  lines.push("</testsuites>");
  return lines.join("\n") + "\n";
}

/** The two noncharacters XML 1.0 cannot carry (the controls it cannot carry are escaped before). */
const INVALID_XML = /[\uFFFE\uFFFF]/g;

/**
 * Element text: data's terminal controls as the CLI's text output writes
 * them (`\u001b`: CI systems show these files in logs and dashboards), the
 * line feeds of the details kept, then XML's escapes.
 */
function text(value: string): string {
  return xml(escapeLines(value));
}

/** An attribute value: one line, every control escaped (a line feed too). */
function attr(value: string): string {
  return xml(escapeControls(value)).replaceAll('"', "&quot;").replaceAll("'", "&apos;");
}

function xml(value: string): string {
  return value.replace(INVALID_XML, (c) => `\\u${c.charCodeAt(0).toString(16)}`)
    .replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");
}
