// What the in-process benchmarks (bench:parse-json, bench:decision-log, bench:openfeature,
// bench:change-safety) and bench:otel (a fresh process per case) share: their flags (`--rounds N`,
// `--no-write`), the run's record, and the block they print and write into docs/performance.md
// with its caption.
import { parseArgs } from "node:util";
import { fileURLToPath } from "node:url";
import { runCaption, startRun, writeDocBlock } from "./_report.ts";

/** One in-process benchmark run, started by {@link startInProcessRun}. */
export interface InProcessRun {
  /** Interleaved rounds (`--rounds`, 5 by default). */
  readonly rounds: number;
  /**
   * Prints `table` under its caption and, unless `--no-write`, writes both into the block
   * `marker` of docs/performance.md. `figure` says what each round's figure is the fast decile
   * of ("its timed calls", "2 ms batches"); `ratios` names the ratio column(s).
   */
  publish(marker: string, table: string, figure: string, ratios?: "ratio" | "ratios"): void;
}

/**
 * Reads the flags (`Deno.args`) and starts recording the run; `rounds` says
 * in the caption how the rounds ran (`how`).
 */
export function startInProcessRun(how = "interleaved rounds in one process"): InProcessRun {
  const { values: flags } = parseArgs({
    args: Deno.args,
    options: { rounds: { type: "string", default: "5" }, "no-write": { type: "boolean" } },
  });
  const rounds = Number(flags.rounds);
  if (!Number.isSafeInteger(rounds) || rounds < 1) {
    throw new Error(`--rounds must be a whole number of at least 1, not ${flags.rounds}`);
  }
  const finishRun = startRun();
  return {
    rounds,
    publish(marker, table, figure, ratios = "ratio") {
      const block = `${rounds} ${how}; each round's figure is the fast ` +
        `decile of ${figure}; medians, and for the ${ratios} (taken round by round) the lowest ` +
        `and highest round. ${runCaption(finishRun())}\n\n${table}`;
      console.log(block);
      if (!flags["no-write"]) {
        writeDocBlock(fileURLToPath(new URL("..", import.meta.url)), marker, block);
      }
    },
  };
}
