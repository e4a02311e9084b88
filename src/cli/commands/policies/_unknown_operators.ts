/**
 * The commands that write a rule into the draft (`policies add-rule`, with
 * or without `--replace`, and `policies import`) refuse a condition operator
 * this version does not know, unless `--allow-unknown-operators`
 * (docs/cli.md "policies add-rule"). The runtime keeps the rule of
 * docs/bundle-format.md (an unknown operator is false, never an error) and
 * `validate` its warning: a rule that names an operator of a newer runtime
 * is written on purpose, a misspelt one (`equals`) never fires.
 *
 * @module
 */
import type { Issue } from "../../../public/issue.ts";
import type { FlagSpecs } from "../../kit/command_spec.ts";
import { CliError, type CliErrorCode } from "../../kit/errors.ts";

/** The flag that lets an unknown operator through. */
export const UNKNOWN_OPERATORS_FLAG: FlagSpecs = Object.freeze({
  "allow-unknown-operators": {
    type: "boolean",
    description: "write a condition operator this version does not know (it evaluates to false)",
  },
});

/** The validation warning of an unknown operator (docs/errors.md). */
const UNKNOWN_OPERATOR = "CONDITION_UNKNOWN_OPERATOR";

/** The most unknown operators one refusal lists. */
const LISTED = 5;

/**
 * Throws `code` when `warnings` (validation warnings of what is written)
 * name an unknown operator and `allow` is false; each listed with its
 * "did you mean".
 *
 * @throws {CliError} `code`.
 */
export function refuseUnknownOperators(
  warnings: readonly Issue[],
  { allow, code, what, where }: {
    allow: boolean;
    code: CliErrorCode;
    /** What is refused, for the message: `r.rule.json`. */
    what: string;
    /** Where a warning's path is shown from (its JSON Pointer made local), if not whole. */
    where?: (path: string) => string;
  },
): void {
  if (allow) return;
  const unknown = warnings.filter((w) => w.code === UNKNOWN_OPERATOR);
  if (unknown.length === 0) return;
  const listed = unknown.slice(0, LISTED).map((w) =>
    `${w.message} (at ${where === undefined ? w.path : where(w.path)})`
  );
  const more = unknown.length - listed.length;
  throw new CliError(
    code,
    `${what} uses a condition operator this version does not know, so the condition would never be true: ${
      listed.join("; ")
    }${more > 0 ? `; and ${more} more` : ""}; nothing was written`,
    {
      hint:
        "use an operator of docs/bundle-format.md, or pass --allow-unknown-operators to write it anyway (for a runtime newer than this one)",
    },
  );
}
