/**
 * The benchmarks' tables (`markdownTable` of bench/_report.ts) are laid out
 * as `deno fmt` lays them out — columns padded to their widest cell, figures
 * right-aligned — so they read well where a benchmark prints them and the
 * page's `deno fmt` (each bench task ends with it) leaves them as written.
 * Checked against `deno fmt` itself.
 */
import assert from "node:assert/strict";
import { markdownTable, replaceBetweenMarkers } from "../../bench/_report.ts";
import { requireDenoCommand } from "../_deno_command.ts";

/** `text` formatted by `deno fmt` as Markdown. */
async function denoFmt(text: string): Promise<string> {
  const child = new Deno.Command(requireDenoCommand(), {
    args: ["fmt", "--ext", "md", "-"],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(text));
  await writer.close();
  const { success, stdout, stderr } = await child.output();
  assert.ok(success, new TextDecoder().decode(stderr));
  return new TextDecoder().decode(stdout);
}

Deno.test("markdownTable writes what deno fmt would: padded columns, figures right-aligned", async () => {
  const table = markdownTable([
    ["Scenario", "p50, µs", "× floor", "n"],
    ["evaluate × 1", "1.20", "1.5×", "a"],
    ["a much longer scenario name", "10", "→ 2", "left"],
    ["`code` in a cell", "1,234,567", "0.9×", ""],
  ], 2);
  const doc = replaceBetweenMarkers(
    "# Performance\n\n<!-- block -->\n\nold\n\n<!-- /block -->\n",
    "block",
    `Measured today.\n\n${table}`,
  );
  assert.equal(await denoFmt(doc), doc);
  const lines = table.split("\n");
  assert.equal(new Set(lines.map((line) => [...line].length)).size, 1, "one width for every row");
  assert.match(lines[1]!, /^\| -+ \| -+ \| -+: \| -+: \|$/, "text columns left, figures right");

  // The text columns by index (the peers' table has figures, then the engine's name), and the
  // narrowest columns: a rule of `-` or `-:`.
  const peers = markdownTable([
    ["targets", "engine", "ns", "k"],
    ["1,000", "ours", "12", "x"],
    ["10", "a peer", "", "y"],
  ], [1, 3]);
  assert.equal(await denoFmt(`${peers}\n`), `${peers}\n`);
  assert.match(peers.split("\n")[1]!, /^\| -+: \| -+ \| -: \| - \|$/);
});
