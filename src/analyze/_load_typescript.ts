import type { TypeScriptApi } from "./types.ts";
import { PolicyError } from "../public/policy_error.ts";

/**
 * Loads the TypeScript compiler API on first use. It is a large CommonJS
 * module, so it is imported dynamically: commands other than `analyze` never
 * pay for it. Under both Deno and Node its API is the default export. In the
 * npm package it is an optional peer dependency; when it is not installed,
 * this says how to install it.
 *
 * @throws {PolicyError} `TYPESCRIPT_UNAVAILABLE`.
 */
export async function loadTypeScript(): Promise<TypeScriptApi> {
  let module: { default?: TypeScriptApi };
  try {
    module = await import("typescript");
  } catch (cause) {
    throw new PolicyError(
      "TYPESCRIPT_UNAVAILABLE",
      "policy analyze parses source with the typescript package, which is not installed; install it with 'npm install --save-dev typescript'",
      { cause },
    );
  }
  return module.default ?? (module as unknown as TypeScriptApi);
}
