// Start-up time: wall time of `deno run` (or `node`) of a program, from spawn
// to exit, against the same runtime's start-up of an empty script.
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { generateEcdsaKeyPair, signBundle } from "../../mod.ts";
import { installNpmBuild } from "../_npm_build.ts";
import { median, quantile } from "../_stats.ts";

/** A command whose start-up is measured. */
export interface StartupCase {
  name: string;
  /** `deno` or `node`, from PATH. */
  command: "deno" | "node";
  args: string[];
  /** The folder it runs in (default: the benchmark's). */
  cwd?: string;
  /** The runtime's empty script: the other cases of the runtime are given as multiples of it. */
  baseline?: true;
  /** What must be on stdout for a run to count: a failing command is an error, never a time. */
  check?: (stdout: string) => boolean;
}

/** A case's median wall time and its ratio to its runtime's empty script. */
export interface StartupFigure {
  ms: number;
  /** Spread of the runs: the fastest and slowest of the middle half (first and third quartiles). */
  quartilesMs: [number, number];
  ratio: number;
}

const path = (relative: string) => fileURLToPath(new URL(relative, import.meta.url));

/**
 * `policy simulate` of one request against the example bundle, which a rule
 * allows; its JSON output is checked. `-w` names the folder, so the CLI reads
 * no user config; the children get no POLICY_* variable (see childEnv), which
 * would make it verify the unsigned example.
 */
const examples = path("../../examples");
const root = path("../..").replace(/\/$/, "");
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

/**
 * Prepares `dir` and returns the cases: the example bundle signed with a
 * fresh ECDSA key (for the programs that load and decide), and the npm build
 * installed from its packed tarball, with `startup/decide.mjs` beside it so
 * that it imports the package as a user's program does. With `before`, a
 * checkout of an earlier commit, its `tools/policy.ts` runs the same
 * `simulate` too, right after this tree's, in the same runs.
 */
export async function prepareStartup(dir: string, before?: string): Promise<StartupCase[]> {
  mkdirSync(dir, { recursive: true });
  const pair = await generateEcdsaKeyPair();
  const example = JSON.parse(readFileSync(join(examples, "bundle.json"), "utf8"));
  const signed = await signBundle(example, {
    algorithm: "ECDSA_SHA_256",
    key: pair.privateKey,
    keyId: "startup",
  });
  const bundle = join(dir, "bundle.json");
  const key = join(dir, "public.pem");
  writeFileSync(bundle, JSON.stringify(signed, null, 2));
  writeFileSync(key, pair.publicKey);
  const installed = installNpmBuild(dir);
  copyFileSync(path("./startup/decide.mjs"), join(dir, "decide.mjs"));
  const deno = (script: string, ...args: string[]): string[] => [
    "run",
    "--quiet",
    "--no-prompt",
    `--allow-read=${dir}`,
    path(script),
    ...args,
  ];
  /** `deno run tools/policy.ts simulate` of the checkout at `checkout`. */
  const policyTask = (checkout: string, name: string): StartupCase => ({
    name,
    command: "deno",
    args: [
      "run",
      "--quiet",
      "--no-prompt",
      "--unstable-bundle",
      `--allow-read=${checkout}`,
      `--allow-write=${checkout}/dist`,
      "--allow-env=POLICY_*",
      `${checkout}/tools/policy.ts`,
      // The checkout's own example (it may read nothing outside itself).
      ...simulateArgs.map((arg) => arg === examples ? `${checkout}/examples` : arg),
    ],
    check: simulated,
  });
  return [
    {
      name: "deno run of an empty script",
      command: "deno",
      args: ["run", "--quiet", path("./startup/empty.ts")],
      baseline: true,
    },
    {
      name: "deno run: import mod.ts, load the signed example bundle, decide once",
      command: "deno",
      args: deno("./startup/decide.ts", bundle, key),
    },
    {
      name: "deno run: the same through createLocalClient (reads with node:fs)",
      command: "deno",
      args: deno("./startup/decide_client.ts", bundle, key),
    },
    policyTask(
      root,
      "deno run tools/policy.ts simulate: cli.ts bundled (what deno task policy runs)",
    ),
    ...(before === undefined
      ? []
      : [policyTask(before.replace(/\/$/, ""), "the same, before (the --before checkout)")]),
    {
      name: "deno task policy simulate (the same, through deno task)",
      command: "deno",
      args: ["task", "--quiet", "policy", ...simulateArgs],
      cwd: root,
      check: simulated,
    },
    {
      name: "deno run cli.ts simulate: the sources (the JSR package's ./cli)",
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
    {
      name: "node of an empty script",
      command: "node",
      args: [path("./startup/empty.mjs")],
      baseline: true,
    },
    {
      name: "node: import the npm package, load the signed example bundle, decide once",
      command: "node",
      args: [join(dir, "decide.mjs"), bundle, key],
    },
    {
      name: "node: policy simulate of the npm package (same request)",
      command: "node",
      args: [join(installed, "cli.js"), ...simulateArgs],
      check: simulated,
    },
  ];
}

/**
 * The environment of every run: `PATH`, and where Deno keeps its cache
 * (`HOME`, `DENO_DIR`, `XDG_CACHE_HOME`), nothing else (`clearEnv`: the
 * `env` of `node:child_process` is added to the caller's under Deno). The caller's
 * environment can change a start-up more than the code does: on our machine
 * `NODE_EXTRA_CA_CERTS` made Node read and parse a certificate bundle at
 * every start, 30 to 40 ms (docs/performance.md, "Start-up"), and `POLICY_*`
 * variables change what `policy` does.
 */
function childEnv(): Record<string, string> {
  const names = ["PATH", "HOME", "DENO_DIR", "XDG_CACHE_HOME"];
  return Object.fromEntries(
    names.flatMap((name) => process.env[name] === undefined ? [] : [[name, process.env[name]!]]),
  );
}

/**
 * Median wall time (ms) of each case and its ratio to its runtime's empty
 * script; runs are interleaved (one of each case in turn), after one
 * warm-up run each.
 */
export function measureStartup(cases: StartupCase[], runs = 21): Map<string, StartupFigure> {
  const env = childEnv();
  const times = new Map<string, number[]>(cases.map((c) => [c.name, []]));
  for (let run = -1; run < runs; run++) {
    for (const c of cases) {
      const command = new Deno.Command(c.command, {
        args: c.args,
        env,
        clearEnv: true,
        ...(c.cwd === undefined ? {} : { cwd: c.cwd }),
      });
      const start = performance.now();
      const child = command.outputSync();
      const ms = performance.now() - start;
      const stdout = new TextDecoder().decode(child.stdout);
      if (!child.success) throw new Error(`${c.name}: ${new TextDecoder().decode(child.stderr)}`);
      if (c.check !== undefined && !passes(c.check, stdout)) {
        throw new Error(`${c.name}: unexpected output: ${stdout}`);
      }
      if (run >= 0) times.get(c.name)!.push(ms);
    }
  }
  const figures = new Map<string, StartupFigure>();
  let baseline = NaN;
  for (const c of cases) {
    const list = times.get(c.name)!;
    const ms = median(list);
    if (c.baseline) baseline = ms;
    figures.set(c.name, {
      ms,
      quartilesMs: [quantile(list, 0.25), quantile(list, 0.75)],
      ratio: ms / baseline,
    });
  }
  return figures;
}

function passes(check: (stdout: string) => boolean, stdout: string): boolean {
  try {
    return check(stdout);
  } catch {
    return false; // not the JSON document expected
  }
}
