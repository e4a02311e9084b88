/**
 * Argument parsing: the global flags of every command, and strict checking
 * with "did you mean" hints. The arguments are split into tokens
 * as `node:util` `parseArgs` splits them (`tests/cli/kit/args_tokens_test.ts`
 * compares the two), without loading `node:util`, which costs a Deno process
 * its Node compatibility layer at start-up (docs/performance.md, "Start-up").
 * What a command declares is in `command_spec.ts`; its help text in
 * `help_text.ts`.
 *
 * @module
 */
import { usageError } from "./errors.ts";
import { didYouMean } from "../../_internal/suggest.ts";
import { describeValue } from "../../_internal/describe_value.ts";
import { PACKAGE_NAME, PACKAGE_VERSION } from "../../_internal/version.ts";
import type { CommandSpec, FlagSpec, FlagSpecs } from "./command_spec.ts";
import type { Format } from "./output.ts";

/** The global flags (`docs/cli.md`, "Output, `--quiet`, `--verbose`"), accepted by every command. */
export const GLOBAL_FLAGS: FlagSpecs = Object.freeze({
  "working-folder": {
    type: "string",
    short: "w",
    value: "<path>",
    description:
      "working folder (else POLICY_WORKING_FOLDER, the persisted one, the current folder)",
  },
  config: {
    type: "string",
    value: "<path>",
    description: "project config file, relative to the working folder (default policy.config.json)",
  },
  format: {
    type: "string",
    value: "text|json",
    choices: ["text", "json"],
    description: "output format (default text)",
  },
  quiet: { type: "boolean", description: "print only essential output, JSON and errors" },
  verbose: {
    type: "boolean",
    description: "also print the working folder, config and documents used (to stderr)",
  },
  strict: { type: "boolean", description: "treat warnings as failures" },
  help: { type: "boolean", short: "h", description: "show help for the command" },
  version: { type: "boolean", description: "print the version of policy and exit" },
});

/** The values of the global flags. */
export interface GlobalOptions {
  workingFolder: string | undefined;
  config: string | undefined;
  format: Format;
  quiet: boolean;
  verbose: boolean;
  strict: boolean;
  help: boolean;
  version: boolean;
}

/** The value of a flag that was given. */
export type FlagValue = string | true | readonly string[];

/** The result of {@link parseCommandArgs}. */
export interface ParsedArgs {
  global: GlobalOptions;
  /**
   * Command flags that were given: string value, `true` for booleans, every
   * value in order for a flag that may be given more than once.
   */
  flags: ReadonlyMap<string, FlagValue>;
  positionals: string[];
}

/**
 * Parses `args` against the command's flags plus the global ones. Refuses
 * unknown flags (with a suggestion), string flags without a value, values
 * on boolean flags, repeated flags and extra positionals.
 *
 * @throws {CliError} `USAGE_ERROR`.
 */
export function parseCommandArgs(args: readonly string[], spec: CommandSpec): ParsedArgs {
  const all: Record<string, FlagSpec> = { ...GLOBAL_FLAGS, ...spec.flags };
  const help = `run 'policy ${spec.name} --help' for its flags`;
  const { values, lists, positionals } = flagValues(argumentTokens(args, all), all, spec, help);
  const max = spec.maxPositionals ?? 0;
  if (positionals.length > max) {
    // Not echoed: a stray argument may be a secret meant for a flag.
    throw usageError(
      `unexpected argument (number ${max + 1}) for 'policy ${spec.name}', which takes ${
        max === 0 ? "none" : `at most ${max}`
      }; its value is not printed, in case it is a secret`,
      help,
    );
  }
  const format = values.get("format") ?? "text";
  if (format !== "text" && format !== "json") {
    throw usageError(
      `--format must be text or json, not ${describeValue(format)}${
        didYouMean(String(format), ["text", "json"])
      }`,
    );
  }
  const global: GlobalOptions = {
    workingFolder: stringValue(values.get("working-folder")),
    config: stringValue(values.get("config")),
    format,
    quiet: values.has("quiet"),
    verbose: values.has("verbose"),
    strict: values.has("strict"),
    help: values.has("help"),
    version: values.has("version"),
  };
  if (global.quiet && global.verbose) {
    throw usageError(
      "--quiet and --verbose cannot be combined: one hides what the other adds",
      "keep one of them",
    );
  }
  const flags = new Map<string, FlagValue>();
  for (const [name, value] of values) {
    if (!Object.hasOwn(GLOBAL_FLAGS, name)) flags.set(name, lists.get(name) ?? value);
  }
  return { global, flags, positionals };
}

/**
 * The values of the flags in `tokens` (a repeatable flag's every value in
 * `lists`) and the positionals, each flag checked against `all`.
 *
 * @throws {CliError} `USAGE_ERROR` (with `help`).
 */
function flagValues(
  tokens: readonly ArgumentToken[],
  all: Readonly<Record<string, FlagSpec>>,
  spec: CommandSpec,
  help: string,
): { values: Map<string, string | true>; lists: Map<string, string[]>; positionals: string[] } {
  const values = new Map<string, string | true>();
  const lists = new Map<string, string[]>();
  const positionals: string[] = [];
  for (const token of tokens) {
    if (token.kind === "positional") {
      positionals.push(token.value);
      continue;
    }
    if (token.kind !== "option") continue;
    const flag = Object.hasOwn(all, token.name) ? all[token.name] : undefined;
    if (flag === undefined) {
      const names = Object.keys(all).map((n) => `--${n}`);
      throw usageError(
        `unknown flag ${describeValue(token.rawName)} for 'policy ${spec.name}'${
          didYouMean(`--${token.name}`, names)
        }`,
        help,
      );
    }
    if (flag.type === "string" && token.value === undefined) {
      throw usageError(`flag --${token.name} needs a value ${flag.value ?? ""}`.trimEnd(), help);
    }
    if (flag.type === "boolean" && token.inlineValue) {
      throw usageError(`flag --${token.name} takes no value`, help);
    }
    if (flag.multiple) {
      const list = lists.get(token.name) ?? [];
      list.push(token.value!);
      lists.set(token.name, list);
      values.set(token.name, token.value!);
      continue;
    }
    if (values.has(token.name)) {
      throw usageError(`flag --${token.name} is given more than once`, help);
    }
    values.set(token.name, flag.type === "string" ? token.value! : true);
  }
  return { values, lists, positionals };
}

/** One argument (or part of a group of short flags) as `parseArgs` tokenizes it. */
export type ArgumentToken =
  | { kind: "positional"; value: string }
  | { kind: "option-terminator" }
  | {
    kind: "option";
    /** The long name (a known short flag is mapped to its long name). */
    name: string;
    /** As written: `--name` or `-n`. */
    rawName: string;
    value: string | undefined;
    /** The value was written in the same argument (`--name=value`, `-nvalue`). */
    inlineValue: boolean | undefined;
  };

/**
 * Splits `args` into tokens as `parseArgs` of `node:util` does without
 * `strict`, with positionals allowed: `--name=value`; `--name value` and
 * `-n value` for string flags (the next argument is the value, whatever it
 * looks like, unless the flag has a `bare` value: see `FlagSpec.bare`);
 * `-abc` groups of short flags, where a string flag takes the
 * rest of the group as its value; `--` ends the flags. Unknown flags are
 * tokens of their own, taking no value.
 */
export function argumentTokens(
  args: readonly string[],
  flags: Readonly<
    Record<string, { type: "string" | "boolean"; short?: string; bare?: string }>
  >,
): ArgumentToken[] {
  const longOf = new Map<string, string>();
  for (const [name, flag] of Object.entries(flags)) {
    if (flag.short !== undefined) longOf.set(flag.short, name);
  }
  const takesValue = (name: string) => Object.hasOwn(flags, name) && flags[name]!.type === "string";
  const tokens: ArgumentToken[] = [];
  const pending = [...args];
  // A flag written alone: a string flag takes the next argument, whatever it is, as its value;
  // one with a `bare` value takes it only when it is not a flag, and is `bare` otherwise.
  const alone = (name: string, rawName: string): ArgumentToken => {
    const bare = takesValue(name) ? flags[name]!.bare : undefined;
    const next = pending[0];
    const value = !takesValue(name)
      ? undefined
      : bare !== undefined && (next === undefined || (next.startsWith("-") && next !== "-"))
      ? bare
      : pending.shift();
    return {
      kind: "option",
      name,
      rawName,
      value,
      inlineValue: value === undefined ? undefined : false,
    };
  };
  while (pending.length > 0) {
    const arg = pending.shift()!;
    if (arg === "--") {
      tokens.push({ kind: "option-terminator" });
      for (const value of pending.splice(0)) tokens.push({ kind: "positional", value });
    } else if (arg.startsWith("--")) {
      tokens.push(withValue(arg) ?? alone(arg.slice(2), arg));
    } else if (arg.startsWith("-") && arg.length > 1) {
      const letter = arg[1]!;
      const name = longOf.get(letter) ?? letter;
      if (arg.length === 2) {
        tokens.push(alone(name, arg));
      } else if (takesValue(name)) {
        tokens.push({
          kind: "option",
          name,
          rawName: `-${letter}`,
          value: arg.slice(2),
          inlineValue: true,
        });
      } else {
        pending.unshift(...expandGroup(arg, (short) => takesValue(longOf.get(short) ?? short)));
      }
    } else {
      tokens.push({ kind: "positional", value: arg });
    }
  }
  return tokens;
}

/**
 * `--name=value` as a token, or null for a flag written without `=`: the
 * name has one character or more, the value starts after the first `=`.
 */
function withValue(arg: string): ArgumentToken | null {
  const equals = arg.indexOf("=", 3) >= 0 ? arg.indexOf("=") : -1;
  if (equals < 0) return null;
  const name = arg.slice(2, equals);
  return {
    kind: "option",
    name,
    rawName: `--${name}`,
    value: arg.slice(equals + 1),
    inlineValue: true,
  };
}

/**
 * A group of short flags (`-abc`) as one argument per flag, until a string
 * flag (`takesValue`) takes the rest of the group as its value (`-avalue`).
 */
function expandGroup(arg: string, takesValue: (short: string) => boolean): string[] {
  const expanded: string[] = [];
  for (let i = 1; i < arg.length; i++) {
    const short = arg[i]!;
    if (!takesValue(short) || i === arg.length - 1) {
      expanded.push(`-${short}`);
    } else {
      expanded.push(`-${arg.slice(i)}`);
      break;
    }
  }
  return expanded;
}

function stringValue(value: string | true | undefined): string | undefined {
  return typeof value === "string" ? value : undefined;
}

/** Global flags that take a value, by every spelling. */
const VALUE_FLAGS = new Set(
  Object.entries(GLOBAL_FLAGS).filter(([, f]) => f.type === "string").flatMap((
    [name, f],
  ) => f.short === undefined ? [`--${name}`] : [`--${name}`, `-${f.short}`]),
);

/**
 * Finds the (sub)command name: the first argument that is neither a flag nor
 * the value of a global flag. Returns it and the other arguments in order.
 */
export function splitCommand(
  args: readonly string[],
): { name: string | undefined; rest: string[] } {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === "--") break;
    if (arg.startsWith("-") && arg !== "-") {
      if (VALUE_FLAGS.has(arg)) i++;
      continue;
    }
    return { name: arg, rest: [...args.slice(0, i), ...args.slice(i + 1)] };
  }
  return { name: undefined, rest: [...args] };
}

/** A best-effort look for `--format json`, for reporting errors found before parsing ends. */
export function detectFormat(args: readonly string[]): Format {
  for (let i = 0; i < args.length; i++) {
    if (args[i] === "--format" && args[i + 1] === "json") return "json";
    if (args[i] === "--format=json") return "json";
  }
  return "text";
}

/** True when the arguments ask for help, before anything else is checked. */
export function wantsHelp(args: readonly string[]): boolean {
  return args.some((a) => a === "--help" || a === "-h");
}

/** True when the arguments ask for the version, before anything else is checked. */
export function wantsVersion(args: readonly string[]): boolean {
  return args.some((a) => a === "--version");
}

/** What `--version` prints. */
export function versionText(): string {
  return `policy ${PACKAGE_VERSION} (${PACKAGE_NAME})\n`;
}
