/**
 * The CLI holds itself to the memory bound of loading (docs/security.md,
 * "Memory"): `policy validate <bundle>` and `policy diff <a> <b>` on the
 * heaviest 8 MiB documents of the hostile corpus finish, with their code, in
 * a child whose heap is capped at the 320 MiB a load gets. They needed 320 to
 * 400 MiB while validate parsed a bundle twice and diff held its first parse
 * while the load pipeline parsed the file again.
 */
import assert from "node:assert/strict";
import * as path from "node:path";
import { scratch } from "../cli/_helpers.ts";
import {
  CLI,
  cliEnv,
  DENO,
  explainIgnored,
  policyTaskFlags,
  runDeno,
} from "../faults/_policy_process.ts";
import { hostileCorpusEntries, hostileDocuments } from "./_corpus.ts";
import { LONG, noteLong } from "../_long.ts";

explainIgnored("tests/hostile/cli_memory_test.ts");

/** The heap of a load of 8 MiB (docs/security.md), and so of the CLI. */
const HEAP_MIB = 320;

/**
 * The documents: the one the issue measured, the deepest, and a large one that
 * loads (the quick suite runs that one, `deno task test:long` all three).
 */
const ALL_CASES: Record<string, { validate: number; diff: number }> = {
  "2.8 million empty rules": { validate: 1, diff: 1 },
  "a document of four million nested arrays": { validate: 1, diff: 1 },
  "a hundred thousand policies of one rule each": { validate: 0, diff: 0 },
};
const QUICK = "a hundred thousand policies of one rule each";
const CASES = LONG ? ALL_CASES : { [QUICK]: ALL_CASES[QUICK]! };
noteLong("tests/hostile/cli_memory_test.ts", "2 of the 3 documents");

Deno.test({
  name:
    `policy validate and diff on the heaviest 8 MiB documents finish in a ${HEAP_MIB} MiB heap, as a load does`,
  ignore: DENO === null,
  fn: async (t) => {
    await using s = await scratch();
    const files: [string, string][] = [];
    // Only the documents of the cases are built (each is 8 MiB).
    const indexes = hostileCorpusEntries().flatMap((entry, i) => entry.name in CASES ? [i] : []);
    for (const document of hostileDocuments(0, indexes)) {
      const file = path.join(s.wf, `${files.length}.json`);
      await Deno.writeTextFile(file, document.text);
      files.push([document.name, file]);
    }
    assert.equal(files.length, Object.keys(CASES).length);
    for (const [name, file] of files) {
      await t.step(name, async () => {
        for (
          const [command, args] of [
            ["validate", ["validate", file]],
            ["diff", ["diff", file, file]],
          ] as const
        ) {
          const result = await runDeno(
            [
              "run",
              `--v8-flags=--max-old-space-size=${HEAP_MIB}`,
              ...policyTaskFlags(),
              CLI,
              ...args,
            ],
            { cwd: s.wf, env: cliEnv(s.home), seconds: 300 },
          );
          assert.equal(
            result.code,
            CASES[name]![command],
            `${command}: exit ${result.code} (${result.signal ?? "no signal"})\n${
              result.stderr.slice(-1500)
            }`,
          );
          assert.doesNotMatch(result.stderr, /out of memory|INTERNAL_ERROR/, command);
        }
      });
    }
  },
});
