// One measurement in a fresh process: `child.ts <engine id> <targets>`; prints
// one JSON line (a Measurement) on stdout. Run by run.ts, one process per pair,
// so that engines do not share a heap, JIT feedback, or a crash.
import process from "node:process";
import { ENGINES } from "./engines/mod.ts";
import { measure } from "./_measure.ts";

const [id, targets] = process.argv.slice(2);
const engine = ENGINES.find((e) => e.id === id);
if (engine === undefined || !Number.isSafeInteger(Number(targets))) {
  console.error(`usage: child <${ENGINES.map((e) => e.id).join("|")}> <targets>`);
  process.exit(2);
}
console.log(JSON.stringify(await measure(engine, Number(targets))));
