// The peer benchmark's results, and its peer table in Markdown.
import type { Measurement } from "./_measure.ts";
import { formatCount, formatMs, markdownTable } from "../_report.ts";
import { formatRatioSpread, type Spread } from "../_stats.ts";

/** One engine at one size: measured in every round, skipped (with the reason) or failed. */
export interface PeerResult {
  engine: string;
  scenario: string;
  targets: number;
  status: "ok" | "skipped" | "failed";
  /** Why it was skipped, or what happened when it failed. */
  detail?: string;
  /** Median over the rounds of each round's ns per decision: the figure of the tables. */
  nsPerDecision?: number;
  /** That figure's median and spread over the rounds. */
  nsSpread?: Spread;
  /** Median load time over the rounds. */
  loadMs?: number;
  opsPerSecond?: number;
  /** Each round's measurement, in round order. */
  rounds?: Measurement[];
  /** ns per decision over our engine's at the same scenario and size, round by round. */
  ratioToOurs?: Spread;
}

/** Each round's ns per decision of a measured result, in round order. */
export function nsRounds(result: PeerResult): number[] {
  return (result.rounds ?? []).map((m) => m.nsPerDecision);
}

/** The sentence above every table of the peer benchmark: how its figures are taken. */
export function methodLine(rounds: number): string {
  return `${rounds} interleaved round${rounds === 1 ? "" : "s"}, every engine in a fresh ` +
    "process in each; ns per decision is the median over the rounds of each round's fast " +
    "decile of 2 ms batches, ratios are taken round by round (median, with the lowest and " +
    "highest round in brackets).";
}

/** A spread of ns: `118–131`. */
export function formatNsRange(s: Spread): string {
  return s.rounds === 1 ? "" : `${formatCount(s.min)}–${formatCount(s.max)}`;
}

/** Rows grouped by size, engines in the order given; why pairs were skipped or failed, after. */
export function renderTable(results: PeerResult[], labels: Map<string, string>): string {
  const rows = [
    ["targets", "engine", "load", "ns / decision", "rounds, ns", "decisions / s", "× ours"],
  ];
  const notes: string[] = [];
  for (const r of results) {
    const n = r.targets.toLocaleString("en-US");
    const label = labels.get(r.engine) ?? r.engine;
    if (r.status !== "ok") {
      rows.push([n, label, r.status, "", "", "", ""]);
      notes.push(`- ${label} at ${n} targets ${r.status}: ${r.detail}`);
      continue;
    }
    rows.push([
      n,
      label,
      formatMs(r.loadMs!),
      formatCount(r.nsPerDecision!),
      formatNsRange(r.nsSpread!),
      formatCount(r.opsPerSecond!),
      r.ratioToOurs === undefined ? "" : formatRatioSpread(r.ratioToOurs),
    ]);
  }
  return [markdownTable(rows, [1]), ...(notes.length > 0 ? ["", ...notes] : [])].join("\n");
}
