// deno task bench:parse-json [--rounds 5] [--no-write]
//
// What reading JSON exactly as written costs (docs/performance.md "JSON
// exactly as written"): `parseJson` against `JSON.parse` on the 8 MiB
// benchmark bundle as it is (no backslash: one search), with escaped quotes
// in every rule's description (backslashes in values: a scan for escaped
// keys), and with one escaped key (the strict parser reads it all). Writes
// the block between the `parse-json` markers of docs/performance.md.
import { parseJson } from "../../mod.ts";
import { makeSignedBundle } from "../load/signed_bundle.ts";
import { caseRatio, caseSpread, measureRounds } from "../_rounds.ts";
import { formatRatioSpread } from "../_stats.ts";
import { markdownTable } from "../_report.ts";
import { startInProcessRun } from "../_in_process_run.ts";

const run = startInProcessRun();

const { bytes } = await makeSignedBundle();
const plain = new TextDecoder().decode(bytes);
const documents = [
  ["the benchmark bundle (no backslash)", plain],
  [
    'a `\\"quoted\\"` description in every rule (backslashes in values)',
    plain.replaceAll(
      '"status":"active"',
      '"description":"\\"quoted\\" \\\\ text","status":"active"',
    ),
  ],
  ["one escaped key (the strict parser reads it all)", '{"\\u0065tag":"x",' + plain.slice(1)],
] as const;

const cases = documents.flatMap(([name, text]) => [
  { name: `JSON.parse ${name}`, fn: () => JSON.parse(text) },
  { name: `parseJson ${name}`, fn: () => parseJson(text) },
]);
const figures = await measureRounds(cases, { rounds: run.rounds, measureMs: 1_000, minBatches: 3 });
const ms = (name: string) => caseSpread(figures, name).median.toFixed(0);
const table = markdownTable([
  [
    `Document (${(bytes.byteLength / 2 ** 20).toFixed(0)} MiB)`,
    "`JSON.parse`, ms",
    "`parseJson`, ms",
    "×",
  ],
  ...documents.map(([name]) => [
    name,
    ms(`JSON.parse ${name}`),
    ms(`parseJson ${name}`),
    formatRatioSpread(caseRatio(figures, `parseJson ${name}`, `JSON.parse ${name}`)),
  ]),
]);
run.publish("parse-json", table, "its timed calls");
