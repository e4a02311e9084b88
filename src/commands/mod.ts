/**
 * The `policy` command line as functions: each command is
 * `run<Name>(args, io) → Promise<exit code>`, and {@link runCli} dispatches
 * by command name. `cli.ts` wires a real process to {@link CliIo}.
 *
 * @example Running a command in-process
 * ```ts
 * import { runCli } from "./mod.ts";
 * import assert from "node:assert/strict";
 *
 * let stdout = "";
 * const io = {
 *   stdout: (text: string) => void (stdout += text),
 *   stderr: () => {},
 *   env: () => undefined,
 *   cwd: "/",
 *   now: () => new Date(0),
 * };
 * assert.equal(await runCli(["keys", "generate", "--algorithm", "HMAC_SHA256", "--format", "json"], io), 0);
 * assert.match(JSON.parse(stdout).secret, /^[0-9a-f]{64}$/);
 * ```
 *
 * @module
 */
export type { CliIo } from "./cli_io.ts";
export { COMMANDS, runCli } from "./run_cli.ts";
export { CLI_ERROR_CODES, type CliErrorCode, EXIT_CODES, exitCodeFor } from "./_errors.ts";
export { FORMAT_VERSION } from "./_output.ts";
export { runWorkingFolder } from "./working_folder.ts";
export { runPolicies } from "./policies.ts";
export { runUpdatePolicy } from "./update_policy.ts";
export { runAddRule } from "./add_rule.ts";
export { runImportPolicies } from "./import_policies.ts";
export { runValidate } from "./validate.ts";
export { runBuild } from "./build.ts";
export { runSign } from "./sign.ts";
export { runInspect } from "./inspect.ts";
export { runSimulate } from "./simulate.ts";
export { runDiff } from "./diff.ts";
export { runKeys, runKeysGenerate } from "./keys.ts";
export { runAnalyze } from "./analyze.ts";
export { runActivate } from "./activate.ts";
