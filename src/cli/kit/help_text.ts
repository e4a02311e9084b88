/**
 * The help texts every command shares the shape of: a command's
 * `--help`, a group's and the `Examples:` section.
 *
 * @module
 */
import type { CommandSpec, FlagSpecs, GroupInfo } from "./command_spec.ts";
import { GLOBAL_FLAGS } from "./args.ts";

/** Help text of a command. */
export function renderHelp(spec: CommandSpec): string {
  const lines = [`Usage: policy ${spec.usage}`, "", spec.summary, ""];
  if (Object.keys(spec.flags).length > 0) {
    lines.push("Flags:", ...flagLines(spec.flags), "");
  }
  lines.push("Global flags:", ...flagLines(GLOBAL_FLAGS), "");
  lines.push(...examplesSection(spec.examples));
  return lines.join("\n") + "\n";
}

/** The `Examples:` section that ends every help text. */
export function examplesSection(examples: readonly string[]): string[] {
  return ["Examples:", ...examples.map((e) => `  ${e}`), ""];
}

function flagLines(flags: FlagSpecs): string[] {
  const rows = Object.entries(flags).map(([name, flag]) => {
    const short = flag.short === undefined ? "    " : `-${flag.short}, `;
    return [
      `  ${short}--${name}${flag.value === undefined ? "" : ` ${flag.value}`}${
        flag.multiple ? " …" : ""
      }`,
      flag.description,
    ];
  });
  const width = Math.max(...rows.map(([left]) => left!.length)) + 2;
  return rows.map(([left, right]) => left!.padEnd(width) + right);
}

/** Help text of a group of subcommands (`policy policies --help`). */
export function groupHelp(group: GroupInfo): string {
  const { name, summary, subcommands } = group;
  const width = Math.max(...Object.keys(subcommands).map((sub) => sub.length)) + 2;
  return [
    `Usage: policy ${name} <subcommand> [flags]`,
    "",
    summary,
    "",
    "Subcommands:",
    ...Object.entries(subcommands).map(([sub, { summary }]) => `  ${sub.padEnd(width)}${summary}`),
    "",
    `Run 'policy ${name} <subcommand> --help' (or 'policy help ${name} <subcommand>') for its`,
    "flags.",
    "",
    ...examplesSection(group.examples),
  ].join("\n");
}
