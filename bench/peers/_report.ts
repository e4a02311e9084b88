// The peer benchmark's results as a Markdown table.
import type { Measurement } from "./_measure.ts";

/** One engine at one size: measured, skipped (with the reason) or failed (with what happened). */
export type PeerResult =
  & Partial<Measurement>
  & { engine: string; scenario: string; targets: number; status: "ok" | "skipped" | "failed" }
  & { detail?: string; ratioToOurs?: number; loadRatioToOurs?: number; rounds?: number };

/** Rows grouped by size, engines in the order given; why pairs were skipped or failed, after. */
export function renderTable(results: PeerResult[], labels: Map<string, string>): string {
  const rows = [
    "| targets | engine | load | ns / decision | decisions / s | × ours |",
    "| ------: | ------ | ---: | ------------: | ------------: | -----: |",
  ];
  const notes: string[] = [];
  for (const r of results) {
    const n = r.targets.toLocaleString("en-US");
    const label = labels.get(r.engine) ?? r.engine;
    if (r.status !== "ok") {
      rows.push(`| ${n} | ${label} | ${r.status} | | | |`);
      notes.push(`- ${label} at ${n} targets ${r.status}: ${r.detail}`);
      continue;
    }
    rows.push(
      `| ${n} | ${label} | ${formatMs(r.loadMs!)} | ${formatCount(r.nsPerDecision!)} | ` +
        `${formatCount(r.opsPerSecond!)} | ${
          r.ratioToOurs === undefined ? "" : formatRatio(r.ratioToOurs)
        } |`,
    );
  }
  return [...rows, ...(notes.length > 0 ? ["", ...notes] : [])].join("\n");
}

/** Replaces the text between `<!-- name -->` and `<!-- /name -->`; unchanged when absent. */
export function replaceBetweenMarkers(text: string, name: string, body: string): string {
  const open = `<!-- ${name} -->`;
  const close = `<!-- /${name} -->`;
  const start = text.indexOf(open);
  const end = text.indexOf(close);
  if (start < 0 || end < start) return text;
  return text.slice(0, start + open.length) + "\n\n" + body + "\n\n" + text.slice(end);
}

export function formatMs(ms: number): string {
  if (ms >= 10_000) return `${(ms / 1000).toFixed(0)} s`;
  if (ms >= 1_000) return `${(ms / 1000).toFixed(1)} s`;
  return ms >= 10 ? `${ms.toFixed(0)} ms` : `${ms.toFixed(2)} ms`;
}

export function formatCount(value: number): string {
  return Math.round(value).toLocaleString("en-US");
}

export function formatRatio(ratio: number): string {
  return ratio >= 10 ? `${ratio.toFixed(0)}×` : `${ratio.toFixed(2)}×`;
}
