// A grouped bar chart of ns per decision on a log scale, as SVG text: one group
// per scenario size, one bar per engine, with the value over each bar.
import type { PeerResult } from "./report.ts";

const COLOURS = ["#7f7f7f", "#1f77b4", "#2ca02c", "#ff7f0e", "#9467bd", "#d62728", "#8c564b"];
const WIDTH = 860;
const HEIGHT = 420;
const LEFT = 70;
const RIGHT = 20;
const TOP = 40;
const BOTTOM = 120; // room for the size labels and the legend

export function renderChart(
  results: PeerResult[],
  labels: Map<string, string>,
  sizes: number[],
  title: string,
): string {
  const engines = [...labels.keys()];
  const measured = results.filter((r) => r.status === "ok").map((r) => r.nsPerDecision!);
  const low = Math.floor(Math.log10(Math.min(...measured, 10)));
  const high = Math.ceil(Math.log10(Math.max(...measured, 100)));
  const plotHeight = HEIGHT - TOP - BOTTOM;
  const y = (ns: number) => TOP + plotHeight * (1 - (Math.log10(ns) - low) / (high - low));
  const groupWidth = (WIDTH - LEFT - RIGHT) / sizes.length;
  const barWidth = (groupWidth * 0.8) / engines.length;
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" ` +
    `viewBox="0 0 ${WIDTH} ${HEIGHT}" font-family="sans-serif" font-size="11">`,
    `<rect width="${WIDTH}" height="${HEIGHT}" fill="white"/>`,
    `<text x="${WIDTH / 2}" y="20" text-anchor="middle" font-size="14">${escape(title)}</text>`,
  ];
  for (let decade = low; decade <= high; decade++) {
    const at = y(10 ** decade).toFixed(1);
    out.push(
      `<line x1="${LEFT}" x2="${WIDTH - RIGHT}" y1="${at}" y2="${at}" stroke="#ddd"/>`,
      `<text x="${LEFT - 6}" y="${at}" text-anchor="end" dominant-baseline="middle">` +
        `${formatNs(10 ** decade)}</text>`,
    );
  }
  sizes.forEach((n, g) => {
    const groupLeft = LEFT + g * groupWidth + groupWidth * 0.1;
    engines.forEach((engine, e) => {
      const x = groupLeft + e * barWidth;
      const r = results.find((r) => r.engine === engine && r.targets === n);
      if (r === undefined) return;
      const mid = (x + barWidth / 2).toFixed(1);
      if (r.status !== "ok") {
        out.push(
          `<text x="${mid}" y="${TOP + plotHeight - 4}" text-anchor="start" ` +
            `transform="rotate(-90 ${mid} ${TOP + plotHeight - 4})" fill="#999">${r.status}</text>`,
        );
        return;
      }
      const top = y(r.nsPerDecision!);
      out.push(
        `<rect x="${x.toFixed(1)}" y="${top.toFixed(1)}" width="${(barWidth - 2).toFixed(1)}" ` +
          `height="${(TOP + plotHeight - top).toFixed(1)}" fill="${COLOURS[e % COLOURS.length]}"/>`,
        `<text x="${mid}" y="${(top - 3).toFixed(1)}" text-anchor="middle" font-size="9">` +
          `${formatNs(r.nsPerDecision!)}</text>`,
      );
    });
    out.push(
      `<text x="${(groupLeft + groupWidth * 0.4).toFixed(1)}" y="${TOP + plotHeight + 16}" ` +
        `text-anchor="middle" font-size="12">${n.toLocaleString("en-US")} targets</text>`,
    );
  });
  engines.forEach((engine, e) => {
    const x = LEFT + (e % 2) * 390;
    const row = TOP + plotHeight + 34 + Math.floor(e / 2) * 18;
    out.push(
      `<rect x="${x}" y="${row}" width="12" height="12" fill="${COLOURS[e % COLOURS.length]}"/>`,
      `<text x="${x + 16}" y="${row + 10}">${escape(labels.get(engine)!)}</text>`,
    );
  });
  out.push("</svg>");
  return out.join("\n") + "\n";
}

function formatNs(ns: number): string {
  if (ns >= 1e6) return `${+(ns / 1e6).toPrecision(3)} ms`;
  if (ns >= 1e3) return `${+(ns / 1e3).toPrecision(3)} µs`;
  return `${+ns.toPrecision(3)} ns`;
}

function escape(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");
}
