/**
 * The commands as a tree, read from the dispatcher's own table (`COMMANDS`
 * in `run_cli.ts`) and from what each command function says about itself
 * (`CommandInfo`): the top-level help lists it, and `policy completions`
 * turns it into shell completion scripts, so neither can drift from what
 * `policy` dispatches.
 *
 * @module
 */
import type { CommandFunction, CommandInfo, CommandSpec, CommandTable } from "./command_spec.ts";

/** A command or subcommand. */
export interface CommandNode {
  /** The name as typed after `policy`: `build`, `policies add-rule`. */
  name: string;
  /** Its last word: `build`, `add-rule`. */
  word: string;
  summary: string;
  /** Its flags and help; null for a group. */
  spec: CommandSpec | null;
  /** A group's subcommands, in order; empty for a command. */
  subcommands: CommandNode[];
}

/** The function behind a lazy one (its module imported). */
async function resolve(run: CommandFunction): Promise<CommandFunction & CommandInfo> {
  let current = run as CommandFunction & CommandInfo;
  while (current.load !== undefined) {
    current = await current.load() as CommandFunction & CommandInfo;
  }
  return current;
}

/**
 * Every command and subcommand of `table`, each command's module imported
 * to read its spec (help and completion scripts are printed rarely; running
 * a command still loads its own module only).
 */
export async function commandTree(table: CommandTable): Promise<CommandNode[]> {
  const node = async (
    name: string,
    word: string,
    entry: { run: CommandFunction; summary: string },
  ): Promise<CommandNode> => {
    const run = await resolve(entry.run);
    if (run.group !== undefined) {
      const subcommands = await Promise.all(
        Object.entries(run.group.subcommands).map(([sub, e]) => node(`${name} ${sub}`, sub, e)),
      );
      return { name, word, summary: entry.summary, spec: null, subcommands };
    }
    return { name, word, summary: entry.summary, spec: run.spec ?? null, subcommands: [] };
  };
  return await Promise.all(Object.entries(table).map(([name, entry]) => node(name, name, entry)));
}

/** The commands that run (a group's subcommands in its place), in order. */
export function leaves(tree: readonly CommandNode[]): CommandNode[] {
  return tree.flatMap((n) => n.subcommands.length > 0 ? leaves(n.subcommands) : [n]);
}
