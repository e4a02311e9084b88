/**
 * Test helpers: scratch working folders and in-process command runs with
 * captured output, injected environment and a fixed clock.
 */
import assert from "node:assert/strict";
import * as path from "node:path";
import { type CliIo, runCli } from "./_exports.ts";
import { ISSUER, TEST_LICENSE } from "../_license.ts";
import { makeTempDir } from "../temp_dir.ts";
import type { Clock } from "../../src/public/clock.ts";

const FIXTURES = new URL("../testdata/cli/", import.meta.url);

/** The fixed clock of in-process runs. */
export const NOW = new Date("2026-11-21T09:30:00.000Z");

/** What one command run printed and returned. */
export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Options of {@link Scratch.run}. */
export interface RunOptions {
  /** Environment variables (merged over the scratch defaults). */
  env?: Record<string, string>;
  /** Current folder (default: the scratch working folder). */
  cwd?: string;
  now?: Date;
  /** A command function to call instead of the dispatcher. */
  command?: (args: string[], io: CliIo) => Promise<number>;
}

/** A scratch working folder and `$POLICY_HOME`, removed by `dispose`. */
export interface Scratch {
  root: string;
  /** The working folder (`<root>/wf`). */
  wf: string;
  /** `$POLICY_HOME` (`<root>/home`). */
  home: string;
  /** Runs `policy <args>` in-process. */
  run(args: string[], options?: RunOptions): Promise<RunResult>;
  /** Runs with `--format json` and parses stdout. */
  json(args: string[], options?: RunOptions): Promise<RunResult & { doc: Record<string, unknown> }>;
  write(relative: string, content: string | unknown): Promise<string>;
  /** Copies `tests/testdata/cli/<name>` to `relative` in the working folder. */
  fixture(name: string, relative?: string): Promise<string>;
  read(relative: string): Promise<string>;
  readJson(relative: string): Promise<Record<string, unknown>>;
  [Symbol.asyncDispose](): Promise<void>;
}

/** Makes a scratch folder under `.tmp/`: `root/wf` is the working folder and the current folder. */
export async function scratch(): Promise<Scratch> {
  const root = await Deno.realPath((await makeTempDir("cli-")).dir);
  const wf = path.join(root, "wf");
  const home = path.join(root, "home");
  await Deno.mkdir(wf);
  const write = async (relative: string, content: string | unknown) => {
    const file = path.resolve(wf, relative);
    await Deno.mkdir(path.dirname(file), { recursive: true });
    await Deno.writeTextFile(
      file,
      typeof content === "string" ? content : JSON.stringify(content, null, 2),
    );
    return file;
  };
  const run = async (args: string[], options: RunOptions = {}): Promise<RunResult> => {
    let stdout = "";
    let stderr = "";
    // Licensed by default (a test licence and its issuer key), so that build and sign print no
    // grace-period warning; the licence tests set these to "" (unset) or to other values.
    const env: Record<string, string> = {
      POLICY_HOME: home,
      POLICY_LICENSE: TEST_LICENSE,
      POLICY_LICENSE_PUBLIC_KEY: ISSUER.publicKeyPem,
      ...options.env,
    };
    const io: CliIo = {
      stdout: (text) => void (stdout += text),
      stderr: (text) => void (stderr += text),
      env: (name) => env[name],
      cwd: options.cwd ?? wf,
      clock: fixedClock(options.now ?? NOW),
    };
    const code = options.command ? await options.command(args, io) : await runCli(args, io);
    return { code, stdout, stderr };
  };
  return {
    root,
    wf,
    home,
    run,
    json: async (args, options) => {
      const result = await run([...args, "--format", "json"], options);
      let doc: Record<string, unknown>;
      try {
        doc = JSON.parse(result.stdout);
      } catch {
        throw new Error(
          `stdout is not one JSON document:\n${result.stdout}\nstderr:\n${result.stderr}`,
        );
      }
      return { ...result, doc };
    },
    write,
    fixture: async (name, relative = name) =>
      await write(relative, await Deno.readTextFile(new URL(name, FIXTURES))),
    read: (relative) => Deno.readTextFile(path.resolve(wf, relative)),
    readJson: async (relative) => JSON.parse(await Deno.readTextFile(path.resolve(wf, relative))),
    [Symbol.asyncDispose]: () => Deno.remove(root, { recursive: true }),
  };
}

/** Type names for {@link assertShape}: a `typeof` name, `array`, `null`, or `a|b`. */
export type TypeSpec = string;

/**
 * Asserts that `value` is an object with exactly the keys of `shape`, each
 * of the given type: the lock on a JSON output contract.
 */
export function assertShape(value: unknown, shape: Record<string, TypeSpec>, where = "document") {
  assert.ok(
    typeof value === "object" && value !== null && !Array.isArray(value),
    `${where} is an object`,
  );
  assert.deepEqual(
    Object.keys(value).sort(),
    Object.keys(shape).sort(),
    `${where} has exactly the keys ${Object.keys(shape).sort().join(", ")}`,
  );
  for (const [key, spec] of Object.entries(shape)) {
    const v = (value as Record<string, unknown>)[key];
    const actual = v === null ? "null" : Array.isArray(v) ? "array" : typeof v;
    assert.ok(spec.split("|").includes(actual), `${where}.${key} is ${spec}, found ${actual}`);
  }
}

/** Asserts an error run: exit code, code in stderr, and with JSON the `{error}` document. */
export function assertError(result: RunResult, exitCode: number, code: string) {
  assert.equal(result.code, exitCode, `exit code; stderr: ${result.stderr}`);
  assert.match(
    result.stderr,
    new RegExp(`\\(${code}\\)`),
    `stderr names ${code}: ${result.stderr}`,
  );
}

/** A valid rule document for `billing/invoice/create`. */
export function rule(id: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id,
    status: "active",
    priority: 10,
    target: { service: "billing", resource: "invoice", action: "create" },
    effect: { type: "allow" },
    ...overrides,
  };
}

/** Creates a draft with one policy (default deny) and the given rules, through the CLI. */
export async function draftWith(s: Scratch, rules: Record<string, unknown>[]): Promise<void> {
  assert.equal((await s.run(["working-folder", "init", "-w", s.wf])).code, 0);
  const update = await s.run([
    "policies",
    "update-policy",
    "-w",
    s.wf,
    "--create",
    "--policy-key",
    "billing",
    "--defaults-effect",
    "deny",
  ]);
  assert.equal(update.code, 0, update.stderr);
  for (const r of rules) {
    await s.write(`rules/${r.id}.json`, r);
    const added = await s.run([
      "policies",
      "add-rule",
      "-w",
      s.wf,
      "--policy-key",
      "billing",
      "--rule-file",
      `rules/${r.id}.json`,
    ]);
    assert.equal(added.code, 0, added.stderr);
  }
}

/** A fixed 64-hex HMAC secret for tests. */
export const HMAC_SECRET = "8f1e0c2b9a7d6e5f4c3b2a1908f7e6d5c4b3a29180f7e6d5c4b3a2918f7e6d5c";

/**
 * The CLI's clock in tests: the calendar frozen at `at` (builds' `generatedAt`,
 * licence dates), monotonic time frozen too (durations are 0), and real timers
 * (the lock's waits, which wait for other commands).
 */
export function fixedClock(at: Date): Clock {
  return {
    now: () => 0,
    wallNow: () => at.getTime(),
    setTimeout: (callback, ms) => setTimeout(callback, ms),
    clearTimeout: (handle) => clearTimeout(handle as number),
  };
}
