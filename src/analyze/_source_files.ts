import type { ScriptKind } from "typescript";
import type { TypeScriptApi } from "./types.ts";

/** File endings scanned by `scanSourceTree` (declaration files such as `.d.ts` excepted). */
export const SOURCE_EXTENSIONS: readonly string[] = [
  ".ts",
  ".tsx",
  ".mts",
  ".cts",
  ".js",
  ".jsx",
  ".mjs",
  ".cjs",
];

const DECLARATION_ENDINGS: readonly string[] = [".d.ts", ".d.mts", ".d.cts"];

/** True for a source file name the scan parses (declaration files excluded). */
export function isSourceFileName(name: string): boolean {
  const lower = name.toLowerCase();
  if (DECLARATION_ENDINGS.some((ending) => lower.endsWith(ending))) return false;
  return SOURCE_EXTENSIONS.some((ext) => lower.endsWith(ext));
}

/**
 * The script kind the parser needs for a file name: type syntax only in
 * TypeScript files; JSX in `.tsx` and JavaScript files (the parser allows it in
 * every JavaScript kind), not in `.ts`/`.mts`/`.cts`, where `<T>x` is a type
 * assertion. Unknown endings parse as TypeScript.
 */
export function scriptKindFor(ts: TypeScriptApi, fileName: string): ScriptKind {
  const lower = fileName.toLowerCase();
  if (lower.endsWith(".tsx")) return ts.ScriptKind.TSX;
  if (lower.endsWith(".jsx")) return ts.ScriptKind.JSX;
  if (lower.endsWith(".js") || lower.endsWith(".mjs") || lower.endsWith(".cjs")) {
    return ts.ScriptKind.JS;
  }
  return ts.ScriptKind.TS;
}
