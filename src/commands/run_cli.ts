/**
 * The `policy` dispatcher: maps a command name to its function.
 *
 * @module
 */
import type { CliIo } from "./cli_io.ts";
import {
  detectFormat,
  GLOBAL_FLAGS,
  splitCommand,
  versionText,
  wantsHelp,
  wantsVersion,
} from "./_args.ts";
import { describeError, exitCodeFor, usageError } from "./_errors.ts";
import { Output } from "./_output.ts";
import type { CommandFunction } from "./_session.ts";
import { didYouMean } from "./_suggest.ts";
import { runWorkingFolder } from "./working_folder.ts";
import { runPolicies } from "./policies.ts";
import { runValidate } from "./validate.ts";
import { runBuild } from "./build.ts";
import { runSign } from "./sign.ts";
import { runInspect } from "./inspect.ts";
import { runSimulate } from "./simulate.ts";
import { runDiff } from "./diff.ts";
import { runKeys } from "./keys.ts";
import { runAnalyze } from "./analyze.ts";
import { runActivate } from "./activate.ts";

/** Every command: name → function and one-line summary. */
export const COMMANDS: Readonly<Record<string, { run: CommandFunction; summary: string }>> = {
  "working-folder": {
    run: runWorkingFolder,
    summary: "show, set, reset the working folder; init an empty draft",
  },
  analyze: {
    run: runAnalyze,
    summary: "scan source code for evaluation points; write the first draft",
  },
  policies: { run: runPolicies, summary: "edit the draft: update-policy, add-rule" },
  validate: { run: runValidate, summary: "validate a draft or a bundle" },
  build: { run: runBuild, summary: "build the bundle from the draft, optionally signed" },
  sign: { run: runSign, summary: "sign an existing bundle" },
  simulate: { run: runSimulate, summary: "evaluate a request or a simulation suite" },
  diff: { run: runDiff, summary: "what a change changes: by meaning, and in recorded decisions" },
  inspect: { run: runInspect, summary: "show a bundle, or verify its signature" },
  keys: { run: runKeys, summary: "generate an ECDSA key pair or an HMAC secret" },
  activate: {
    run: runActivate,
    summary: "activate the toolkit licence (build and sign need one after 30 days)",
  },
};

function help(): string {
  const names = Object.keys(COMMANDS);
  const width = Math.max(...names.map((n) => n.length)) + 2;
  return [
    "Usage: policy <command> [flags]",
    "",
    "Commands:",
    ...names.map((n) => `  ${n.padEnd(width)}${COMMANDS[n]!.summary}`),
    "",
    "Global flags: " +
    Object.entries(GLOBAL_FLAGS).map(([n, f]) =>
      `${f.short === undefined ? "" : `-${f.short}/`}--${n}${
        f.value === undefined ? "" : ` ${f.value}`
      }`
    ).join(", "),
    "",
    "Run 'policy <command> --help' for a command's flags. Exit codes: 0 success, 1 a check",
    "failed, 2 usage or configuration error, 3 licence refused.",
    "",
  ].join("\n");
}

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
 *   now: () => new Date(0),
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
  if (name === undefined && (wantsHelp(args) || args.length === 0)) {
    io.stdout(help());
    return args.length === 0 ? exitCodeFor("USAGE_ERROR") : 0;
  }
  if (name === undefined && wantsVersion(args)) {
    io.stdout(versionText());
    return 0;
  }
  const out = new Output(io, { format: detectFormat(args), quiet: false, verbose: false });
  const report = describeError(
    name === undefined
      ? usageError("no command given", "run 'policy --help' for the commands")
      : usageError(
        `unknown command '${name}'${didYouMean(name, Object.keys(COMMANDS))}`,
        "run 'policy --help' for the commands",
      ),
  );
  out.error(report);
  return exitCodeFor(report.code);
}
