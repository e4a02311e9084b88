/**
 * The `policy` command line as a function: {@link runCli} dispatches by
 * command name to the command's `run<Name>(args, io) → Promise<exit code>`,
 * whose module it imports when the command runs. `cli.ts` wires a real
 * process to {@link CliIo}.
 *
 * @example Running a command in-process
 * ```ts
 * import { runCli } from "./run_cli.ts";
 * import assert from "node:assert/strict";
 *
 * let stdout = "";
 * const io = {
 *   stdout: (text: string) => void (stdout += text),
 *   stderr: () => {},
 *   env: () => undefined,
 *   cwd: "/",
 *   clock: { now: () => 0, wallNow: () => 0, setTimeout, clearTimeout },
 * };
 * assert.equal(await runCli(["keys", "generate", "--algorithm", "HMAC_SHA256", "--format", "json"], io), 0);
 * assert.match(JSON.parse(stdout).secret, /^[0-9a-f]{64}$/);
 * ```
 *
 * @module
 */
import type { CliIo } from "./cli_io.ts";
import { detectFormat, splitCommand, versionText, wantsHelp, wantsVersion } from "./kit/args.ts";
import { type CommandTable, type Dispatcher, lazy } from "./kit/command_spec.ts";
import { describeError, exitCodeFor, usageError } from "./kit/errors.ts";
import { Output } from "./kit/output.ts";
import { didYouMean } from "../_internal/suggest.ts";
import { describeValue } from "../_internal/describe_value.ts";

/** The `help` command's module, which also prints the top-level help. */
const loadHelp = () => import("./commands/help.ts");

/** Every command: name → function and one-line summary. */
export const COMMANDS: CommandTable = {
  "working-folder": {
    run: lazy(async () => (await import("./commands/working_folder.ts")).runWorkingFolder),
    summary: "show, set, reset the working folder; init an empty draft",
  },
  analyze: {
    run: lazy(async () => (await import("./commands/analyze.ts")).runAnalyze),
    summary: "scan source code for evaluation points; write the first draft",
  },
  policies: {
    run: lazy(async () => (await import("./commands/policies/policies.ts")).runPolicies),
    summary: "edit the draft's policies and rules",
  },
  fmt: {
    run: lazy(async () => (await import("./commands/fmt/fmt.ts")).runFmt),
    summary: "format the draft, rule files, suites and config the way the CLI writes them",
  },
  validate: {
    run: lazy(async () => (await import("./commands/validate.ts")).runValidate),
    summary: "validate a draft or a bundle",
  },
  build: {
    run: lazy(async () => (await import("./commands/build.ts")).runBuild),
    summary: "build the bundle from the draft, optionally signed",
  },
  sign: {
    run: lazy(async () => (await import("./commands/sign.ts")).runSign),
    summary: "sign an existing bundle",
  },
  simulate: {
    run: lazy(async () => (await import("./commands/simulate/simulate.ts")).runSimulate),
    summary: "evaluate a request or a simulation suite",
  },
  diff: {
    run: lazy(async () => (await import("./commands/diff/diff.ts")).runDiff),
    summary: "what a change changes: by meaning, and in recorded decisions",
  },
  inspect: {
    run: lazy(async () => (await import("./commands/inspect.ts")).runInspect),
    summary: "show a bundle, or verify its signature",
  },
  keys: {
    run: lazy(async () => (await import("./commands/keys.ts")).runKeys),
    summary: "generate an ECDSA key pair or an HMAC secret",
  },
  playground: {
    run: lazy(async () => (await import("./commands/playground/playground.ts")).runPlayground),
    summary: "serve the playground page, a live view of the working folder",
  },
  activate: {
    run: lazy(async () => (await import("./commands/activate.ts")).runActivate),
    summary: "activate the toolkit licence (build and sign need one after 30 days)",
  },
  help: {
    run: lazy(async () => (await loadHelp()).helpCommand(DISPATCHER)),
    summary: "print the help of a command: 'policy help <command>' = 'policy <command> --help'",
  },
  completions: {
    run: lazy(async () =>
      (await import("./commands/completions.ts")).completionsCommand(DISPATCHER)
    ),
    summary: "print a shell completion script for bash, zsh or fish",
  },
};

/** The dispatcher as `help` and `completions` see it: they list and run the commands above. */
const DISPATCHER: Dispatcher = {
  get commands() {
    return COMMANDS;
  },
  run: (args, io) => runCli(args, io),
};

/**
 * Runs the `policy` command line in-process and returns the exit code.
 *
 * @example
 * ```ts
 * import { runCli } from "./run_cli.ts";
 * import assert from "node:assert/strict";
 *
 * let stderr = "";
 * const io = {
 *   stdout: () => {},
 *   stderr: (text: string) => void (stderr += text),
 *   env: () => undefined,
 *   cwd: "/",
 *   clock: { now: () => 0, wallNow: () => 0, setTimeout, clearTimeout },
 * };
 * assert.equal(await runCli(["bulid"], io), 2);
 * assert.match(stderr, /did you mean build\?/);
 * ```
 */
export async function runCli(args: readonly string[], io: CliIo): Promise<number> {
  const { name, rest } = splitCommand(args);
  if (name !== undefined && Object.hasOwn(COMMANDS, name)) {
    return await COMMANDS[name]!.run(rest, io);
  }
  const out = new Output(io, { format: detectFormat(args), quiet: false, verbose: false });
  if (name === undefined && (wantsHelp(args) || args.length === 0)) {
    out.text(await (await loadHelp()).topLevelHelp(COMMANDS));
    return args.length === 0 ? exitCodeFor("USAGE_ERROR") : 0;
  }
  if (name === undefined && wantsVersion(args)) {
    out.text(versionText());
    return 0;
  }
  const report = describeError(
    name === undefined
      ? usageError("no command given", "run 'policy --help' for the commands")
      : usageError(
        `unknown command ${describeValue(name)}${didYouMean(name, Object.keys(COMMANDS))}`,
        "run 'policy --help' for the commands",
      ),
  );
  out.error(report);
  return exitCodeFor(report.code);
}
