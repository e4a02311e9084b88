// Our engine, the scenario bundle as file bytes through the whole load
// pipeline: evaluate, traceEvaluation, and a local client with a contextPolicy.
import { createEvaluator, createLocalClient, loadBundle, traceEvaluation } from "../_libraries.ts";
import type { PeerEngine } from "../_engine.ts";
import { SCENARIOS } from "../../scenarios/mod.ts";

const ALL = SCENARIOS.map((s) => s.id);
const LOAD = "loadBundle of the bundle's bytes (UTF-8 decode, JSON.parse, validate, checksum, " +
  "compile), unsigned, with maxFileBytes raised for large bundles";

const bytesOf = (n: number, { scenario }: { scenario: { bundle(n: number): unknown } }) =>
  new TextEncoder().encode(JSON.stringify(scenario.bundle(n)));
const load = (bytes: Uint8Array) =>
  loadBundle(bytes, { allowUnsigned: true, maxFileBytes: Number.MAX_SAFE_INTEGER });

export const ours: PeerEngine<Uint8Array> = {
  id: "ours",
  label: "this engine (evaluate)",
  async: false,
  scenarios: ALL,
  notes: `load = ${LOAD}; then createEvaluator.`,
  source: bytesOf,
  async load(bytes) {
    return createEvaluator((await load(bytes)).compiled);
  },
};

export const oursTrace: PeerEngine<Uint8Array> = {
  id: "ours-trace",
  label: "this engine (traceEvaluation)",
  async: false,
  scenarios: ALL,
  notes: `load = ${LOAD}; each request is traceEvaluation(compiled, request), the full trace.`,
  source: bytesOf,
  async load(bytes) {
    const { compiled } = await load(bytes);
    return (request) => traceEvaluation(compiled, request).decision;
  },
};

export const oursClient: PeerEngine<{ bundlePath: string; allowedKeys: readonly string[] }> = {
  id: "ours-client",
  label: "this engine (local client, contextPolicy)",
  async: false,
  scenarios: ALL,
  notes: "load = createLocalClient of the bundle written to a file (read, then the load " +
    "pipeline), unsigned, with a contextPolicy allowing exactly the scenario's top-level " +
    "context keys; each request is client.evaluate(request).",
  async source(n, { scenario, scratch }) {
    const { mkdir, writeFile } = await import("node:fs/promises");
    await mkdir(scratch, { recursive: true });
    const bundlePath = `${scratch}/${scenario.id}-${n}.json`;
    await writeFile(bundlePath, JSON.stringify(scenario.bundle(n)));
    return { bundlePath, allowedKeys: scenario.contextKeys };
  },
  async load({ bundlePath, allowedKeys }) {
    const client = await createLocalClient({
      bundlePath,
      allowUnsigned: true,
      maxFileBytes: Number.MAX_SAFE_INTEGER,
      contextPolicy: { allowedKeys },
    });
    return (request) => client.evaluate(request);
  },
};
