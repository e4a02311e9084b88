/**
 * The CLI splits its arguments as `node:util` `parseArgs` does (strict off,
 * positionals allowed, tokens), without loading `node:util`: the two are
 * compared on generated command lines over the global flags and a command's.
 */
import assert from "node:assert/strict";
import { parseArgs } from "node:util";
import fc from "../../_fast_check.ts";
import { argumentTokens, GLOBAL_FLAGS } from "../../../src/cli/kit/args.ts";

const FLAGS = {
  ...GLOBAL_FLAGS,
  bundle: { type: "string", short: "b", description: "" },
  suite: { type: "string", multiple: true, description: "" },
  trace: { type: "boolean", short: "t", description: "" },
  x: { type: "boolean", description: "" },
} as const;

const OPTIONS = Object.fromEntries(
  Object.entries(FLAGS).map(([name, f]) => [
    name,
    "short" in f && f.short !== undefined ? { type: f.type, short: f.short } : { type: f.type },
  ]),
);

function reference(args: string[]): unknown[] {
  const { tokens } = parseArgs({
    args,
    options: OPTIONS as Parameters<typeof parseArgs>[0] extends infer C
      ? C extends { options?: infer O } ? O : never
      : never,
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  return tokens.map((t) =>
    t.kind === "option"
      ? {
        kind: t.kind,
        name: t.name,
        rawName: t.rawName,
        value: t.value,
        inlineValue: t.inlineValue,
      }
      : t.kind === "positional"
      ? { kind: t.kind, value: t.value }
      : { kind: t.kind }
  );
}

const ARGUMENT = fc.oneof(
  fc.constantFrom(
    "--",
    "-",
    "-w",
    "-b",
    "-h",
    "-t",
    "-ht",
    "-hw",
    "-thb",
    "-wfolder",
    "-tbx",
    "-z",
    "-1",
    "--format",
    "--format=json",
    "--quiet",
    "--quiet=yes",
    "--bundle",
    "--suite",
    "--suite=a",
    "--unknown",
    "--unknown=1",
    "--=",
    "--x",
    "---x",
    "validate",
    "json",
    "a=b",
    "",
  ),
  fc.string({ maxLength: 6 }),
  fc.string({ maxLength: 5 }).map((s) => `-${s}`),
  fc.string({ maxLength: 5 }).map((s) => `--${s}`),
);

Deno.test("argumentTokens splits command lines as node:util parseArgs does", () => {
  fc.assert(
    fc.property(fc.array(ARGUMENT, { maxLength: 8 }), (args) => {
      assert.deepEqual(argumentTokens(args, FLAGS), reference(args));
    }),
    { numRuns: 3000 },
  );
});
