// The quick suite and the long one, for the Node tests (the Deno side is tests/_long.ts):
// `deno task test` runs every file here quickly, and leaves the slowest checks (each a full
// TypeScript program, checked with the libraries' declarations, and the playground's screenshots)
// to `deno task test:long`, which runs `run.mjs --long`: the files that import this module, with
// POLICY_TEST_LONG=1. The generated requests of the playground run on a quarter of the sample.
import process from "node:process";

/** True under `deno task test:long`. */
export const LONG = process.env.POLICY_TEST_LONG === "1";

/** The `skip` option of a test only the long run does: false there, else the reason. */
export const longOnly = LONG ? false : "run by deno task test:long";
