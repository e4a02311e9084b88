// What every benchmark's report shares, runtime-neutral: the blocks of
// docs/performance.md between HTML comment markers (each written by the run
// that measures it, so that no table is copied by hand), number formats, and
// the line saying when, where and under what load a block was measured.
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import { join } from "node:path";
import process from "node:process";

/** Replaces the text between `<!-- name -->` and `<!-- /name -->`; unchanged when absent. */
export function replaceBetweenMarkers(text: string, name: string, body: string): string {
  const open = `<!-- ${name} -->`;
  const close = `<!-- /${name} -->`;
  const start = text.indexOf(open);
  const end = text.indexOf(close);
  if (start < 0 || end < start) return text;
  return text.slice(0, start + open.length) + "\n\n" + body + "\n\n" + text.slice(end);
}

/** The text between `<!-- name -->` and `<!-- /name -->`, trimmed; undefined when absent. */
export function betweenMarkers(text: string, name: string): string | undefined {
  const open = `<!-- ${name} -->`;
  const start = text.indexOf(open);
  const end = text.indexOf(`<!-- /${name} -->`);
  return start < 0 || end < start ? undefined : text.slice(start + open.length, end).trim();
}

export function formatMs(ms: number): string {
  if (ms >= 10_000) return `${(ms / 1000).toFixed(0)} s`;
  if (ms >= 1_000) return `${(ms / 1000).toFixed(1)} s`;
  return ms >= 10 ? `${ms.toFixed(0)} ms` : `${ms.toFixed(2)} ms`;
}

export function formatCount(value: number): string {
  return Math.round(value).toLocaleString("en-US");
}

/** When, where and under what load a run measured. */
export interface RunInfo {
  date: string;
  runtime: string;
  cpu: string;
  cores: number;
  /** The 1-minute load average at the start and the end of the run (0 where unknown). */
  loadAverage: [number, number];
}

const isDeno = (globalThis as { Deno?: unknown }).Deno !== undefined;

/** The 1-minute load average (needs `--allow-sys=loadavg` under Deno); 0 on Windows. */
export function loadAverage(): number {
  return os.loadavg()[0] ?? 0;
}

/** Starts recording a run: call the returned function at its end. */
export function startRun(): () => RunInfo {
  const start = loadAverage();
  const versions = process.versions as Record<string, string | undefined>;
  return () => ({
    date: new Date().toISOString(),
    runtime: isDeno ? `Deno ${versions.deno}` : `Node ${process.version.slice(1)}`,
    cpu: os.cpus()[0]?.model?.trim() ?? "?",
    cores: os.cpus().length,
    loadAverage: [start, loadAverage()],
  });
}

/** The line under each generated block: `Measured 2026-11-26, Deno 2.9.6, load average 0.4–0.6.` */
export function runCaption(run: RunInfo): string {
  const [a, b] = run.loadAverage.map((x) => x.toFixed(1));
  return `Measured ${run.date.slice(0, 10)}, ${run.runtime}, ${run.cores} cores, ` +
    `load average ${a === b ? a : `${a} at the start, ${b} at the end`}.`;
}

/**
 * Rewrites the blocks of docs/performance.md (under `repo`) named in
 * `blocks` with their bodies, then lays the page out as `deno fmt` does.
 */
export function writeDocBlocks(repo: string, blocks: Record<string, string>): void {
  const docs = join(repo, "docs", "performance.md");
  let text = readFileSync(docs, "utf8");
  for (const [name, body] of Object.entries(blocks)) {
    if (betweenMarkers(text, name) === undefined) {
      throw new Error(`docs/performance.md has no <!-- ${name} --> block`);
    }
    text = replaceBetweenMarkers(text, name, body);
  }
  writeFileSync(docs, text);
  formatPage(docs);
}

/** Rewrites the block `name` of docs/performance.md (under `repo`) with `body`. */
export function writeDocBlock(repo: string, name: string, body: string): void {
  writeDocBlocks(repo, { [name]: body });
}

/**
 * Lays a written file out with `deno fmt` (the tasks grant running `deno`;
 * the benchmark's own writer already lays tables out so, and fmt wraps the
 * captions and lays the charts out). Done here rather than by `&& deno fmt`
 * in the task, which would take the task's arguments.
 */
export function formatPage(path: string): void {
  const args = ["fmt", "--quiet", path];
  // Under Deno without node:child_process, which reads the whole environment (a permission the
  // tasks do not grant).
  const deno = (globalThis as { Deno?: typeof Deno }).Deno;
  let failure: string | null = null;
  if (deno !== undefined) {
    try {
      const done = new deno.Command("deno", { args, stdout: "null", stderr: "piped" }).outputSync();
      if (!done.success) failure = new TextDecoder().decode(done.stderr);
    } catch (error) {
      failure = String(error);
    }
  } else {
    const fmt = spawnSync("deno", args, { encoding: "utf8" });
    if (fmt.status !== 0) failure = fmt.error?.message ?? fmt.stderr;
  }
  if (failure !== null) console.error(`deno fmt ${path} did not run (${failure}): run it`);
}

/**
 * A Markdown table: a header row, then rows; text columns left-aligned, the
 * others (figures) right-aligned. `textColumns`: how many columns, from the
 * first, are text, or the indexes of the text columns. Each column is padded to
 * its widest cell, as `deno fmt` lays tables out.
 */
export function markdownTable(
  rows: readonly (readonly string[])[],
  textColumns: number | readonly number[] = 1,
): string {
  const isText = (column: number) =>
    typeof textColumns === "number" ? column < textColumns : textColumns.includes(column);
  const width = (cell: string) => [...cell].length;
  // A rule is at least `-` (text) or `-:` (figures) wide.
  const widths = rows[0]!.map((_, column) =>
    Math.max(isText(column) ? 1 : 2, ...rows.map((row) => width(row[column] ?? "")))
  );
  const line = (cells: readonly string[]) =>
    `| ${
      widths.map((w, column) => {
        const cell = cells[column] ?? "";
        const pad = " ".repeat(w - width(cell));
        return isText(column) ? cell + pad : pad + cell;
      }).join(" | ")
    } |`;
  const rule = widths.map((w, column) => isText(column) ? "-".repeat(w) : `${"-".repeat(w - 1)}:`);
  return [line(rows[0]!), `| ${rule.join(" | ")} |`, ...rows.slice(1).map(line)].join("\n");
}
