/**
 * Hostile inputs of `policy policies import`, each at most 8 MiB (the
 * default `limits.maxFileBytes`): many tiny wrappers, a million unknown
 * fields, a million-deep effect, huge strings in every field a message could
 * quote, tens of thousands of warnings and engine errors. Built as text, so
 * the builders never recurse. Run by `_import_runner.ts`.
 *
 * @module
 */

/** One input: its text, what it must end with, and what runs first. */
export interface ImportInput {
  name: string;
  text: string;
  /** `ok`, or the error codes it may end with. */
  outcomes: readonly string[];
  /** Extra arguments of the measured run (`--replace`). */
  args?: readonly string[];
  /** Imported (unmeasured) before the measured run, into the same working folder. */
  before?: string;
}

const MIB = 1024 * 1024;
const HUGE = 7_000_000;
const TARGET = `"target":{"service":"s","resource":"r","action":"a"}`;
const rule = (id: string, effect = `{"type":"allow"}`) =>
  `{"id":"${id}","status":"active","priority":1,${TARGET},"effect":${effect}}`;
const wrapper = (key: string, extra = "") => `{"policyKey":"${key}",${extra}"snapshot":{}}`;

/** `[w(0), w(1), …]` with as many as `count`, or as fit in `maxBytes`. */
function list(item: (i: number) => string, count: number, maxBytes = 8 * MIB): string {
  const parts: string[] = [];
  let bytes = 2;
  for (let i = 0; i < count; i++) {
    const part = item(i);
    if (bytes + part.length + 1 > maxBytes) break;
    parts.push(part);
    bytes += part.length + 1;
  }
  return `[${parts.join(",")}]`;
}

/** An older-form document with one policy of `rules`. */
const older = (rules: string) => `{"version":1,"policies":[{"policyKey":"p","rules":[${rules}]}]}`;
const olderRule = (all: string, rest = `"effect":"allow"`) => `{"id":"r","all":[${all}],${rest}}`;
const eq = (path: string, value: string) => `{"equals":{"path":"${path}","value":"${value}"}}`;
const olderTarget = `${eq("target.service", "s")},${eq("target.resource", "r")},${
  eq("target.action", "a")
}`;

/** The inputs, in the order they run. */
export function importInputs(): ImportInput[] {
  const x = "x".repeat(HUGE);
  const half = "y".repeat(HUGE / 2);
  const fitting = list((i) => wrapper(`p${i}`), 60_000);
  const deep = "[".repeat(1_000_000) + "]".repeat(1_000_000);
  return [
    {
      name: "tiny wrappers, as many as 8 MiB holds",
      text: list((i) => wrapper(`p${i}`), Infinity),
      outcomes: ["DOCUMENT_TOO_LARGE"],
    },
    { name: "60,000 tiny wrappers", text: fitting, outcomes: ["ok"] },
    {
      name: "60,000 tiny wrappers replacing the draft's 60,000 (--replace)",
      text: fitting,
      before: fitting,
      args: ["--replace"],
      outcomes: ["ok"],
    },
    {
      name: "60,000 tiny wrappers the draft has already",
      text: fitting,
      before: fitting,
      outcomes: ["IMPORT_CONFLICT"],
    },
    {
      name: "a key twice, at the end of 60,000",
      text: fitting.slice(0, -1) + `,${wrapper("p0")}]`,
      outcomes: ["IMPORT_UNMAPPABLE"],
    },
    {
      name: "600,000 unknown fields",
      text: `{"policyKey":"p","snapshot":{},${
        Array.from({ length: 600_000 }, (_, i) => `"k${i}":0`).join(",")
      }}`,
      outcomes: ["ok"],
    },
    {
      name: "80,000 warnings: an unknown field and another env in 40,000 wrappers",
      text: list((i) => wrapper(`p${i}`, `"env":"dev","x":1,`), 40_000),
      outcomes: ["ok"],
    },
    {
      name: "a 7 MB unknown field name",
      text: `{"policyKey":"p","snapshot":{},"${x}":1}`,
      outcomes: ["ok"],
    },
    {
      name: "engine errors in 60,000 wrappers",
      text: list((i) => `{"policyKey":"p${i}","snapshot":{"rules":[{}]}}`, 60_000),
      outcomes: ["IMPORT_UNMAPPABLE"],
    },
    {
      name: "a 1,000,000-deep effect (wrapper)",
      text: `{"policyKey":"p","snapshot":{"rules":[${rule("r", deep)}]}}`,
      outcomes: ["IMPORT_UNMAPPABLE", "DOCUMENT_TOO_DEEP", "DOCUMENT_PARSE_ERROR"],
    },
    {
      name: "a 1,000,000-deep effect beside a throttle (older form)",
      text: older(olderRule(olderTarget, `"throttle":{},"effect":${deep}`)),
      outcomes: ["IMPORT_UNMAPPABLE", "DOCUMENT_TOO_DEEP", "DOCUMENT_PARSE_ERROR"],
    },
    {
      name: "a 7 MB status",
      text: `{"policyKey":"p","status":"${x}","snapshot":{}}`,
      outcomes: ["IMPORT_UNMAPPABLE"],
    },
    {
      name: "a 7 MB env",
      text: `{"policyKey":"p","env":"${x}","snapshot":{}}`,
      outcomes: ["IMPORT_UNMAPPABLE"],
    },
    {
      name: "a 7 MB policy key with an engine error",
      text: `{"policyKey":"${x}","snapshot":{"rules":[1]}}`,
      outcomes: ["IMPORT_UNMAPPABLE"],
    },
    {
      // The draft holds it twice (policyKey, and friendlyName defaults to it): 7 MB would not fit.
      name: "a 3.5 MB policy key that imports",
      text: wrapper(half),
      outcomes: ["ok"],
    },
    {
      name: "a 7 MB policy key twice",
      text: `[${wrapper(half)},${wrapper(half)}]`,
      outcomes: ["IMPORT_UNMAPPABLE"],
    },
    {
      name: "a 7 MB effect name (older form)",
      text: older(olderRule(olderTarget, `"effect":"${x}"`)),
      outcomes: ["IMPORT_UNMAPPABLE"],
    },
    {
      name: "a 7 MB condition path (older form)",
      text: older(olderRule(`${olderTarget},${eq(x, "v")}`)),
      outcomes: ["IMPORT_UNMAPPABLE"],
    },
    {
      name: "a 7 MB target field (older form)",
      text: older(olderRule(`${olderTarget},${eq(`target.${x}`, "v")}`)),
      outcomes: ["IMPORT_UNMAPPABLE"],
    },
    {
      name: "two 3.5 MB values for one target field (older form)",
      text: older(olderRule(`${eq("target.service", half)},${eq("target.service", half + "!")}`)),
      outcomes: ["IMPORT_UNMAPPABLE"],
    },
    {
      name: "a 7 MB operand field (older form)",
      text: older(olderRule(`{"equals":{"path":"context.a","value":1,"${x}":1}}`)),
      outcomes: ["IMPORT_UNMAPPABLE"],
    },
    {
      name: "older-form rules filling 8 MiB",
      text: `{"version":1,"policies":${
        list(
          (i) =>
            `{"policyKey":"p${i}","rules":[${
              olderRule(`${olderTarget},${eq("context.plan", "pro")}`)
            }]}`,
          Infinity,
          8 * MIB - 64,
        )
      }}`,
      outcomes: ["ok", "DOCUMENT_TOO_LARGE"],
    },
  ];
}
