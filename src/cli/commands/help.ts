/**
 * `policy help [<command> [<subcommand>]]`: prints exactly what
 * `policy <command> [<subcommand>] --help` prints, by running that; and the
 * top-level help (`policy`, `policy --help`, `policy help`).
 *
 * @module
 */
import { defineCommand } from "../kit/session.ts";
import { GLOBAL_FLAGS } from "../kit/args.ts";
import { examplesSection } from "../kit/help_text.ts";
import { commandTree } from "../kit/command_tree.ts";
import type { CommandFunction, CommandTable, Dispatcher } from "../kit/command_spec.ts";

/** The `help` command of `dispatcher`: prints the help of a command, or the top-level help. */
export const helpCommand = (dispatcher: Dispatcher): CommandFunction =>
  defineCommand(
    {
      name: "help",
      usage: "help [<command> [<subcommand>]]",
      summary: [
        "Prints the help of <command> (and <subcommand>): the same text as",
        "'policy <command> [<subcommand>] --help'. Without a command, the list of commands.",
      ].join("\n"),
      flags: {},
      maxPositionals: 2,
      positionals: "commands",
      examples: ["policy help", "policy help build", "policy help policies set-status"],
    },
    async (session) => await dispatcher.run([...session.positionals, "--help"], session.io),
  );

/**
 * The top-level help: every command, a group's subcommands in its place,
 * read from the dispatcher's table (`COMMANDS`) and the groups themselves,
 * so the list cannot drift from what `runCli` dispatches.
 */
export async function topLevelHelp(commands: CommandTable): Promise<string> {
  const rows = (await commandTree(commands)).flatMap((node) =>
    node.subcommands.length > 0 ? node.subcommands : [node]
  );
  const width = Math.max(...rows.map((n) => n.name.length)) + 2;
  return [
    "Usage: policy <command> [flags]",
    "",
    "Commands:",
    ...rows.map((n) => `  ${n.name.padEnd(width)}${n.summary}`),
    "",
    "Global flags: " +
    Object.entries(GLOBAL_FLAGS).map(([n, f]) =>
      `${f.short === undefined ? "" : `-${f.short}/`}--${n}${
        f.value === undefined ? "" : ` ${f.value}`
      }`
    ).join(", "),
    "",
    "Run 'policy help <command>' (or 'policy <command> --help') for a command's flags. Exit",
    "codes: 0 success, 1 a check failed, 2 usage or configuration error (or a check that could",
    "not run), 3 licence refused, 4 below a threshold (simulate --coverage-threshold).",
    "",
    ...examplesSection([
      "policy working-folder init",
      "policy policies list",
      "policy help policies add-rule",
    ]),
  ].join("\n");
}
