/** Parsing JSONC (comments, trailing commas) configuration files. */
import { JsonParseError, parseJson } from "../../engine/parse_json.ts";
import { CliError } from "./errors.ts";

/**
 * Parses JSONC text that must hold one object, exactly as written (see
 * `parseJson`: escaped keys, `__proto__` as an ordinary key).
 *
 * @throws {CliError} `CONFIG_INVALID`, naming the line and column.
 */
export function parseJsoncObject(text: string, file: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = parseJson(text, { comments: true });
  } catch (error) {
    if (!(error instanceof JsonParseError)) throw error;
    throw new CliError(
      "CONFIG_INVALID",
      `${file}:${error.line}:${error.column}: ${error.reason} (the file is JSON with comments)`,
    );
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new CliError("CONFIG_INVALID", `${file} must hold a JSON object`);
  }
  return value as Record<string, unknown>;
}
