// This module is browser compatible.
/**
 * The path rules of POSIX systems (Linux, macOS) as plain functions, for
 * the CLI's Deno file layer (`deno_file_layer.ts`), which must not load
 * `node:path` (Deno's Node compatibility layer costs its start-up). They
 * give what `node:path`'s `posix` functions give, which
 * `tests/io/posix_path_test.ts` checks on generated paths.
 *
 * @module
 */
import type { PathRules } from "./file_layer.ts";

/**
 * The segments of `path` with `.` and empty ones dropped and `..` applied;
 * a `..` above the start is kept when `aboveRoot` (relative paths) and
 * dropped otherwise (nothing is above `/`).
 */
function segments(path: string, aboveRoot: boolean): string[] {
  const out: string[] = [];
  for (const segment of path.split("/")) {
    if (segment === "" || segment === ".") continue;
    if (segment === "..") {
      if (out.length > 0 && out[out.length - 1] !== "..") out.pop();
      else if (aboveRoot) out.push("..");
      continue;
    }
    out.push(segment);
  }
  return out;
}

function normalize(path: string): string {
  if (path === "") return ".";
  const absolute = path.startsWith("/");
  const trailing = path.endsWith("/");
  let body = segments(path, !absolute).join("/");
  if (body === "") return absolute ? "/" : trailing ? "./" : ".";
  if (trailing) body += "/";
  return absolute ? `/${body}` : body;
}

/** POSIX path rules; `cwd` completes a `resolve` whose segments are all relative. */
export function posixPathRules(cwd: () => string): PathRules {
  const resolve = (...paths: string[]): string => {
    let joined = "";
    for (let i = paths.length - 1; i >= -1; i--) {
      const path = i >= 0 ? paths[i]! : cwd();
      if (path === "") continue;
      joined = joined === "" ? path : `${path}/${joined}`;
      if (path.startsWith("/")) break;
    }
    const absolute = joined.startsWith("/");
    const body = segments(joined, !absolute).join("/");
    return absolute ? `/${body}` : body === "" ? "." : body;
  };
  return {
    sep: "/",
    resolve,
    join: (...paths) => normalize(paths.filter((p) => p !== "").join("/")),
    dirname(path) {
      if (path === "") return ".";
      let end = path.length;
      while (end > 1 && path[end - 1] === "/") end--;
      const slash = path.lastIndexOf("/", end - 1);
      if (slash === -1) return ".";
      if (slash === 0) return "/";
      // Two leading slashes stay two (a root some systems give a meaning).
      if (slash === 1 && path[0] === "/") return "//";
      return path.slice(0, slash);
    },
    basename(path) {
      let end = path.length;
      while (end > 0 && path[end - 1] === "/") end--;
      return path.slice(path.lastIndexOf("/", end - 1) + 1, end);
    },
    relative(from, to) {
      const a = segments(resolve(from), false);
      const b = segments(resolve(to), false);
      let common = 0;
      while (common < a.length && common < b.length && a[common] === b[common]) common++;
      return [...a.slice(common).map(() => ".."), ...b.slice(common)].join("/");
    },
    isAbsolute: (path) => path.startsWith("/"),
  };
}
