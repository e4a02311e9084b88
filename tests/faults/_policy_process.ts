/**
 * Running `cli.ts` as a child process with exactly the permissions of the
 * `policy` task in deno.json, and the long-run switch of the fault tests.
 * Needs `--allow-run=deno`; {@link DENO} is null (and the tests using it are
 * ignored, with a printed reason) without it.
 *
 * @module
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { denoCommand } from "../_deno_command.ts";

/** The CLI entry point. */
export const CLI = fileURLToPath(new URL("../../cli.ts", import.meta.url));

const denoJson = JSON.parse(await Deno.readTextFile(new URL("../../deno.json", import.meta.url)));

/**
 * The `deno run` flags of the `policy` task: everything between `deno run`
 * and its script, `tools/policy.ts` (which runs `cli.ts` bundled; the tests
 * run `cli.ts` itself, the JSR package's `./cli`, with the same flags).
 */
export function policyTaskFlags(): string[] {
  const words = String(denoJson.tasks.policy).split(/\s+/);
  assert.deepEqual(words.slice(0, 2), ["deno", "run"]);
  assert.equal(words.at(-1), "tools/policy.ts");
  return words.slice(2, -1);
}

/** The deno binary the tests may run, or null (see `denoCommand`). */
export const DENO: string | null = denoCommand();

/** Why process tests are ignored, printed once by a file that needs {@link DENO}. */
export function explainIgnored(file: string): void {
  if (DENO === null) {
    console.log(`${file}: skipped, run permission for deno not granted (--allow-run=deno)`);
  }
}

export { LONG } from "../_long.ts";

/** The environment of a child CLI: no variable of the caller's leaks in to change its behaviour. */
export function cliEnv(home: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    NO_COLOR: "1",
    POLICY_HOME: home,
    POLICY_WORKING_FOLDER: "",
    POLICY_PUBLIC_KEY: "",
    POLICY_PUBLIC_KEY_PATH: "",
    POLICY_HMAC_SECRET: "",
    ...extra,
  };
}

/** `deno run <policy task flags> cli.ts <args>` as a {@link Deno.Command}. */
export function policyCommand(
  args: string[],
  options: { cwd: string; env: Record<string, string>; signal?: AbortSignal },
): Deno.Command {
  return new Deno.Command(DENO!, {
    args: ["run", ...policyTaskFlags(), CLI, ...args],
    cwd: options.cwd,
    env: options.env,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    ...(options.signal && { signal: options.signal }),
  });
}

/** What a finished child printed and returned. */
export interface ChildResult {
  code: number;
  signal: Deno.Signal | null;
  stdout: string;
  stderr: string;
}

/** Runs the CLI to completion, killed (and failing) after `seconds`. */
export function runPolicy(
  args: string[],
  options: { cwd: string; env: Record<string, string>; seconds?: number },
): Promise<ChildResult> {
  return runDeno(["run", ...policyTaskFlags(), CLI, ...args], options, `policy ${args.join(" ")}`);
}

/**
 * Runs `deno <args>` to completion, killed (and failing as a hang) after
 * `seconds` (default 60): what is run must end by itself, so a pending
 * operation that keeps a process alive fails the test instead of the run.
 */
export async function runDeno(
  args: string[],
  options: { cwd?: string; env?: Record<string, string>; seconds?: number } = {},
  what = `deno ${args.join(" ")}`,
): Promise<ChildResult> {
  const controller = new AbortController();
  const seconds = options.seconds ?? 60;
  const timer = setTimeout(() => controller.abort(), seconds * 1000);
  let output: Deno.CommandOutput;
  try {
    output = await new Deno.Command(DENO!, {
      args,
      ...(options.cwd !== undefined && { cwd: options.cwd }),
      ...(options.env !== undefined && { env: options.env }),
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
      signal: controller.signal,
    }).output();
  } finally {
    clearTimeout(timer);
  }
  if (controller.signal.aborted) {
    throw new Error(`hang: ${what} did not finish within ${seconds} s`);
  }
  const decoder = new TextDecoder();
  return {
    code: output.code,
    signal: output.signal,
    stdout: decoder.decode(output.stdout),
    stderr: decoder.decode(output.stderr),
  };
}
