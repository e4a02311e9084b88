// The reporter of the Node test run (`node --test --test-reporter=./_reporter.mjs`,
// see run.mjs): one line per test file, each skipped test's reason once
// (per file and reason), every failure with its full error (stack, cause,
// assertion diff) and what its file printed, and a summary line. A passing
// run prints nothing else: what passing files print is dropped.
import { inspect } from "node:util";
import { relative } from "node:path";

/** @param {string | undefined} file */
const shortName = (file) => (file === undefined ? "(no file)" : relative(process.cwd(), file));

export default async function* report(source) {
  /** Per file: counts, printed output (kept until the file is done), skip reasons shown. */
  const files = new Map();
  const of = (file) => {
    let entry = files.get(file);
    if (entry === undefined) {
      entry = { passed: 0, failed: 0, skipped: 0, output: [], reasons: new Set() };
      files.set(file, entry);
    }
    return entry;
  };
  const summary = {};
  for await (const { type, data } of source) {
    switch (type) {
      case "test:stdout":
      case "test:stderr":
        of(data.file).output.push(data.message);
        break;
      case "test:pass": {
        if (data.details?.type === "suite") break;
        const entry = of(data.file);
        if (data.skip !== undefined && data.skip !== false) {
          entry.skipped++;
          const reason = typeof data.skip === "string" ? data.skip : "(no reason given)";
          if (!entry.reasons.has(reason)) {
            entry.reasons.add(reason);
            yield `skipped in ${shortName(data.file)}: ${data.name}: ${reason}\n`;
          }
        } else if (data.todo === undefined || data.todo === false) {
          entry.passed++;
        }
        break;
      }
      case "test:fail": {
        if (data.details?.type === "suite") break;
        const entry = of(data.file);
        entry.failed++;
        yield `✖ ${shortName(data.file)} › ${data.name}\n${
          inspect(data.details?.error, { depth: 10, colors: false })
        }\n`;
        break;
      }
      case "test:complete": {
        // A file is done: its own entry (named by its path) completes last.
        if (data.nesting !== 0 || data.name !== data.file || !files.has(data.file)) break;
        const entry = files.get(data.file);
        const counts = [`${entry.passed} passed`];
        if (entry.failed > 0) counts.push(`${entry.failed} failed`);
        if (entry.skipped > 0) counts.push(`${entry.skipped} skipped`);
        if (entry.failed > 0 && entry.output.length > 0) {
          yield `--- what ${shortName(data.file)} printed ---\n${
            entry.output.join("")
          }--- end ---\n`;
        }
        yield `${entry.failed > 0 ? "FAILED" : "ok"} ${shortName(data.file)} (${
          counts.join(", ")
        })\n`;
        entry.output = [];
        break;
      }
      case "test:diagnostic":
        if (data.file === undefined) {
          const [key, value] = String(data.message).split(" ");
          summary[key] = value;
        } else {
          of(data.file).output.push(`${data.message}\n`);
        }
        break;
    }
  }
  const failed = Number(summary.fail ?? 0) + Number(summary.cancelled ?? 0);
  yield `${failed > 0 ? "FAILED" : "ok"} | ${summary.pass ?? 0} passed | ${
    summary.fail ?? 0
  } failed | ${summary.cancelled ?? 0} cancelled | ${summary.skipped ?? 0} skipped (${
    Math.round(Number(summary.duration_ms ?? 0) / 100) / 10
  } s)\n`;
}
