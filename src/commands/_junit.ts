/** JUnit XML for `simulate --suite --junit <path>`, the format CI systems read. */

/** One scenario result as JUnit sees it. */
export interface JunitCase {
  name: string;
  durationMs: number;
  /** Null when the case passed. */
  failure: { message: string; details: string } | null;
}

/** A JUnit XML document with one test suite. */
export function renderJunit(
  suiteName: string,
  cases: readonly JunitCase[],
  durationMs: number,
  timestamp: Date,
): string {
  const failures = cases.filter((c) => c.failure !== null).length;
  const seconds = (ms: number) => (ms / 1000).toFixed(3);
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="policy simulate" tests="${cases.length}" failures="${failures}" errors="0" time="${
      seconds(durationMs)
    }">`,
    `  <testsuite name="${
      attr(suiteName)
    }" tests="${cases.length}" failures="${failures}" errors="0" skipped="0" time="${
      seconds(durationMs)
    }" timestamp="${timestamp.toISOString()}">`,
  ];
  for (const c of cases) {
    const open = `    <testcase name="${attr(c.name)}" classname="${attr(suiteName)}" time="${
      seconds(c.durationMs)
    }"`;
    if (c.failure === null) {
      lines.push(`${open}/>`);
    } else {
      lines.push(
        `${open}>`,
        `      <failure message="${attr(c.failure.message)}" type="SIMULATION_FAILED">${
          text(c.failure.details)
        }</failure>`,
        "    </testcase>",
      );
    }
  }
  lines.push("  </testsuite>", "</testsuites>");
  return lines.join("\n") + "\n";
}

/** Characters XML 1.0 cannot carry at all. */
// deno-lint-ignore no-control-regex
const INVALID_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g;

function text(value: string): string {
  return value.replace(INVALID_XML, "").replaceAll("&", "&amp;").replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;");
}

function attr(value: string): string {
  return text(value).replaceAll('"', "&quot;").replaceAll("'", "&apos;").replaceAll("\n", "&#10;");
}
