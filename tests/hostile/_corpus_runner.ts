/**
 * Loads every document of the hostile corpus in this process and prints
 * one JSON line per document: the outcome, the issues kept, and the time
 * the load took (the faster of two) against the time `JSON.parse` takes on the same bytes
 * (or a SHA-256 of them, when that is longer), both on the two clocks of `_elapsed.ts`
 * (measured after the load, so the load's peak memory is its own). Run by
 * `corpus_test.ts` as a child with a capped heap:
 * `deno run --v8-flags=--max-old-space-size=<MiB> _corpus_runner.ts <seed> [<index>,…]`.
 *
 * @module
 */
import { loadBundle, parseJson, validateBundle } from "../../mod.ts";
import { baseline as measureBaseline } from "./_baseline.ts";
import { type Elapsed, fastest, NOT_YET, startClocks } from "./_elapsed.ts";
import { hostileDocuments } from "./_corpus.ts";

/** One line of output. */
export interface CorpusReport {
  name: string;
  bytes: number;
  outcomes: readonly string[];
  /** `loaded`, or the error's code. */
  outcome: string;
  /** Issues carried by a BUNDLE_INVALID error. */
  issues: number;
  messageLength: number;
  load: Elapsed;
  /** The longer of JSON.parse of the document and of a SHA-256 of its bytes. */
  baseline: Elapsed;
  /** validateBundle() with its default cap, on documents that parse. */
  validation: { errors: number; warnings: number; omitted: number } | null;
}

const seed = Number(Deno.args[0]);
/** The indexes of the documents to load (comma-separated), or every document. */
const only = Deno.args[1]?.split(",").map(Number);

for (const doc of hostileDocuments(seed, only)) {
  const bytes = new TextEncoder().encode(doc.text);
  let outcome = "loaded";
  let issues = 0;
  let messageLength = 0;
  // The faster of two loads, as for JSON.parse below: one run can be slowed
  // by whatever else the machine does.
  let load = NOT_YET;
  for (let run = 0; run < 2; run++) {
    const elapsed = startClocks();
    try {
      await loadBundle(bytes, { allowUnsigned: true });
    } catch (error) {
      const e = error as { code?: string; issues?: unknown[]; message?: string };
      outcome = e.code ?? `uncoded: ${e.message}`;
      issues = e.issues?.length ?? 0;
      messageLength = e.message?.length ?? 0;
    }
    load = fastest(load, elapsed());
  }
  // Measured after the load, so the load's peak memory is its own (see _baseline.ts).
  const baseline = await measureBaseline(doc.text, bytes);
  let validation: CorpusReport["validation"] = null;
  try {
    const result = validateBundle(parseJson(doc.text));
    validation = {
      errors: result.errors.length,
      warnings: result.warnings.length,
      omitted: (result.omitted?.errors ?? 0) + (result.omitted?.warnings ?? 0),
    };
  } catch {
    // not JSON
  }
  const report: CorpusReport = {
    name: doc.name,
    bytes: bytes.byteLength,
    outcomes: doc.outcomes,
    outcome,
    issues,
    messageLength,
    load,
    baseline,
    validation,
  };
  console.log(JSON.stringify(report));
}
