// Start-up time: wall time of `deno run` (or `node`) of a script, from spawn to exit.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** A command whose start-up is measured. */
export interface StartupCase {
  name: string;
  /** `deno` or `node`, from PATH. */
  command: "deno" | "node";
  args: string[];
  /** What must be on stdout for a run to count: a failing command is an error, never a time. */
  check?: (stdout: string) => boolean;
}

const path = (relative: string) => fileURLToPath(new URL(relative, import.meta.url));

/**
 * `policy simulate` of one request against the example bundle, which a rule
 * allows; its JSON output is checked. `-w` names the folder, so the CLI reads
 * no user config and needs no HOME; it reads POLICY_* variables (a key there
 * would make it verify the unsigned example, and the check fail).
 */
const examples = path("../../examples");
const simulateArgs = [
  "simulate",
  "-w",
  examples,
  "--bundle",
  "bundle.json",
  "--service",
  "billing",
  "--resource",
  "invoice",
  "--action",
  "create",
  "--context",
  '{"plan":"pro"}',
  "--format",
  "json",
];
const simulated = (stdout: string): boolean => {
  const { decision } = JSON.parse(stdout) as { decision?: { decision?: string; ruleId?: string } };
  return decision?.decision === "allow" && decision.ruleId === "paid-plans";
};

/** The `policy` bin of the npm build, where `deno task bench:peers:node` installs it. */
const nodeCli = path("../../.tmp/bench-node/node_modules/@policy/runtime/cli.js");

export const STARTUP_CASES: StartupCase[] = [
  {
    name: "deno run of an empty script",
    command: "deno",
    args: ["run", "--quiet", path("./startup/empty.ts")],
  },
  {
    name: "deno run: import mod.ts, compile one rule, evaluate once",
    command: "deno",
    args: ["run", "--quiet", path("./startup/evaluate_once.ts")],
  },
  {
    name: "deno run cli.ts simulate (one request, example bundle)",
    command: "deno",
    args: [
      "run",
      "--quiet",
      "--no-prompt",
      `--allow-read=${examples}`,
      "--allow-env=POLICY_*",
      path("../../cli.ts"),
      ...simulateArgs,
    ],
    check: simulated,
  },
  // Through the npm build, when it is installed (deno task bench:peers:node).
  ...(existsSync(nodeCli)
    ? [
      {
        name: "node of an empty script",
        command: "node",
        args: [path("./startup/empty.mjs")],
      },
      {
        name: "node: policy simulate of the npm build (same request)",
        command: "node",
        args: [nodeCli, ...simulateArgs],
        check: simulated,
      },
    ] satisfies StartupCase[]
    : []),
];

/** Median wall time (ms) of each case; runs are interleaved, after one warm-up run each. */
export function measureStartup(cases: StartupCase[], runs = 11): Map<string, number> {
  const times = new Map<string, number[]>(cases.map((c) => [c.name, []]));
  for (let run = -1; run < runs; run++) {
    for (const c of cases) {
      const start = performance.now();
      const child = spawnSync(c.command, c.args, { encoding: "utf8" });
      const ms = performance.now() - start;
      if (child.status !== 0) throw new Error(`${c.name}: ${child.error?.message ?? child.stderr}`);
      if (c.check !== undefined && !passes(c.check, child.stdout)) {
        throw new Error(`${c.name}: unexpected output: ${child.stdout}`);
      }
      if (run >= 0) times.get(c.name)!.push(ms);
    }
  }
  return new Map([...times].map(([name, list]) => [name, median(list)]));
}

function passes(check: (stdout: string) => boolean, stdout: string): boolean {
  try {
    return check(stdout);
  } catch {
    return false; // not the JSON document expected
  }
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
