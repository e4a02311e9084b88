import type { TypeScriptApi } from "./types.ts";

/**
 * Loads the TypeScript compiler API on first use. It is a large CommonJS
 * module, so it is imported dynamically: commands other than `analyze` never
 * pay for it. Under both Deno and Node its API is the default export.
 */
export async function loadTypeScript(): Promise<TypeScriptApi> {
  const module: { default?: TypeScriptApi } = await import("typescript");
  return module.default ?? (module as unknown as TypeScriptApi);
}
