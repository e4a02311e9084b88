// Memory retained by a loaded bundle, in a fresh process that holds nothing else:
// `deno run --allow-read=<file> --v8-flags=--expose-gc _memory_child.ts <parse|load> <file> <spki-pem>`
// prints one JSON line. "parse" keeps JSON.parse's document; "load" keeps loadBundle's result.
import { readFileSync } from "node:fs";
import process from "node:process";
import { loadBundle } from "../../mod.ts";

const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error("run with --v8-flags=--expose-gc");
const [mode, file, publicKey] = process.argv.slice(2) as [string, string, string];

const settle = () => {
  for (let i = 0; i < 3; i++) gc();
  return process.memoryUsage();
};
// Inside functions, so that no temporary (the decoded text) outlives them.
const parse = (bytes: Uint8Array) => JSON.parse(new TextDecoder().decode(bytes));
const load = (bytes: Uint8Array) =>
  loadBundle(bytes, { verify: { algorithm: "ECDSA_SHA_256", publicKey } });

const bytes: Uint8Array = readFileSync(file);
const before = settle();
const kept = mode === "parse" ? parse(bytes) : await load(bytes);
const after = settle();
console.log(JSON.stringify({
  mode,
  bundleBytes: bytes.byteLength,
  rssDelta: after.rss - before.rss,
  heapUsedDelta: after.heapUsed - before.heapUsed,
  kept: kept !== undefined,
}));
