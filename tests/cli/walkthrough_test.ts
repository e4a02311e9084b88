/**
 * docs/walkthrough.md, run exactly as written: its shell steps (the `sh`
 * blocks, every `$ …` command, the requests of the service's table) are
 * executed by bash from the root of a fresh copy of the repository (its
 * files without `.git/`, `.tmp/` or build output, as a clone has them), and
 * every output the page shows is checked against what the commands print.
 *
 * With what the README sets up and nothing else: the shell has no `deno` on
 * its `PATH` (the harness leaves out every folder that holds one, and
 * checks), only Node's `npx` and the README's own `alias deno='npx -y
 * deno@2.9.6'` line, read from README.md. `npx` finds the package in the npm
 * cache (or the registry); the harness tells it to prefer the cache.
 *
 * Only the harness adds anything: it starts the service of step 5 in the
 * background and waits until it listens, waits for the servers an `sh` block
 * starts with `&` to listen, keeps the output of background servers off the
 * pipes it reads, and stops them all at the end (each in its own process
 * group, so that `npx` and the `deno` it starts stop together). The `sh`
 * blocks that start servers and the page's block that stops them (`kill %…`)
 * run in one shell with job control, as a reader's terminal runs them, and
 * the harness checks that the stop left no process of those jobs running and
 * nothing listening on their ports.
 *
 * Needs `--allow-run` for bash, deno and curl; steps 5 and 6 also need ports
 * 8080, 8081, 8082 and 6379 of 127.0.0.1 and `redis-server`, and are
 * skipped, saying why, without them. It takes half a minute and more (a
 * fresh copy, `npx` starting Deno for every command): `deno task test:long`
 * runs it.
 */
import assert from "node:assert/strict";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { LONG, noteLong } from "../_long.ts";
import { makeTempDir } from "../temp_dir.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const PAGE = path.join(ROOT, "docs", "walkthrough.md");
const README = path.join(ROOT, "README.md");
/** What a fresh clone does not have: git's own folder, and what .gitignore keeps out. */
const NOT_IN_A_CLONE = new Set([
  ".git",
  ".tmp",
  ".test-groups",
  "npm",
  "dist",
  "node_modules",
  "__pycache__",
]);
/** The heading from which the page runs servers. */
const SERVERS_FROM = "## 5. Run the service";
/** The heading where the page stops running servers. */
const SERVERS_UNTIL = "## In CI";
/** The ports the page's servers listen on. */
const PORTS = [8080, 8081, 8082, 6379];

const runnable = ["bash", "deno", "curl"].every((command) =>
  Deno.permissions.querySync({ name: "run", command }).state === "granted"
);
if (!runnable && LONG) {
  console.log("walkthrough_test: skipped, run permission for bash, deno and curl not granted");
}
noteLong("tests/cli/walkthrough_test.ts", "docs/walkthrough.md, run as written,");

/** One step of the page. */
type Step =
  | { kind: "sh"; script: string; servers: boolean }
  | { kind: "stop"; script: string }
  | { kind: "command"; command: string; shown: string[] }
  | { kind: "service"; script: string; requests: Request[] };

/** A row of the service's table: the curl command, how many times in a row, the status. */
interface Request {
  curl: string;
  times: number;
  status: number;
}

/** The page's steps, in order. */
function steps(markdown: string): Step[] {
  const found: Step[] = [];
  const fence = /^```(\w*)[^\n]*\n([\s\S]*?)^```$/gm;
  for (const match of markdown.matchAll(fence)) {
    const [, language, body] = match;
    const servers = markdown.slice(0, match.index).includes(SERVERS_FROM) &&
      !markdown.slice(0, match.index).includes(SERVERS_UNTIL);
    if (language === "sh") {
      if (/src\/main\.ts[^&\n]*$/m.test(body!) && !body!.includes("&")) {
        const rest = markdown.slice(match.index! + match[0].length);
        found.push({ kind: "service", script: body!, requests: table(rest) });
      } else if (servers && /^kill %/m.test(body!)) {
        found.push({ kind: "stop", script: body! });
      } else {
        found.push({ kind: "sh", script: body!, servers });
      }
    } else if (language === "" && body!.startsWith("$ ")) {
      for (const segment of body!.split(/^(?=\$ )/m)) {
        const [first, ...shown] = segment.replace(/\n$/, "").split("\n");
        found.push({ kind: "command", command: first!.slice(2), shown });
      }
    }
  }
  return found;
}

/** The curl rows of the first table after a point of the page. */
function table(markdown: string): Request[] {
  const rows: Request[] = [];
  for (const line of markdown.split("\n")) {
    const row = /^\| `(curl [^`]+)`(?:, the (\d+)\w\w in a row)? *\| (\d{3}) /.exec(line);
    if (row !== null) {
      rows.push({ curl: row[1]!, times: Number(row[2] ?? 1), status: Number(row[3]) });
    } else if (rows.length > 0 && !line.startsWith("|")) {
      break;
    }
  }
  return rows;
}

/**
 * Copies the repository's files as a clone has them (symbolic links, which
 * only test fixtures have and which scoped permissions cannot create, are
 * left out).
 */
async function freshCopy(from: string, to: string, top = true): Promise<void> {
  await Deno.mkdir(to, { recursive: true });
  for await (const entry of Deno.readDir(from)) {
    if ((top && NOT_IN_A_CLONE.has(entry.name)) || entry.name === "__pycache__") continue;
    const source = path.join(from, entry.name);
    const target = path.join(to, entry.name);
    if (entry.isSymlink) continue;
    if (entry.isDirectory) await freshCopy(source, target, false);
    else await Deno.copyFile(source, target);
  }
}

/**
 * What a command prints, for comparison: the repository path and the home
 * folder written as the page writes them, and what changes with the day and
 * the second (dates, durations, the seconds left of a rate-limit window).
 */
function neutral(text: string, repo: string, home: string): string {
  return text.replaceAll(repo, "<repo>").replaceAll(home, "/home/me/.policy")
    .replace(/\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}:\d{2}(\.\d+)?Z)?/g, "<date>")
    .replace(/\(\d+ ms\)/g, "(<n> ms)")
    .replace(/;t=\d+/g, ";t=<n>")
    .replace(/^retry-after: \d+$/gm, "retry-after: <n>")
    .replace(/Retry in \d+ s\./g, "Retry in <n> s.")
    .replace(/\r$/gm, "")
    .replace(/[ \t]+$/gm, "");
}

/**
 * Checks that `actual` shows the `shown` lines: in order, consecutive, from
 * the first line to the last, except where `…` stands for lines left out.
 */
function assertShows(actual: string[], shown: string[], command: string): void {
  let at = 0;
  let gap = false;
  for (const line of shown) {
    if (line === "…") {
      gap = true;
      continue;
    }
    let found = -1;
    for (let i = at; i < (gap ? actual.length : Math.min(at + 1, actual.length)); i++) {
      if (actual[i] === line) {
        found = i;
        break;
      }
    }
    assert.ok(
      found >= 0,
      `$ ${command}\nthe page shows:\n  ${line}\nwhere the command printed (from line ${
        at + 1
      }):\n${actual.slice(at, at + 8).map((l) => `  ${l}`).join("\n")}`,
    );
    at = found + 1;
    gap = false;
  }
  if (shown.length > 0 && !gap) {
    assert.equal(
      at,
      actual.length,
      `$ ${command}: printed more than the page shows:\n${actual.slice(at).join("\n")}`,
    );
  }
}

/** Why the page's servers cannot run here, or null when they can. */
async function serversUnavailable(): Promise<string | null> {
  for (const port of PORTS) {
    try {
      Deno.listen({ hostname: "127.0.0.1", port }).close();
    } catch {
      return `port ${port} of 127.0.0.1 is taken`;
    }
  }
  try {
    await new Deno.Command("redis-server", { args: ["--version"], stdout: "null" }).output();
  } catch (error) {
    return `redis-server cannot be run here (${(error as Error).name})`;
  }
  return null;
}

/** The README's `alias deno=…` line: the one way the docs run Deno without installing it. */
async function denoAlias(): Promise<string> {
  const line = (await Deno.readTextFile(README)).split("\n").find((l) =>
    l.startsWith("alias deno=")
  );
  assert.ok(line, "README.md sets up `alias deno=…`");
  assert.match(line, /^alias deno='npx -y deno@2\.9\.6'/);
  return line;
}

/**
 * A `PATH` with Node's `npx` and `node` but no `deno`: the folders of the
 * test's own `PATH` that have no `deno` in them, after a folder of links to
 * `npx` and `node` (which may share a folder with `deno`). Found by bash,
 * which reads the environment and the file system itself.
 */
async function pathWithoutDeno(bin: string): Promise<string> {
  const output = await new Deno.Command("bash", {
    args: [
      "-c",
      [
        "set -e",
        `ln -s "$(command -v npx)" '${bin}/npx'`,
        `ln -s "$(command -v node)" '${bin}/node'`,
        "kept=''",
        'IFS=: read -ra dirs <<< "$PATH"',
        'for d in "${dirs[@]}"; do [ -e "$d/deno" ] || kept="$kept:$d"; done',
        `printf '%s' '${bin}'"$kept"`,
      ].join("\n"),
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(output.code, 0, new TextDecoder().decode(output.stderr));
  return new TextDecoder().decode(output.stdout);
}

/** Waits until something listens on each port (a server an `sh` block started with `&`). */
async function listening(ports: number[]): Promise<void> {
  // Through npx, a server's first start compiles it: give it time.
  const deadline = Date.now() + 180_000;
  for (const port of ports) {
    for (;;) {
      try {
        (await Deno.connect({ hostname: "127.0.0.1", port })).close();
        break;
      } catch {
        assert.ok(Date.now() < deadline, `nothing listens on port ${port}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  }
}

Deno.test({
  name: "docs/walkthrough.md runs as written from a fresh clone, and prints what it shows",
  ignore: !runnable || !LONG,
  fn: async () => {
    const { dir: scratch } = await makeTempDir("walkthrough-");
    const repo = path.join(scratch, "repo");
    const home = path.join(scratch, "home");
    const jobs = path.join(scratch, "jobs");
    const serverLog = path.join(scratch, "servers.log");
    let service: { child: Deno.ChildProcess; pid: string; drained: Promise<unknown> } | null = null;
    let jobShell: JobShell | null = null;
    /** The ports of the servers started as jobs, and not stopped yet. */
    let jobPorts: number[] = [];
    const aliases: string[] = [];
    // As a terminal shows it: curl draws no progress meter when its output is one.
    const curlHome = path.join(scratch, "curl");
    const bin = path.join(scratch, "bin");
    await Deno.mkdir(bin, { recursive: true });
    aliases.push(await denoAlias());
    const env = {
      PATH: await pathWithoutDeno(bin),
      // npx finds deno@2.9.6 in the npm cache when it is there, asking the registry otherwise.
      npm_config_prefer_offline: "true",
      npm_config_update_notifier: "false",
      POLICY_HOME: home,
      NO_COLOR: "1",
      CURL_HOME: curlHome,
      ...Object.fromEntries(
        [
          "POLICY_WORKING_FOLDER",
          "POLICY_PUBLIC_KEY",
          "POLICY_PUBLIC_KEY_PATH",
          "POLICY_HMAC_SECRET",
          "POLICY_LICENSE",
          "POLICY_LICENSE_FILE",
          "POLICY_LICENSE_PUBLIC_KEY",
          "POLICY_API_URL",
        ].map((name) => [name, ""]),
      ),
    };
    const bash = (script: string) =>
      new Deno.Command("bash", {
        args: ["-c", ["shopt -s expand_aliases", ...aliases, script].join("\n")],
        cwd: repo,
        env,
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
      });
    const run = async (script: string) => {
      const output = await bash(`${script} 2>&1`).output();
      return { code: output.code, text: new TextDecoder().decode(output.stdout) };
    };
    try {
      await freshCopy(ROOT, repo);
      // The shell has the README's alias and no deno of its own.
      const which = await run("type -t deno; type -P deno || echo 'no deno on PATH'");
      assert.equal(which.text, "alias\nno deno on PATH\n", which.text);
      await Deno.mkdir(jobs);
      await Deno.mkdir(curlHome);
      await Deno.writeTextFile(path.join(curlHome, ".curlrc"), "no-progress-meter\n");
      const unavailable = await serversUnavailable();
      if (unavailable !== null) {
        console.log(`walkthrough_test: steps 5 and 6 (the service) not run: ${unavailable}`);
      }
      const markdown = await Deno.readTextFile(PAGE);
      let commands = 0;
      let inServers = false;
      for (const step of steps(markdown)) {
        if (step.kind === "service") {
          inServers = true;
          if (unavailable !== null) continue;
          service = await serve(bash, step.script, jobs);
          await requests(run, step.requests);
        } else if (step.kind === "stop") {
          if (unavailable !== null) continue;
          assert.ok(jobShell !== null, `${step.script}: the page stops jobs it never started`);
          await jobShell.run(step.script);
          await stopped(jobPorts, await Deno.readTextFile(path.join(jobs, "pids")));
          jobPorts = [];
        } else if (step.kind === "sh") {
          if (step.servers && unavailable !== null) continue;
          if (step.script.includes("&")) {
            // Background servers write to a log, not to the pipes read here; each is a job of
            // its own process group (set -m) of one shell, whose ids are kept.
            jobShell ??= new JobShell(env, repo, aliases, serverLog, jobs);
            await jobShell.run(`${step.script}\njobs -p >>'${jobs}/pids'`);
            const ports = [...step.script.matchAll(/(?:PORT=|--port )(\d+)/g)].map((m) =>
              Number(m[1])
            );
            jobPorts.push(...ports);
            await listening(ports);
          } else {
            const result = await run(`set -e\n${step.script}`);
            assert.equal(result.code, 0, `${step.script}\n${result.text}`);
          }
          aliases.push(...step.script.split("\n").filter((l) => l.startsWith("alias ")));
        } else {
          if (inServers && step.command.startsWith("curl") && unavailable !== null) continue;
          commands++;
          const result = await run(step.command);
          const fails = step.shown.some((l) => l.startsWith("error: "));
          assert.equal(
            result.code !== 0,
            fails,
            `$ ${step.command} exited ${result.code}:\n${result.text}`,
          );
          const actual = neutral(result.text, repo, home).replace(/\n$/, "").split("\n");
          assertShows(
            actual,
            step.shown.map((l) => neutral(l, "<repo>", "/home/me/.policy")),
            step.command,
          );
        }
      }
      assert.ok(commands >= 15, `ran ${commands} of the page's commands`);
      assert.deepEqual(
        jobPorts,
        [],
        "the page starts servers as jobs and never says how to stop them",
      );
    } finally {
      await jobShell?.close();
      // Each server's whole process group: npx, and the deno it started.
      const pids = await Deno.readTextFile(path.join(jobs, "pids")).catch(() => "");
      const groups = pids.trim().split(/\s+/).filter((p) => p !== "").map((p) => `-${p}`);
      if (groups.length > 0) await run(`kill -- ${groups.join(" ")} || true`);
      if (service !== null) {
        await run(`kill -- -${service.pid} || true`);
        await service.child.status;
        await service.drained;
      }
      await Deno.remove(scratch, { recursive: true });
    }
  },
});

/**
 * One bash, reading the page's blocks on its standard input, with job
 * control (`set -m`) as an interactive shell has it: the servers a block
 * starts with `&` stay its jobs, so that a later block can stop them as a
 * reader would (`kill %1`). Each block runs under `set -e`; a failing command
 * ends the shell, and the block with it.
 */
class JobShell {
  readonly #child: Deno.ChildProcess;
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  readonly #dir: string;
  #ended = false;
  #blocks = 0;

  constructor(
    env: Record<string, string>,
    cwd: string,
    aliases: readonly string[],
    log: string,
    dir: string,
  ) {
    this.#dir = dir;
    this.#child = new Deno.Command("bash", {
      args: ["-s"],
      cwd,
      env,
      stdin: "piped",
      stdout: "null",
      stderr: "null",
    }).spawn();
    this.#child.status.then(() => this.#ended = true);
    this.#writer = this.#child.stdin.getWriter();
    this.#write(["shopt -s expand_aliases", ...aliases, `exec >>'${log}' 2>&1`, "set -m", ""])
      .catch(() => {}); // a shell that ended fails the next run()
  }

  #write(lines: string[]): Promise<void> {
    return this.#writer.write(new TextEncoder().encode(lines.join("\n")));
  }

  /** Runs a block; resolves when it has run, fails when the shell ended instead. */
  async run(script: string): Promise<void> {
    const done = path.join(this.#dir, `block-${++this.#blocks}.done`);
    await this.#write(["set -e", script, "set +e", `: >'${done}'`, ""]);
    const deadline = Date.now() + 180_000;
    for (;;) {
      try {
        await Deno.stat(done);
        return;
      } catch {
        assert.ok(!this.#ended, `the shell ended in:\n${script}`);
        assert.ok(Date.now() < deadline, `this block did not end:\n${script}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
  }

  async close(): Promise<void> {
    await this.#writer.close().catch(() => {});
    await this.#child.status;
  }
}

/**
 * After the page's stop block: nothing listens on the jobs' ports any more,
 * and no process of their process groups is left (`npx`, and the `deno` each
 * started).
 */
async function stopped(ports: number[], pids: string): Promise<void> {
  const groups = pids.trim().split(/\s+/).filter((p) => p !== "");
  assert.ok(groups.length > 0, "no job was started");
  const deadline = Date.now() + 30_000;
  for (;;) {
    const left: string[] = [];
    for (const port of ports) {
      try {
        (await Deno.connect({ hostname: "127.0.0.1", port })).close();
        left.push(`port ${port} still listening`);
      } catch {
        // Refused: stopped.
      }
    }
    for (const group of groups) {
      const probe = await new Deno.Command("bash", {
        args: ["-c", `kill -0 -- -${group} 2>/dev/null`],
      }).output();
      if (probe.code === 0) left.push(`process group ${group} still has processes`);
    }
    if (left.length === 0) return;
    assert.ok(Date.now() < deadline, `the page's stop left servers running: ${left.join(", ")}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * Starts the page's service block in the background: the line that runs the
 * server is a job of its own process group (`set -m`), whose id the shell
 * writes down and then waits for, so that stopping that group stops the
 * server and `npx` with it. Waits until the server says it listens.
 */
async function serve(
  bash: (script: string) => Deno.Command,
  script: string,
  jobs: string,
): Promise<{ child: Deno.ChildProcess; pid: string; drained: Promise<unknown> }> {
  const pidFile = path.join(jobs, "service.pid");
  const lines = script.trimEnd().split("\n").map((line) =>
    line.includes("src/main.ts") ? `${line} &\necho $! >'${pidFile}'\nwait` : line
  );
  // Both streams on stdout, where Deno.serve says it listens (on stderr).
  const child = bash(["exec 2>&1", "set -m", ...lines].join("\n")).spawn();
  child.stderr.cancel().catch(() => {});
  const decoded = child.stdout.pipeThrough(new TextDecoderStream());
  const reader = decoded.getReader();
  let seen = "";
  // Through npx, the first start compiles the service: give it time.
  const deadline = setTimeout(() => child.kill("SIGKILL"), 180_000);
  while (!seen.includes("Listening on")) {
    const { value, done } = await reader.read();
    assert.ok(!done, `the service ended before listening:\n${seen}`);
    seen += value;
  }
  clearTimeout(deadline);
  reader.releaseLock();
  // Keep draining what it prints, so that its writes never block.
  const drained = decoded.pipeTo(new WritableStream()).catch(() => {});
  const pid = (await Deno.readTextFile(pidFile)).trim();
  assert.match(pid, /^\d+$/);
  return { child, pid, drained };
}

/** The service's table: each request, as many times as the row says, gives the status shown. */
async function requests(
  run: (script: string) => Promise<{ code: number; text: string }>,
  rows: Request[],
): Promise<void> {
  assert.ok(rows.length >= 6, `the page's table has ${rows.length} requests`);
  for (const row of rows) {
    let status = "";
    for (let i = 0; i < row.times; i++) {
      const result = await run(`${row.curl} -s -o /dev/null -w '%{http_code}'`);
      assert.equal(result.code, 0, result.text);
      status = result.text;
    }
    assert.equal(Number(status), row.status, row.curl);
  }
}
