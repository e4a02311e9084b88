/**
 * Simulation suites (`simulate --suite`, `diff --suite`) as the CLI reads
 * them: the check of `src/_authoring/suite.ts`, with the file's name in the
 * error.
 *
 * @module
 */
import type { Issue } from "../engine/types.ts";
import { isRecord } from "../_internal/guards.ts";
import { checkSuite, type Scenario } from "../_authoring/suite.ts";
import { CliError } from "./_errors.ts";

/**
 * Checks a suite document read from `file`. Unknown fields are returned as
 * warnings (`UNKNOWN_FIELD`, with the closest known name); with `strict`
 * they make the suite invalid.
 *
 * @throws {CliError} `SUITE_INVALID`, listing every problem.
 */
export function parseSuite(
  document: unknown,
  file: string,
  options: { strict?: boolean } = {},
): { name: string; scenarios: Scenario[]; warnings: Issue[] } {
  if (!isRecord(document)) {
    throw new CliError("SUITE_INVALID", `${file} must be a JSON object with name and scenarios`);
  }
  const { name, scenarios, warnings, problems } = checkSuite(document, options);
  if (problems.length > 0) {
    throw new CliError(
      "SUITE_INVALID",
      `${file} is not a valid simulation suite: ${problems.join("; ")}`,
    );
  }
  return { name: name!, scenarios, warnings };
}
