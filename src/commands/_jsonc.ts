/** Parsing JSONC (comments, trailing commas) configuration files with `jsonc-parser`. */
import { parse, type ParseError, printParseErrorCode } from "jsonc-parser";
import { CliError } from "./_errors.ts";

/**
 * Parses JSONC text that must hold one object.
 *
 * @throws {CliError} `CONFIG_INVALID`, naming the line and column.
 */
export function parseJsoncObject(text: string, file: string): Record<string, unknown> {
  const errors: ParseError[] = [];
  const value: unknown = parse(text, errors, {
    allowTrailingComma: true,
    disallowComments: false,
    allowEmptyContent: false,
  });
  if (errors.length > 0) {
    const first = errors[0]!;
    const { line, column } = position(text, first.offset);
    throw new CliError(
      "CONFIG_INVALID",
      `${file}:${line}:${column}: ${
        printParseErrorCode(first.error)
      } (the file is JSON with comments)`,
    );
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new CliError("CONFIG_INVALID", `${file} must hold a JSON object`);
  }
  return value as Record<string, unknown>;
}

function position(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset).split("\n");
  return { line: before.length, column: before[before.length - 1]!.length + 1 };
}
