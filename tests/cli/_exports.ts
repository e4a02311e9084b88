// What the command tests import from the source, in one place (the CLI has
// no module that re-exports its commands: run_cli.ts imports each command's
// module when it runs, docs/performance.md "Start-up").
export type { CliIo } from "../../src/cli/cli_io.ts";
export { COMMANDS, runCli } from "../../src/cli/run_cli.ts";
export {
  CLI_ERROR_CODES,
  type CliErrorCode,
  EXIT_CODES,
  exitCodeFor,
  exitCodeWhenNotRun,
} from "../../src/cli/kit/errors.ts";
export { FORMAT_VERSION } from "../../src/cli/kit/output.ts";
export { ERROR_CODES } from "../../src/public/policy_error.ts";
