// Memory retained by a loaded bundle, in a fresh process:
// `deno run --v8-flags=--expose-gc _memory_child.ts <parse|load>` prints one JSON line.
// "parse" keeps only JSON.parse's document; "load" keeps loadBundle's result.
import process from "node:process";
import { loadBundle } from "../../mod.ts";
import { makeSignedBundle } from "./_signed_bundle.ts";

const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error("run with --v8-flags=--expose-gc");
const mode = process.argv[2];

const { bytes, options, targets } = await makeSignedBundle();
const settle = () => {
  for (let i = 0; i < 3; i++) gc();
  return process.memoryUsage();
};
const before = settle();
let kept: unknown;
if (mode === "parse") {
  kept = JSON.parse(new TextDecoder().decode(bytes));
} else {
  kept = await loadBundle(bytes, options);
}
const after = settle();
console.log(JSON.stringify({
  mode,
  targets,
  bundleBytes: bytes.byteLength,
  rssDelta: after.rss - before.rss,
  heapUsedDelta: after.heapUsed - before.heapUsed,
  rssAfter: after.rss,
  kept: kept !== undefined,
}));
