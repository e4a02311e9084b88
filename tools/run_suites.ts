/**
 * Runs deno tasks side by side and reports them one after the other: the
 * quick suite (`deno task test`) is `test:deno` and `test:node` at once.
 * Neither keeps both cores busy on its own (the Deno tests wait on child
 * processes, servers and files; the Node half on `npm install`, Chromium
 * and its own children), so together they finish well before one after the
 * other would.
 *
 * The first task's output is printed as it comes. The others' is kept until
 * the tasks before them end, then printed under a heading, and from then on
 * as it comes, so each report reads as if the task had run alone. Every task
 * runs to its end whatever the others do; the last line says how each ended
 * and how long it took, and the exit code is 0 only when every task passed.
 *
 * Usage: `deno run --allow-run=deno tools/run_suites.ts test:deno test:node`.
 * The tasks run with `deno` from PATH: under `npx deno`, npx puts its own
 * `deno` there for the commands it starts.
 *
 * @module
 */

/** How one task ended. */
interface Ended {
  task: string;
  code: number;
  ms: number;
}

/** Minutes and seconds, as deno's test summary prints them: `1m05s`, `42s`. */
export function formatDuration(ms: number): string {
  const seconds = Math.round(ms / 1000);
  const minutes = Math.floor(seconds / 60);
  return minutes > 0 ? `${minutes}m${String(seconds % 60).padStart(2, "0")}s` : `${seconds}s`;
}

/**
 * Output kept while another task prints, then passed through: `write`
 * takes bytes in the order they come from the task's stdout and stderr.
 */
class HeldOutput {
  #chunks: Uint8Array[] = [];
  #live = false;

  write(chunk: Uint8Array): Promise<void> {
    if (this.#live) return writeAll(chunk);
    this.#chunks.push(chunk);
    return Promise.resolve();
  }

  /** Prints what was kept and everything that comes later at once. */
  async release(): Promise<void> {
    this.#live = true;
    const chunks = this.#chunks;
    this.#chunks = [];
    for (const chunk of chunks) await writeAll(chunk);
  }
}

async function writeAll(chunk: Uint8Array): Promise<void> {
  let written = 0;
  while (written < chunk.length) written += await Deno.stdout.write(chunk.subarray(written));
}

async function pump(stream: ReadableStream<Uint8Array>, output: HeldOutput): Promise<void> {
  for await (const chunk of stream) await output.write(chunk);
}

/** Starts `deno task <task>`; the first prints as it comes, the others into `output`. */
function start(task: string, output: HeldOutput | null): Promise<Ended> {
  const started = performance.now();
  const child = new Deno.Command("deno", {
    args: ["task", task],
    stdin: "null",
    stdout: output === null ? "inherit" : "piped",
    stderr: output === null ? "inherit" : "piped",
  }).spawn();
  const pumped = output === null
    ? Promise.resolve()
    : Promise.all([pump(child.stdout, output), pump(child.stderr, output)]);
  return Promise.all([child.status, pumped]).then(([status]) => ({
    task,
    code: status.code,
    ms: performance.now() - started,
  }));
}

async function main(tasks: string[]): Promise<number> {
  if (tasks.length === 0 || tasks.some((task) => !/^[\w:-]+$/.test(task))) {
    console.error("usage: deno run --allow-run=deno tools/run_suites.ts <task> [<task>...]");
    return 2;
  }
  const outputs = tasks.map((_, i) => i === 0 ? null : new HeldOutput());
  const runs = tasks.map((task, i) => start(task, outputs[i]!));
  const ended: Ended[] = [];
  for (const [i, run] of runs.entries()) {
    const output = outputs[i];
    if (output) {
      await writeAll(new TextEncoder().encode(`\n── deno task ${tasks[i]} (run alongside) ──\n`));
      await output.release();
    }
    ended.push(await run);
  }
  const failed = ended.filter((e) => e.code !== 0);
  const summary = ended.map((e) =>
    `${e.task} ${e.code === 0 ? "passed" : `failed (exit ${e.code})`} in ${formatDuration(e.ms)}`
  ).join(", ");
  console.log(`\n${failed.length === 0 ? "ok" : "FAILED"}: ${summary}`);
  return failed.length === 0 ? 0 : 1;
}

if (import.meta.main) Deno.exit(await main(Deno.args));
