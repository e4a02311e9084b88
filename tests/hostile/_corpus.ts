/**
 * The hostile corpus: documents built to exhaust the load path's memory or
 * time, each as large as the size limit allows (8 MiB by default), drawn
 * from a seeded source so that a failure replays (`tests/_random.ts`).
 * Every entry says which outcomes are acceptable: loaded, or refused with
 * one of its codes. `docs/security.md` ("Bounds under hostile input")
 * states the promise these documents check.
 *
 * @module
 */
import { DEFAULT_MAX_FILE_BYTES } from "../../src/verify/load_bundle.ts";
import { type Random, seededRandom } from "../_random.ts";

/** One hostile document. */
export interface HostileDocument {
  /** What it is built to stress. */
  name: string;
  /** The JSON text (within {@link CORPUS_BYTES} bytes). */
  text: string;
  /** Acceptable outcomes: `"loaded"` or error codes. */
  outcomes: readonly string[];
}

/**
 * The documents of the quick suite (`tests/_long.ts`), one of each family:
 * overflowing numbers, warnings in every rule, conditions nested too deep,
 * huge keys, escapes, and text that is not JSON (the deepest document runs
 * in `deep_nesting_test.ts`). `deno task test:long` loads the whole corpus.
 */
export const QUICK_CORPUS: ReadonlySet<string> = new Set([
  "every priority overflows to Infinity",
  "a wildcard target in every rule (a warning each)",
  "every rule with conditions nested 65 deep (one too many)",
  "a policy key of 8 MiB",
  "every rule id written with an escape",
  "a valid bundle cut in the middle",
]);

/** The names and outcomes of the corpus, without building any document. */
export function hostileCorpusEntries(): Omit<HostileDocument, "text">[] {
  return hostileCorpus(seededRandom(0), true).map(({ name, outcomes }) => ({ name, outcomes }));
}

/**
 * The corpus drawn from `seed`, one document at a time (each is 8 MiB:
 * building them all at once would hold a quarter of a gigabyte); only the
 * documents at the indexes of `only` when given (each is the same document
 * as in the whole corpus).
 */
export function* hostileDocuments(
  seed: number,
  only?: readonly number[],
): Generator<HostileDocument> {
  const count = hostileCorpus(seededRandom(seed), true).length;
  for (let i = 0; i < count; i++) {
    if (only !== undefined && !only.includes(i)) continue;
    // Each document from its own source, so one can be rebuilt alone.
    yield hostileCorpus(seededRandom((seed + i * 0x9e3779b9) >>> 0), false, i)[0]!;
  }
}

/** The size each document fills: just under the default `maxFileBytes`. */
export const CORPUS_BYTES = DEFAULT_MAX_FILE_BYTES - 1024;

const HEAD = '{"schemaVersion":1,"env":"prod","policies":[';
const POLICY_HEAD = '{"policyKey":"p","activeVersion":1,"rules":[';
const TAIL = "]}]}";
const TARGET = '{"service":"s","resource":"r","action":"a"}';

/** `HEAD + POLICY_HEAD + item(0),item(1),… + TAIL`, filled up to `bytes`. */
function fillRules(item: (i: number) => string, bytes = CORPUS_BYTES, head = HEAD + POLICY_HEAD) {
  return fill(head, item, TAIL, bytes);
}

/** `head + items joined by commas + tail`, as many items as fit in `bytes`. */
function fill(head: string, item: (i: number) => string, tail: string, bytes = CORPUS_BYTES) {
  const parts: string[] = [head];
  let size = head.length + tail.length;
  for (let i = 0;; i++) {
    const next = (i === 0 ? "" : ",") + item(i);
    if (size + next.length > bytes) break;
    parts.push(next);
    size += next.length;
  }
  parts.push(tail);
  return parts.join("");
}

/** `{"schemaVersion":1,…,"rules":[{},{},…]}` filling `bytes`: every rule an issue flood. */
export function emptyRules(bytes = CORPUS_BYTES): string {
  return fillRules(() => "{}", bytes);
}

/** A valid rule, `i`-th of its policy, with `extra` raw JSON members appended. */
function rule(i: number, extra = "", target = TARGET, id = `r${i}`): string {
  return `{"id":"${id}","status":"active","priority":${
    i % 97
  },"target":${target},"effect":{"type":"${i % 3 === 0 ? "deny" : "allow"}"}${extra}}`;
}

/** A key of one of the rule's own names, written with an escape. */
const ESCAPED_ID = '"\\u0069d"';

/**
 * The corpus drawn from `random`: every document, or only the one at `only`
 * (`countOnly` gives the right length without building any text).
 */
function hostileCorpus(random: Random, countOnly: boolean, only = -1): HostileDocument[] {
  const word = () => "abcdefghijklmnopqrstuvwxyz".slice(random.int(20), 21 + random.int(5));
  const value = () =>
    random.pick(['"x"', "1", "true", "null", "[]", "{}", `"${word()}"`, "-0.5", "1e3"]);
  const invalid = ["BUNDLE_INVALID"];
  const loaded = ["loaded"];
  const docs: LazyDocument[] = [
    // Issue floods: every rule or policy gives several errors.
    { name: "2.8 million empty rules", text: () => emptyRules(), outcomes: invalid },
    {
      name: "rules whose every field has the wrong type",
      text: () =>
        fillRules(() => `{"id":${value()},"status":2,"priority":"p","target":3,"effect":[]}`),
      outcomes: invalid,
    },
    {
      name: "a million empty policies",
      text: () => fill(HEAD, () => "{}", "]}"),
      outcomes: invalid,
    },
    {
      name: "one policy key reused by every policy",
      text: () => fill(HEAD, () => '{"policyKey":"p","activeVersion":1,"rules":[]}', "]}"),
      outcomes: invalid,
    },
    {
      name: "one rule id reused by every rule",
      text: () => fillRules((i) => rule(i, "", TARGET, "same")),
      outcomes: invalid,
    },
    {
      name: "every priority overflows to Infinity",
      text: () => fillRules((i) => rule(i).replace(/"priority":\d+/, '"priority":1e400')),
      outcomes: invalid,
    },
    {
      name: "numbers that overflow, nested in every rule",
      text: () => fillRules((i) => rule(i, `,"x${word()}":[{"y":[1e400,${value()}]}]`)),
      outcomes: invalid,
    },
    {
      name: "a wildcard target in every rule (a warning each)",
      text: () => fillRules((i) => rule(i, "", '{"service":"*","resource":"*","action":"*"}')),
      outcomes: loaded,
    },
    {
      name: "an unknown operator in every rule (a warning each)",
      text: () => fillRules((i) => rule(i, `,"when":{"op":"${word()}","path":"p"}`)),
      outcomes: loaded,
    },
    {
      name: "malformed conditions in every rule",
      text: () =>
        fillRules((i) =>
          rule(i, `,"when":{"op":"${random.pick(["and", "or", "not", "gt", "in"])}"}`)
        ),
      outcomes: loaded,
    },
    // Wide and deep conditions.
    {
      name: "one rule whose and holds half a million conditions",
      text: () =>
        fill(
          HEAD + POLICY_HEAD + rule(0, "").slice(0, -1) + ',"when":{"op":"and","conditions":[',
          (i) => `{"op":"${random.pick(["exists", "neq"])}","path":"k${i % 1000}","value":${i}}`,
          "]}}" + TAIL,
        ),
      outcomes: loaded,
    },
    {
      name: "every rule with conditions nested 64 deep (the limit)",
      text: () => fillRules((i) => rule(i, `,"when":${notChain(64)}`)),
      outcomes: loaded,
    },
    {
      name: "every rule with conditions nested 65 deep (one too many)",
      text: () => fillRules((i) => rule(i, `,"when":${notChain(65)}`)),
      outcomes: invalid,
    },
    {
      name: "a rule field nested four million arrays deep",
      text: () => {
        const depth = Math.floor((CORPUS_BYTES - 400) / 2);
        return HEAD + POLICY_HEAD + rule(0, `,"x":${"[".repeat(depth)}${"]".repeat(depth)}`) +
          TAIL;
      },
      outcomes: invalid,
    },
    {
      name: "a document of four million nested arrays",
      text: () => "[".repeat(CORPUS_BYTES / 2) + "]".repeat(CORPUS_BYTES / 2),
      outcomes: invalid,
    },
    // Huge arrays, long strings, many and duplicate keys.
    {
      name: "an in list of a million values",
      text: () =>
        fill(
          HEAD + POLICY_HEAD + rule(0, "").slice(0, -1) +
            ',"when":{"op":"in","path":"v","values":[',
          (i) => random.pick([`"${i}"`, `${i}`, "true", "null"]),
          "]}}" + TAIL,
        ),
      outcomes: loaded,
    },
    {
      name: "a policy key of 8 MiB",
      text: () =>
        `${HEAD}{"policyKey":"${"k".repeat(CORPUS_BYTES - 300)}","activeVersion":1,"rules":[${
          rule(0)
        }]}]}`,
      outcomes: loaded,
    },
    {
      name: "a duplicate policy key of 4 MiB",
      text: () => {
        const key = "k".repeat(CORPUS_BYTES / 2 - 300);
        return `${HEAD}{"policyKey":"${key}","activeVersion":1,"rules":[]},{"policyKey":"${key}","activeVersion":1,"rules":[]}]}`;
      },
      outcomes: invalid,
    },
    {
      name: "a rule with a key of 8 MiB",
      text: () => HEAD + POLICY_HEAD + rule(0, `,"${"k".repeat(CORPUS_BYTES - 400)}":1`) + TAIL,
      outcomes: loaded,
    },
    {
      name: "a rule with half a million keys",
      text: () =>
        fill(
          HEAD + POLICY_HEAD + rule(0, "").slice(0, -1) + ",",
          (i) => `"k${i}":${value()}`,
          "}" + TAIL,
        ),
      outcomes: loaded,
    },
    {
      name: "one key repeated a million times in a rule",
      text: () =>
        fill(
          HEAD + POLICY_HEAD + rule(0, "").slice(0, -1) + ",",
          () => `"${random.pick(["a", "b"])}":${value()}`,
          "}" + TAIL,
        ),
      outcomes: loaded,
    },
    {
      name: "a hundred thousand targets of one rule each",
      text: () =>
        fillRules((i) =>
          rule(i, "", `{"service":"s${i % 7}","resource":"r${i}","action":"${word()}"}`)
        ),
      outcomes: loaded,
    },
    {
      name: "a hundred thousand policies of one rule each",
      text: () =>
        fill(
          HEAD,
          (i) => `{"policyKey":"p${i}","activeVersion":1,"rules":[${rule(i)}]}`,
          "]}",
        ),
      outcomes: loaded,
    },
    {
      name: "every rule with a custom value of escaped JSON",
      text: () =>
        fillRules((i) =>
          rule(i).replace(
            /"effect":\{[^}]*\}/,
            `"effect":{"type":"custom","value":"{\\"a\\":[${i},\\"\\\\n\\"]}"}`,
          )
        ),
      outcomes: loaded,
    },
    // Escaped keys: the exact parser's path, with the floods above.
    {
      name: "2.8 million empty rules after an escaped key",
      text: () =>
        fillRules(() => "{}", CORPUS_BYTES, `{${ESCAPED_ID}:1,` + HEAD.slice(1) + POLICY_HEAD),
      outcomes: invalid,
    },
    {
      name: "every rule id written with an escape",
      text: () => fillRules((i) => rule(i).replace('"id"', ESCAPED_ID)),
      outcomes: loaded,
    },
    {
      name: "every key written with escapes, strings full of escapes",
      text: () =>
        fillRules((i) =>
          rule(i, ',"description":"\\n\\t\\"\\\\\\u00e9\\ud83d\\ude00"')
            .replaceAll(
              /"([a-z]+)":/g,
              (_, k: string) => `"\\u00${k.charCodeAt(0).toString(16)}${k.slice(1)}":`,
            )
        ),
      outcomes: loaded,
    },
    // Not JSON, or cut short.
    {
      name: "8 MiB that is not JSON",
      text: () => "root:x:0:0:root:/root:/bin/bash\n".repeat(CORPUS_BYTES / 32),
      outcomes: ["BUNDLE_PARSE_ERROR"],
    },
    {
      name: "a valid bundle cut in the middle",
      text: () => fillRules((i) => rule(i)).slice(0, CORPUS_BYTES / 2),
      outcomes: ["BUNDLE_PARSE_ERROR"],
    },
    {
      name: "an unterminated string of 8 MiB",
      text: () => HEAD + '{"policyKey":"' + "x".repeat(CORPUS_BYTES - 100),
      outcomes: ["BUNDLE_PARSE_ERROR"],
    },
  ];
  if (countOnly) return docs.map(({ name, outcomes }) => ({ name, text: "", outcomes }));
  const { name, text, outcomes } = docs[only]!;
  return [{ name, text: text(), outcomes }];
}

interface LazyDocument {
  name: string;
  text: () => string;
  outcomes: readonly string[];
}

/** A `not` chain of `depth` conditions in all. */
function notChain(depth: number): string {
  return '{"op":"not","condition":'.repeat(depth - 1) + '{"op":"exists","path":"x"}' +
    "}".repeat(depth - 1);
}
