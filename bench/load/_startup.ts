// Start-up time: wall time of `deno run` of a script, from spawn to exit.
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

/** A command whose start-up is measured; `policy simulate` joins when the CLI lands. */
export interface StartupCase {
  name: string;
  /** Arguments of `deno`. */
  args: string[];
}

const script = (path: string) => fileURLToPath(new URL(path, import.meta.url));

export const STARTUP_CASES: StartupCase[] = [
  { name: "deno run of an empty script", args: ["run", "--quiet", script("./startup/empty.ts")] },
  {
    name: "deno run: import mod.ts, compile one rule, evaluate once",
    args: ["run", "--quiet", script("./startup/evaluate_once.ts")],
  },
];

/** Median wall time (ms) of each case; runs are interleaved, after one warm-up run each. */
export function measureStartup(cases: StartupCase[], runs = 11): Map<string, number> {
  const times = new Map<string, number[]>(cases.map((c) => [c.name, []]));
  for (let run = -1; run < runs; run++) {
    for (const c of cases) {
      const start = performance.now();
      const child = spawnSync("deno", c.args, { encoding: "utf8" });
      const ms = performance.now() - start;
      if (child.status !== 0) throw new Error(`${c.name}: ${child.error?.message ?? child.stderr}`);
      if (run >= 0) times.get(c.name)!.push(ms);
    }
  }
  return new Map([...times].map(([name, list]) => [name, median(list)]));
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
