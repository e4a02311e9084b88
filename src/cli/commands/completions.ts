/**
 * `policy completions bash|zsh|fish`: prints a shell completion script,
 * generated from the dispatcher's own table of commands (`src/cli/kit/command_tree.ts`),
 * so that it completes exactly the commands, subcommands and flags `policy`
 * takes, and the values of flags that have a fixed set (`--format`) or name
 * a file.
 *
 * @module
 */
import { GLOBAL_FLAGS } from "../kit/args.ts";
import type { CommandFunction, Dispatcher, FlagSpec } from "../kit/command_spec.ts";
import { type CommandNode, commandTree, leaves } from "../kit/command_tree.ts";
import { usageError } from "../kit/errors.ts";
import { defineCommand } from "../kit/session.ts";
import { didYouMean } from "../../_internal/suggest.ts";
import { describeValue } from "../../_internal/check_options.ts";
import { PACKAGE_VERSION } from "../../_internal/version.ts";

const SHELLS = ["bash", "zsh", "fish"] as const;
type Shell = typeof SHELLS[number];

/** The `completions` command of `dispatcher`: prints a completion script of its commands. */
export const completionsCommand = (dispatcher: Dispatcher): CommandFunction =>
  defineCommand(
    {
      name: "completions",
      usage: "completions bash|zsh|fish",
      summary: [
        "Prints a completion script for the shell: commands, subcommands, flags, the values of",
        "flags with a fixed set of values (--format, --defaults-effect, …) and file names for",
        "flags and arguments that name files. Load it from the shell's start-up file:",
        "  bash: source <(policy completions bash)        (in ~/.bashrc)",
        "  zsh:  source <(policy completions zsh)         (in ~/.zshrc, after compinit)",
        "  fish: policy completions fish > ~/.config/fish/completions/policy.fish",
        "It completes the command 'policy' (an alias of that name included).",
      ].join("\n"),
      flags: {},
      maxPositionals: 1,
      positionals: SHELLS,
      examples: [
        "policy completions bash > ~/.local/share/bash-completion/completions/policy",
        "policy completions zsh > ~/.zfunc/_policy",
        "policy completions fish > ~/.config/fish/completions/policy.fish",
      ],
    },
    async (session) => {
      const [given] = session.positionals;
      const shell = SHELLS.find((s) => s === given);
      if (shell === undefined) {
        throw usageError(
          given === undefined
            ? "'policy completions' needs the shell: bash, zsh or fish"
            : `no completions for ${describeValue(given)}: bash, zsh or fish${
              didYouMean(given, SHELLS)
            }`,
          "policy completions bash|zsh|fish",
        );
      }
      session.out.text(completionScript(shell, await commandTree(dispatcher.commands)));
      return 0;
    },
  );

/** The completion script of `shell` for the commands of `tree`. */
export function completionScript(shell: Shell, tree: readonly CommandNode[]): string {
  const model = completionModel(tree);
  switch (shell) {
    case "bash":
      return bashScript(model);
    case "zsh":
      return zshScript(model);
    case "fish":
      return fishScript(model);
  }
}

/** One flag, as completion needs it. */
interface CompletionFlag {
  /** `--name` and `-x` spellings. */
  spellings: string[];
  long: string;
  short: string | undefined;
  description: string;
  /** How its value completes: a fixed set, file names, or anything (null); absent for booleans. */
  value?: readonly string[] | "files" | null;
}

/** A command that runs (a group's subcommand, or a command without subcommands). */
interface CompletionCommand {
  /** `build`, `policies add-rule`. */
  key: string;
  /** Its first and second words. */
  command: string;
  subcommand: string | undefined;
  summary: string;
  flags: CompletionFlag[];
  positionals: "files" | "commands" | readonly string[] | undefined;
}

interface CompletionModel {
  commands: { word: string; summary: string }[];
  groups: { word: string; subcommands: { word: string; summary: string }[] }[];
  leaves: CompletionCommand[];
  global: CompletionFlag[];
}

function flagOf(long: string, flag: FlagSpec): CompletionFlag {
  const spellings = [`--${long}`, ...(flag.short === undefined ? [] : [`-${flag.short}`])];
  const base = { spellings, long, short: flag.short, description: flag.description };
  if (flag.type === "boolean") return base;
  const files = flag.value !== undefined && /^<(path|dir|file)[^>]*>$/.test(flag.value);
  return { ...base, value: flag.choices ?? (files ? "files" : null) };
}

function completionModel(tree: readonly CommandNode[]): CompletionModel {
  return {
    commands: tree.map((n) => ({ word: n.word, summary: n.summary })),
    groups: tree.filter((n) => n.subcommands.length > 0).map((n) => ({
      word: n.word,
      subcommands: n.subcommands.map((s) => ({ word: s.word, summary: s.summary })),
    })),
    leaves: leaves(tree).map((n) => {
      const [command, subcommand] = n.name.split(" ");
      return {
        key: n.name,
        command: command!,
        subcommand,
        summary: n.summary,
        flags: Object.entries(n.spec?.flags ?? {}).map(([long, f]) => flagOf(long, f)),
        positionals: n.spec?.positionals,
      };
    }),
    global: Object.entries(GLOBAL_FLAGS).map(([long, f]) => flagOf(long, f)),
  };
}

/** Shell words, single-quoted where needed (`'it'\''s'`). */
function quote(word: string): string {
  return /^[A-Za-z0-9_.,:\/@%+=-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

const words = (list: readonly string[]) => list.map(quote).join(" ");

/** How one shell offers words and file names, and reads the words typed. */
interface ShellWords {
  add: (list: string) => string;
  files: string;
  start: number;
  word: (i: string) => string;
}

/**
 * The shared body of the bash and zsh functions (both read it as POSIX
 * `case`): find the command and subcommand among the words before the
 * cursor (skipping global flags and their values, as `policy` does), then
 * complete a flag's value, a flag, a command, a subcommand or an argument.
 * `add` is the shell's "offer these words" and `files` its "offer file names".
 */
function shellBody(model: CompletionModel, shell: ShellWords): string[] {
  const offer = (value: readonly string[] | "files" | "commands") =>
    value === "files"
      ? shell.files
      : value === "commands"
      ? shell.add(words(model.commands.map((c) => c.word)))
      : shell.add(words(value));
  return [
    ...findCommand(model, shell),
    ...flagValueCases(model, offer),
    ...wordCases(model, shell, offer),
  ];
}

/** The loop that finds the command, subcommand and first argument typed; `key` names them. */
function findCommand(model: CompletionModel, shell: ShellWords): string[] {
  const globalValueFlags = model.global.filter((f) => f.value !== undefined).flatMap((f) =>
    f.spellings
  );
  const groups = model.groups.map((g) => g.word);
  return [
    `  local cmd="" sub="" first="" i word`,
    `  for (( i = ${shell.start}; i < ${shell.start === 1 ? "COMP_CWORD" : "CURRENT"}; i++ )); do`,
    `    word=${shell.word("i")}`,
    `    case "$word" in`,
    `      ${globalValueFlags.join("|")}) (( i++ )); continue ;;`,
    `      -*) continue ;;`,
    `    esac`,
    `    if [[ -z "$cmd" ]]; then`,
    `      cmd="$word"`,
    `    elif [[ -z "$sub" ]] && [[ " ${groups.join(" ")} " == *" $cmd "* ]]; then`,
    `      sub="$word"`,
    `    elif [[ -z "$first" ]]; then`,
    `      first="$word"`,
    `    fi`,
    `  done`,
    `  local key="$cmd\${sub:+ $sub}"`,
  ];
}

/** The value of the flag before the cursor: its choices, file names, or nothing to offer. */
function flagValueCases(
  model: CompletionModel,
  offer: (value: readonly string[] | "files" | "commands") => string,
): string[] {
  const lines = [`  case "$key|$prev" in`];
  const valueCase = (pattern: string, flag: CompletionFlag) => {
    const spelled = flag.spellings.map((s) => `${pattern}"|${s}"`).join("|");
    lines.push(
      `    ${spelled}) ${flag.value === null ? ":" : offer(flag.value!)}; return 0 ;;`,
    );
  };
  for (const leaf of model.leaves) {
    for (const flag of leaf.flags) if (flag.value !== undefined) valueCase(`"${leaf.key}"`, flag);
  }
  for (const flag of model.global) if (flag.value !== undefined) valueCase("*", flag);
  lines.push(`  esac`);
  return lines;
}

/** The word at the cursor: a flag, a command, a subcommand or an argument. */
function wordCases(
  model: CompletionModel,
  shell: ShellWords,
  offer: (value: readonly string[] | "files" | "commands") => string,
): string[] {
  const lines: string[] = [];
  const globalFlags = model.global.flatMap((f) => f.spellings.filter((s) => s.startsWith("--")));
  lines.push(`  if [[ "$cur" == -* ]]; then`, `    case "$key" in`);
  for (const leaf of model.leaves) {
    lines.push(
      `      "${leaf.key}") ${
        shell.add(words([...leaf.flags.map((f) => `--${f.long}`), ...globalFlags]))
      } ;;`,
    );
  }
  lines.push(`      *) ${shell.add(words(globalFlags))} ;;`, `    esac`, `    return 0`, `  fi`);
  lines.push(`  if [[ -z "$cmd" ]]; then`, `    ${offer("commands")}`, `    return 0`, `  fi`);
  lines.push(`  if [[ -z "$sub" ]]; then`, `    case "$cmd" in`);
  const subcommands = (group: CompletionModel["groups"][number]) =>
    shell.add(words(group.subcommands.map((s) => s.word)));
  for (const group of model.groups) {
    lines.push(`      ${quote(group.word)}) ${subcommands(group)}; return 0 ;;`);
  }
  lines.push(`    esac`, `  fi`, `  case "$key" in`);
  for (const leaf of model.leaves) {
    if (leaf.positionals === undefined) continue;
    if (leaf.positionals === "commands") {
      // help <command> [<subcommand>]
      lines.push(`    "${leaf.key}")`, `      case "$first" in`);
      for (const group of model.groups) {
        lines.push(`        ${quote(group.word)}) ${subcommands(group)} ;;`);
      }
      lines.push(`        "") ${offer("commands")} ;;`, `      esac`, `      ;;`);
    } else {
      lines.push(`    "${leaf.key}") ${offer(leaf.positionals)} ;;`);
    }
  }
  lines.push(`  esac`, `  return 0`);
  return lines;
}

function header(shell: Shell): string[] {
  return [
    `# ${shell} completion for policy ${PACKAGE_VERSION}, generated by 'policy completions ${shell}'`,
    `# from the commands policy dispatches; regenerate it after an upgrade.`,
  ];
}

function bashScript(model: CompletionModel): string {
  return [
    ...header("bash"),
    "# Load it with: source <(policy completions bash)",
    "_policy() {",
    `  local cur="\${COMP_WORDS[COMP_CWORD]}" prev=""`,
    `  (( COMP_CWORD > 0 )) && prev="\${COMP_WORDS[COMP_CWORD-1]}"`,
    "  COMPREPLY=()",
    ...shellBody(model, {
      add: (list) => `mapfile -t COMPREPLY < <(compgen -W "${list.replaceAll("'", "")}" -- "$cur")`,
      files: `compopt -o filenames 2>/dev/null; mapfile -t COMPREPLY < <(compgen -f -- "$cur")`,
      start: 1,
      word: (i) => `"\${COMP_WORDS[${i}]}"`,
    }),
    "}",
    "complete -F _policy policy",
    "",
  ].join("\n");
}

function zshScript(model: CompletionModel): string {
  return [
    "#compdef policy",
    ...header("zsh"),
    "# Load it with: source <(policy completions zsh) (after compinit), or save it as _policy",
    "# in a folder of $fpath.",
    "_policy() {",
    `  local cur="\${words[CURRENT]}" prev="\${words[CURRENT-1]}"`,
    ...shellBody(model, {
      add: (list) => `compadd -- ${list}`,
      files: "_files",
      start: 2,
      word: (i) => `"\${words[${i}]}"`,
    }),
    "}",
    `if [[ "\$funcstack[1]" == "_policy" ]]; then`,
    `  _policy "$@"`,
    "else",
    "  compdef _policy policy",
    "fi",
    "",
  ].join("\n");
}

/** A fish single-quoted string. */
function fishQuote(text: string): string {
  return `'${text.replaceAll("\\", "\\\\").replaceAll("'", "\\'")}'`;
}

function fishScript(model: CompletionModel): string {
  const groups = model.groups.map((g) => g.word);
  const lines = [
    ...header("fish"),
    "# Save it as ~/.config/fish/completions/policy.fish",
    "complete -c policy -f",
  ];
  const flagLine = (condition: string | null, flag: CompletionFlag) => {
    const parts = ["complete -c policy"];
    if (condition !== null) parts.push(`-n ${fishQuote(condition)}`);
    parts.push(`-l ${flag.long}`);
    if (flag.short !== undefined) parts.push(`-s ${flag.short}`);
    if (flag.value === "files") parts.push("-r -F");
    else if (Array.isArray(flag.value)) parts.push(`-x -a ${fishQuote(flag.value.join(" "))}`);
    else if (flag.value === null) parts.push("-x");
    parts.push(`-d ${fishQuote(flag.description)}`);
    lines.push(parts.join(" "));
  };
  lines.push("# commands");
  for (const c of model.commands) {
    lines.push(
      `complete -c policy -n '__fish_use_subcommand' -a ${fishQuote(c.word)} -d ${
        fishQuote(c.summary)
      }`,
    );
  }
  for (const group of model.groups) {
    lines.push(`# ${group.word} subcommands`);
    const subs = group.subcommands.map((s) => s.word).join(" ");
    for (const s of group.subcommands) {
      lines.push(
        `complete -c policy -n ${
          fishQuote(
            `__fish_seen_subcommand_from ${group.word}; and not __fish_seen_subcommand_from ${subs}`,
          )
        } -a ${fishQuote(s.word)} -d ${fishQuote(s.summary)}`,
      );
    }
  }
  for (const leaf of model.leaves) {
    const condition = leaf.subcommand === undefined
      ? `__fish_seen_subcommand_from ${leaf.command}`
      : `__fish_seen_subcommand_from ${leaf.command}; and __fish_seen_subcommand_from ${leaf.subcommand}`;
    lines.push(`# ${leaf.key}`);
    for (const flag of leaf.flags) flagLine(condition, flag);
    if (leaf.positionals === "files") {
      lines.push(`complete -c policy -n ${fishQuote(condition)} -F`);
    } else if (leaf.positionals === "commands") {
      lines.push(
        `complete -c policy -n ${fishQuote(condition)} -a ${
          fishQuote([
            ...model.commands.map((c) => c.word),
            ...groups.flatMap((g) =>
              model.groups.find((x) => x.word === g)!.subcommands.map((s) => s.word)
            ),
          ].join(" "))
        }`,
      );
    } else if (leaf.positionals !== undefined) {
      lines.push(
        `complete -c policy -n ${fishQuote(condition)} -a ${fishQuote(leaf.positionals.join(" "))}`,
      );
    }
  }
  lines.push("# global flags");
  for (const flag of model.global) flagLine(null, flag);
  lines.push("");
  return lines.join("\n");
}
