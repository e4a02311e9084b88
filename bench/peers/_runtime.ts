// The few things that differ between Deno and Node: how to start a child
// measurement, and what to call the runtime in the report.
import process from "node:process";

const isDeno = (globalThis as { Deno?: unknown }).Deno !== undefined;

/**
 * The command that runs `script` with `args` in a fresh process of this
 * runtime; under Deno it may read and write `scratch` only.
 */
export function childCommand(script: string, args: string[], scratch: string): [string, string[]] {
  // Node: the runner's own Node and V8 flags too (for example
  // --no-turbo-inline-js-wasm-calls, docs/performance.md "Node").
  if (!isDeno) return [process.execPath, [...process.execArgv, script, ...args]];
  // `deno` from PATH, as `deno task` found it (--allow-run=deno names that file).
  // Children may only use the scratch folder (the local client reads its bundle
  // from a file); casbin's dependencies read an environment variable at import,
  // which reads as unset.
  const flags = [
    "--quiet",
    "--no-prompt",
    `--allow-read=${scratch}`,
    `--allow-write=${scratch}`,
    "--ignore-env=__MINIMATCH_TESTING_PLATFORM__",
  ];
  return ["deno", ["run", ...flags, script, ...args]];
}

/** Runtime name and versions for the report. */
export function runtimeInfo(): { name: string; version: string; v8: string } {
  const versions = process.versions as Record<string, string | undefined>;
  return isDeno
    ? { name: "deno", version: versions.deno ?? "?", v8: versions.v8 ?? "?" }
    : { name: "node", version: process.version, v8: versions.v8 ?? "?" };
}
