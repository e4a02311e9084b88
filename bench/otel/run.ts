// deno task bench:otel [--rounds 5] [--no-write]
//
// What `telemetry` costs `evaluate` (docs/observability.md "Cost",
// docs/performance.md "Telemetry"): a client's evaluate without it, against
// the same with createTelemetry on the real metrics SDK (the aim: at most
// 1.5×), on no SDK (the API's no-op), with a rule id per series, and with
// 1 % of the evaluations traced through the tracing SDK; and the first two
// again on a 10-target bundle. Each case runs in a fresh process
// (bench/otel/_child.ts) in every round, the order turning by one each
// round: in one process, the clients' shared code would be shaped by every
// case at once, which no service sees. Writes the block between the `otel`
// markers of docs/performance.md.
import { fileURLToPath } from "node:url";
import { CASES } from "./_child.ts";
import type { RoundFigures } from "../_rounds.ts";
import { caseRatio, caseSpread } from "../_rounds.ts";
import { formatRatioSpread } from "../_stats.ts";
import { markdownTable } from "../_report.ts";
import { startInProcessRun } from "../_in_process_run.ts";

const run = startInProcessRun("interleaved rounds, each case in a fresh process in every round");
const rounds = run.rounds;

/** Each case's row: its label, and the case it is compared with. */
const ROWS: [string, string, string | null][] = [
  ["plain", "client, no `telemetry`", null],
  ["sdk", "client, `telemetry` on the metrics SDK", "plain"],
  ["noop", "client, `telemetry` without an SDK (the API's no-op)", "plain"],
  ["rule-ids", "client, `telemetry`, `ruleIdAttribute: true`", "plain"],
  ["traced", "client, `telemetry`, `evaluateSampleRate: 0.01` (tracing SDK)", "plain"],
  ["small-plain", "10 targets: client, no `telemetry`", null],
  ["small-sdk", "10 targets: client, `telemetry` on the metrics SDK", "small-plain"],
];
const names = ROWS.map(([name]) => name);
for (const name of names) if (!(name in CASES)) throw new Error(`no case ${name}`);

const child = fileURLToPath(new URL("./_child.ts", import.meta.url));
const figures: RoundFigures = new Map(names.map((name) => [name, []]));
for (let round = 0; round < rounds; round++) {
  const turn = round % names.length;
  for (const name of [...names.slice(turn), ...names.slice(0, turn)]) {
    const { code, stdout, stderr } = await new Deno.Command("deno", {
      args: ["run", "--allow-read=.", child, name],
      stdout: "piped",
      stderr: "piped",
    }).output();
    const text = new TextDecoder().decode(stdout);
    if (code !== 0) {
      throw new Error(`bench:otel ${name} failed:\n${text}${new TextDecoder().decode(stderr)}`);
    }
    figures.get(name)!.push(JSON.parse(text.trim().split("\n").pop()!).msPerCall);
  }
  console.error(`round ${round + 1} of ${rounds}`);
}

const table = markdownTable([
  ["`evaluate`, 1,000 targets", "ns per call", "× without telemetry"],
  ...ROWS.map(([name, label, base]) => [
    label,
    (caseSpread(figures, name).median * 1e6).toFixed(0),
    base === null ? "1×" : formatRatioSpread(caseRatio(figures, name, base)),
  ]),
]);
run.publish("otel", table, "2 ms batches");
