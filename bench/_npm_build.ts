// Installs the npm build (`npm/`, as `deno task build:npm` leaves it) into a
// scratch project as users get it: packed with `npm pack`, installed from the
// tarball with npm, beside the packages a benchmark adds. Used by
// bench/peers/build_node.ts (with the peers) and bench/load/run.ts (start-up).
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));

/** The package's name, from deno.json. */
export const PACKAGE_NAME = (JSON.parse(readFileSync(join(root, "deno.json"), "utf8")) as {
  name: string;
}).name;

/** Runs a command in `cwd`; throws with its output when it fails. */
function run(command: string, args: string[], cwd: string): string {
  const result = spawnSync(command, args, { cwd, encoding: "utf8" });
  if (result.status !== 0) {
    throw new Error(
      `${command} ${args.join(" ")}: ${result.error?.message ?? ""}${result.stderr ?? ""}`,
    );
  }
  return result.stdout;
}

/**
 * Installs `npm/` into `dir` (created if needed) with `dependencies`
 * (name → version) beside it, and returns the folder of the installed
 * package. The package installed before is removed first, so a rebuilt
 * `npm/` of the same version is installed again; the install is checked to
 * be the build's.
 */
export function installNpmBuild(dir: string, dependencies: Record<string, string> = {}): string {
  if (!existsSync(join(root, "npm", "package.json"))) {
    throw new Error("npm/ is not built: deno task build:npm");
  }
  mkdirSync(dir, { recursive: true });
  const installed = join(dir, "node_modules", ...PACKAGE_NAME.split("/"));
  rmSync(installed, { recursive: true, force: true });
  const tarball = run("npm", ["pack", "--silent", "--pack-destination", dir], join(root, "npm"))
    .trim().split("\n").at(-1)!;
  writeFileSync(
    join(dir, "package.json"),
    JSON.stringify({
      name: "policy-bench",
      private: true,
      type: "module",
      dependencies: { [PACKAGE_NAME]: `file:./${tarball}`, ...dependencies },
    }),
  );
  run("npm", ["install", "--no-package-lock", "--no-audit", "--no-fund", "--loglevel=error"], dir);
  if (
    readFileSync(join(installed, "mod.js"), "utf8") !==
      readFileSync(join(root, "npm", "mod.js"), "utf8")
  ) {
    throw new Error(`the installed ${PACKAGE_NAME} is not the npm/ build`);
  }
  return installed;
}
