/**
 * The worker of {@link runIsolated}: imports a hostile test file in worker
 * mode, runs one case, checks the built-in prototypes, and posts a
 * {@link CaseReport}.
 *
 * @module
 */
/// <reference lib="deno.worker" />
import { type CaseReport, enterWorkerMode, lookupCase } from "./_isolated.ts";

/** The built-ins whose prototypes a case must leave exactly as they were. */
const WATCHED: Record<string, object> = {
  "Object.prototype": Object.prototype,
  "Array.prototype": Array.prototype,
  "Function.prototype": Function.prototype,
  "String.prototype": String.prototype,
  "Number.prototype": Number.prototype,
  "Map.prototype": Map.prototype,
  "Promise.prototype": Promise.prototype,
  "Error.prototype": Error.prototype,
};

function snapshot(): Map<string, string> {
  const out = new Map<string, string>();
  for (const [label, proto] of Object.entries(WATCHED)) {
    const keys = Reflect.ownKeys(proto).map(String).sort();
    out.set(label, `${Object.getPrototypeOf(proto) === null}|${keys.join(",")}`);
  }
  return out;
}

function pollution(before: Map<string, string>): string[] {
  const after = snapshot();
  const changed = [...before].filter(([label, state]) => after.get(label) !== state)
    .map(([label]) => label);
  // The classic symptom, checked directly as well.
  for (const key of ["polluted", "isAdmin", "x", "y"]) {
    if (key in {}) changed.push(`({}).${key} is inherited`);
  }
  return changed;
}

/** Rejections nobody handled: in a main thread, each would have ended the process. */
const unhandled: string[] = [];
self.addEventListener("unhandledrejection", (event) => {
  event.preventDefault();
  const reason = event.reason;
  unhandled.push(reason instanceof Error ? `${reason.name}: ${reason.message}` : String(reason));
});

self.onmessage = async (event: MessageEvent<{ moduleUrl: string; name: string }>) => {
  const { moduleUrl, name } = event.data;
  const before = snapshot();
  const started = performance.now();
  let report: CaseReport;
  try {
    enterWorkerMode();
    await import(moduleUrl);
    const fn = lookupCase(name);
    if (fn === undefined) throw new Error(`no hostile case named "${name}" in ${moduleUrl}`);
    await fn();
    report = { ok: true, ms: performance.now() - started };
  } catch (error) {
    report = {
      ok: false,
      ms: performance.now() - started,
      message: error instanceof Error ? error.message : String(error),
      ...(error instanceof Error && error.stack !== undefined && { stack: error.stack }),
    };
  }
  // A macrotask later, so that rejections left unhandled by the case are reported.
  await new Promise((resolve) => setTimeout(resolve, 0));
  report.pollution = pollution(before);
  report.unhandledRejections = unhandled;
  self.postMessage(report);
};
