/**
 * Simulation suites (`simulate --suite`, `diff --suite`): the document and
 * its check, and which files `--suite` names (a file, or every
 * `*.suite.json` below a folder).
 *
 * @module
 */
import type { FileLayer } from "../_io/file_layer.ts";
import type { EffectType, Issue, Target } from "../engine/types.ts";
import { EFFECT_TYPES } from "../_internal/vocabulary.ts";
import { unknownFieldIssues } from "../_internal/unknown_field_issue.ts";
import { CliError } from "./_errors.ts";
import { systemErrorCode } from "../_io/system_error.ts";
import { findFiles, FindFilesError } from "../_io/find_files.ts";
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

/** What a suite file's name ends with, for `--suite <folder>`. */
export const SUITE_FILE_SUFFIX = ".suite.json";
/** Most suite files one run takes. */
export const MAX_SUITE_FILES = 1_000;
/** Most folder entries `--suite <folder>` looks at (a folder of build output named by mistake). */
export const MAX_SUITE_FOLDER_ENTRIES = 100_000;

/**
 * The suite files that `--suite` values name, in order: a file as it is; a
 * folder, every `*.suite.json` below it (symbolic links to folders are not
 * followed), sorted by path. A file named twice runs once. `onFolder` is
 * called with each folder looked at (`simulate --watch` watches them, so a
 * new suite file is seen).
 *
 * @throws {CliError} `DOCUMENT_READ_ERROR` (a path that does not exist, a
 * folder without suite files), `SUITE_INVALID` (too many files or entries).
 */
export async function suiteFiles(
  files: FileLayer,
  paths: readonly string[],
  onFolder: (folder: string) => void = () => {},
): Promise<string[]> {
  const found: string[] = [];
  for (const given of paths) {
    // Not there (or unreadable): reading it as a file says which, with the usual code.
    if (await files.kind(given) !== "folder") {
      found.push(given);
      continue;
    }
    const inFolder = await suiteFilesBelow(given, onFolder);
    if (inFolder.length === 0) {
      throw new CliError(
        "DOCUMENT_READ_ERROR",
        `no *${SUITE_FILE_SUFFIX} file below the folder ${given}`,
        { hint: `name suite files like billing${SUITE_FILE_SUFFIX}, or pass the file itself` },
      );
    }
    found.push(...inFolder);
  }
  const unique = [...new Set(found)];
  if (unique.length > MAX_SUITE_FILES) {
    throw new CliError(
      "SUITE_INVALID",
      `--suite names ${unique.length} suite files; at most ${MAX_SUITE_FILES} run at once`,
    );
  }
  return unique;
}

/** Every `*.suite.json` below `folder`, sorted by path (hidden folders included). */
async function suiteFilesBelow(
  folder: string,
  onFolder: (folder: string) => void,
): Promise<string[]> {
  try {
    return await findFiles(folder, (name) => name.endsWith(SUITE_FILE_SUFFIX), {
      enter: () => true,
      onFolder,
      maxEntries: MAX_SUITE_FOLDER_ENTRIES,
      unreadable: "throw",
    });
  } catch (error) {
    if (!(error instanceof FindFilesError)) throw error;
    throw error.reason === "unreadable"
      ? new CliError(
        "DOCUMENT_READ_ERROR",
        `cannot list the folder ${error.folder} (${systemErrorCode(error.cause) ?? "unreadable"})`,
      )
      : new CliError(
        "SUITE_INVALID",
        `the folder ${folder} holds over ${MAX_SUITE_FOLDER_ENTRIES} entries; name the folder of the suites`,
      );
  }
}
