/**
 * What a command declares about itself, as data: its flags, usage, summary
 * and examples ({@link CommandSpec}), the group it belongs to, and the
 * function type every command has. The parser (`args.ts`), the help text
 * (`help_text.ts`), the session (`session.ts`) and shell completion
 * (`command_tree.ts`) read these; nothing here imports them.
 *
 * @module
 */
import type { CliIo } from "../cli_io.ts";
import type { ExitCode } from "./errors.ts";

/** A command: arguments and process I/O in, exit code out. */
export type CommandFunction = (args: string[], io: CliIo) => Promise<number>;

/** One flag of a command. */
export interface FlagSpec {
  type: "string" | "boolean";
  /** One-letter alias. */
  short?: string;
  /** Value placeholder for help, for example `<path>`; `<path>` and `<dir>` complete file names. */
  value?: string;
  /** The values the flag takes, for shell completion (help shows them in `description`). */
  choices?: readonly string[];
  /** A string flag that may be given more than once (read with `Session.strings`). */
  multiple?: boolean;
  /**
   * The value of a string flag written alone: with it, the flag takes the
   * next argument as its value only when there is one that is not a flag
   * (`--trace` and `--trace --draft` mean `--trace full`).
   */
  bare?: string;
  description: string;
}

/** Flags by long name (without `--`). */
export type FlagSpecs = Readonly<Record<string, FlagSpec>>;

/** What a command declares about itself, for parsing and for `--help`. */
export interface CommandSpec {
  /** Full name as typed, for example `policies add-rule`. */
  name: string;
  /** Usage line after `policy`, for example `validate [file]`. */
  usage: string;
  /** One paragraph shown by `--help`. */
  summary: string;
  flags: FlagSpecs;
  /** Most positional arguments accepted (default 0). */
  maxPositionals?: number;
  /**
   * The exit code of an error the command stops with (default `exitCodeFor`,
   * the one table). `simulate` uses `exitCodeWhenNotRun`: whatever stops it
   * means its suite could not run, never that it failed.
   */
  exitCodeOf?: (code: string) => ExitCode;
  /**
   * What a positional argument is, for shell completion: file names, the
   * command names (`help`), or one of a few words (`set-status active|disabled`).
   */
  positionals?: "files" | "commands" | readonly string[];
  /**
   * Two or three command lines that show the command at work, each starting
   * with `policy <name>`; `--help` ends with them (a test parses each one
   * with the command's flags).
   */
  examples: readonly string[];
}

/**
 * What a command function says about itself, for help and shell completion
 * (`command_tree.ts`): its spec (a command made by `defineCommand`),
 * its subcommands (a group made by `defineGroup`), or how to load it
 * (a {@link lazy} command).
 */
export interface CommandInfo {
  spec?: CommandSpec;
  group?: GroupInfo;
  load?: () => Promise<CommandFunction>;
}

/** A group of subcommands (`policies`, `keys`). */
export interface GroupInfo {
  name: string;
  summary: string;
  examples: readonly string[];
  subcommands: Readonly<Record<string, { run: CommandFunction; summary: string }>>;
}

/**
 * A command whose module is imported when it runs: a run of `policy` loads
 * the modules of its own command only, not those of the others (start-up,
 * docs/performance.md).
 */
export function lazy(load: () => Promise<CommandFunction>): CommandFunction {
  const run: CommandFunction = async (args, io) => await (await load())(args, io);
  return Object.assign(run, { load } satisfies CommandInfo);
}

/** The table of commands the dispatcher uses: name → function and one-line summary. */
export type CommandTable = Readonly<Record<string, { run: CommandFunction; summary: string }>>;

/**
 * The dispatcher as the commands that list or run the others see it
 * (`help`, `completions`): passed to them by `run_cli.ts`, so that no
 * command imports the dispatcher.
 */
export interface Dispatcher {
  /** Every command: name → function and one-line summary. */
  readonly commands: CommandTable;
  /** Runs a command line, as `runCli` does. */
  run: CommandFunction;
}
