// Load end to end against its floor: `loadBundle` of the bytes, against the
// work every load must do whatever it builds (decode the UTF-8, `JSON.parse`
// the text, SHA-256 of the bytes). Rounds interleave the two, alternating
// which goes first, and each timed run starts from a collected heap (a full
// GC just before), so that neither pays for the other's garbage: the GC state
// is the same for both and stated in the report.
import { loadBundle, type LoadBundleOptions } from "../../mod.ts";
import { median, quantile } from "../_stats.ts";

/** A full collection, when the process runs with `--v8-flags=--expose-gc`. */
export const fullGc: (() => void) | undefined = (globalThis as { gc?: () => void }).gc;

/** One round: milliseconds of the floor and of `loadBundle`. */
export interface EndToEndRound {
  floorMs: number;
  loadMs: number;
}

/** The figures of {@link measureEndToEnd}. */
export interface EndToEndFigures {
  rounds: EndToEndRound[];
  /** Median of the floor, of loadBundle, and of the per-round ratio. */
  floorMs: number;
  loadMs: number;
  ratio: number;
  /** Lowest and highest per-round ratio. */
  ratioRange: [number, number];
  /** Quartiles of the per-round ratio. */
  ratioQuartiles: [number, number];
  /** Whether each timed run started after a full GC. */
  gcBeforeEachRun: boolean;
}

/** decode + JSON.parse + SHA-256 of the bytes: what every load does at least. */
export async function floor(bytes: Uint8Array): Promise<unknown> {
  const text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  const document = JSON.parse(text);
  await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>);
  return document;
}

async function timed(run: () => Promise<unknown>): Promise<number> {
  fullGc?.();
  const start = performance.now();
  await run();
  return performance.now() - start;
}

/** `rounds` interleaved rounds of the floor and of `loadBundle` on `bytes`. */
export async function measureEndToEnd(
  bytes: Uint8Array,
  options: LoadBundleOptions,
  rounds: number,
): Promise<EndToEndFigures> {
  const load = () => loadBundle(bytes, options);
  const base = () => floor(bytes);
  await load(); // warm-up: compiled code, key import caches
  await base();
  const out: EndToEndRound[] = [];
  for (let round = 0; round < rounds; round++) {
    let floorMs: number;
    let loadMs: number;
    if (round % 2 === 0) {
      floorMs = await timed(base);
      loadMs = await timed(load);
    } else {
      loadMs = await timed(load);
      floorMs = await timed(base);
    }
    out.push({ floorMs, loadMs });
  }
  const ratios = out.map((r) => r.loadMs / r.floorMs);
  return {
    rounds: out,
    floorMs: median(out.map((r) => r.floorMs)),
    loadMs: median(out.map((r) => r.loadMs)),
    ratio: median(ratios),
    ratioRange: [Math.min(...ratios), Math.max(...ratios)],
    ratioQuartiles: [quantile(ratios, 0.25), quantile(ratios, 0.75)],
    gcBeforeEachRun: fullGc !== undefined,
  };
}
