/**
 * Requests files (`diff --requests`): JSON Lines, one request a line, as
 * `{"target": {"service", "resource", "action"}, "context": {…}}`. Other
 * fields are ignored, so a decision log that records these two can be
 * replayed as it is; blank lines are skipped.
 *
 * @module
 */
import type { EvaluationRequest } from "../../../engine/types.ts";
import { parseJson } from "../../../engine/parse_json.ts";
import { CliError } from "../../kit/errors.ts";
import { isRecord } from "../../../_internal/guards.ts";
import { describeThrown } from "../../../_internal/describe_thrown.ts";

/** The longest line accepted, in UTF-16 code units (1 MiB). */
export const MAX_REQUEST_LINE = 1_048_576;

/** How many bad lines an error lists before it stops looking. */
const MAX_PROBLEMS = 10;

/** A request of a requests file, with its line number (from 1). */
export interface RecordedRequest extends EvaluationRequest {
  line: number;
}

/**
 * Parses a requests file. Every line must be a JSON object with a `target`
 * of three strings and, when present, a `context` object.
 *
 * @throws {CliError} `REQUESTS_INVALID`, naming the first bad lines and what is wrong with each.
 */
export function parseRequests(text: string, file: string): RecordedRequest[] {
  const requests: RecordedRequest[] = [];
  const problems: string[] = [];
  let bad = 0;
  let start = 0;
  for (let line = 1; start <= text.length; line++) {
    let end = text.indexOf("\n", start);
    if (end < 0) end = text.length;
    const problem = readLine(text, start, end, line, requests);
    start = end + 1;
    if (problem === null) continue;
    bad++;
    if (problems.length < MAX_PROBLEMS) problems.push(`line ${line}: ${problem}`);
  }
  if (bad > 0) {
    throw new CliError(
      "REQUESTS_INVALID",
      `${file} has ${bad} bad line(s): ${problems.join("; ")}${bad > problems.length ? "; …" : ""}`,
      {
        hint:
          'each line must be {"target": {"service": …, "resource": …, "action": …}, "context": {…}}',
      },
    );
  }
  return requests;
}

/** Reads one line into `requests`; returns what is wrong with it, or null. */
function readLine(
  text: string,
  start: number,
  end: number,
  line: number,
  requests: RecordedRequest[],
): string | null {
  if (end - start > MAX_REQUEST_LINE) {
    return `longer than ${MAX_REQUEST_LINE} characters`;
  }
  const source = text.slice(start, end).trim();
  if (source === "") return null;
  let value: unknown;
  try {
    value = parseJson(source);
  } catch (error) {
    return `not JSON (${describeThrown(error)})`;
  }
  if (!isRecord(value)) return "not a JSON object";
  const target = value.target;
  if (
    !isRecord(target) || typeof target.service !== "string" ||
    typeof target.resource !== "string" || typeof target.action !== "string"
  ) {
    return "target must be {service, resource, action} (strings)";
  }
  if (value.context !== undefined && !isRecord(value.context)) {
    return "context must be a JSON object when present";
  }
  const { service, resource, action } = target;
  requests.push({
    line,
    target: { service, resource, action },
    ...(value.context === undefined ? {} : { context: value.context }),
  });
  return null;
}
