// One measurement in a fresh process:
// `child.ts <engine id> <targets> <scenario id> <scratch> [measure ms]`;
// prints one JSON line (a Measurement) on stdout. Run by run.ts, one process per
// engine, scenario and size, so that they do not share a heap, JIT feedback, or a crash.
import process from "node:process";
import { ENGINES } from "./engines/mod.ts";
import { measure } from "./_measure.ts";
import { scenarioById } from "../scenarios/mod.ts";

const [id, targets, scenario = "3-rules", scratch = ".tmp/bench-peers", measureMs] = process.argv
  .slice(2);
const engine = ENGINES.find((e) => e.id === id);
if (engine === undefined || !Number.isSafeInteger(Number(targets))) {
  console.error(
    `usage: child <${
      ENGINES.map((e) => e.id).join("|")
    }> <targets> [scenario] [scratch folder] [measure ms]`,
  );
  process.exit(2);
}
console.log(
  JSON.stringify(
    await measure(
      engine,
      scenarioById(scenario),
      Number(targets),
      scratch,
      measureMs === undefined ? undefined : Number(measureMs),
    ),
  ),
);
