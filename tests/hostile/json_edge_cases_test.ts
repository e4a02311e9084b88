/**
 * Odd JSON: empty and non-object documents, byte-order marks, invalid UTF-8,
 * duplicate keys, huge and odd numbers, numeric-looking strings. Each case
 * runs in its own worker under a deadline (see `_isolated.ts`).
 *
 * The invariant behind the duplicate-key and number cases: checksum and
 * signature cover the canonical payload of the *parsed* document, so a file
 * either verifies and then means exactly what was signed, or fails.
 */
import { makeTempDir } from "../temp_dir.ts";
import assert from "node:assert/strict";
import {
  compileBundle,
  createEvaluator,
  createLocalClient,
  type EvaluationRequest,
  loadBundle,
  type LoadedBundle,
  PolicyError,
  type RuntimeBundleV1,
  signBundle,
  validateBundle,
} from "../../mod.ts";
import { canonicalJson } from "../../src/engine/mod.ts";

import { hostileTest } from "./_isolated.ts";
import {
  bundleOf,
  issueCodes,
  keys,
  rejectsWith,
  rule,
  signedText,
  TARGET,
  throwsWith,
  VERIFY,
  withRaw,
} from "./_inputs.ts";
import { seededRandom, testSeed } from "../_random.ts";

/** Every random draw of this file (replay a failure with POLICY_TEST_SEED). */
const random = seededRandom(testSeed(0x3d9e));

const UNSIGNED = { allowUnsigned: true };
const encoder = new TextEncoder();
const bytes = (...parts: (string | number[])[]) => {
  const chunks = parts.map((p) => typeof p === "string" ? encoder.encode(p) : new Uint8Array(p));
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.byteLength, 0));
  let offset = 0;
  for (const c of chunks) {
    out.set(c, offset);
    offset += c.byteLength;
  }
  return out;
};

hostileTest(
  import.meta.url,
  "empty, blank and non-JSON files are BUNDLE_PARSE_ERROR; null, [], a string, 0, true are BUNDLE_INVALID (DOCUMENT_NOT_OBJECT)",
  async () => {
    const notJson = [
      "",
      " ",
      "\n\t\r\n",
      "{",
      '{"a":1} x',
      '{"a":1}{"a":1}',
      "// c\n{}",
      "{'a':1}",
      "\0",
    ];
    for (const text of notJson) {
      await rejectsWith(loadBundle(text, UNSIGNED), "BUNDLE_PARSE_ERROR");
    }
    for (const text of ["null", "[]", '"string"', "0", "true", "-0", "1e400"]) {
      const error = await rejectsWith(loadBundle(text, UNSIGNED), "BUNDLE_INVALID");
      assert.deepEqual(issueCodes(error), ["DOCUMENT_NOT_OBJECT"], text);
    }
    const empty = await rejectsWith(loadBundle("{}", UNSIGNED), "BUNDLE_INVALID");
    assert.deepEqual(issueCodes(empty), [
      "INVALID_SCHEMA_VERSION",
      "INVALID_ENV",
      "POLICIES_NOT_ARRAY",
    ]);
    // The same through the local client, which reads the file from disk.
    const { dir, remove } = await makeTempDir("hostile-");
    try {
      const bundlePath = `${dir}/bundle.json`;
      for (
        const [text, code] of [["", "BUNDLE_PARSE_ERROR"], ["null", "BUNDLE_INVALID"]] as const
      ) {
        await Deno.writeTextFile(bundlePath, text);
        await rejectsWith(createLocalClient({ bundlePath, allowUnsigned: true }), code);
      }
    } finally {
      await remove();
    }
  },
);

hostileTest(
  import.meta.url,
  "a UTF-8 byte-order mark is accepted (and a signed bundle still verifies); two of them, UTF-16 and UTF-32 are BUNDLE_PARSE_ERROR",
  async () => {
    const signed = await signedText(bundleOf());
    const loaded = await loadBundle(bytes([0xef, 0xbb, 0xbf], signed), VERIFY);
    assert.equal(loaded.status.signature.status, "verified");
    await rejectsWith(
      loadBundle(bytes([0xef, 0xbb, 0xbf, 0xef, 0xbb, 0xbf], signed), VERIFY),
      "BUNDLE_PARSE_ERROR",
    );
    const utf16le = new Uint8Array(signed.length * 2);
    const utf16be = new Uint8Array(signed.length * 2);
    for (let i = 0; i < signed.length; i++) {
      utf16le[2 * i] = signed.charCodeAt(i);
      utf16be[2 * i + 1] = signed.charCodeAt(i);
    }
    for (
      const variant of [
        bytes([0xff, 0xfe], [...utf16le]),
        bytes([0xfe, 0xff], [...utf16be]),
        utf16le, // no mark: NUL bytes between the characters
        bytes([0xff, 0xfe, 0, 0], signed),
      ]
    ) {
      await rejectsWith(loadBundle(variant, VERIFY), "BUNDLE_PARSE_ERROR");
    }
  },
);

hostileTest(
  import.meta.url,
  "invalid UTF-8 anywhere is BUNDLE_PARSE_ERROR (never decoded to U+FFFD and then checked)",
  async () => {
    const signed = await signedText(bundleOf([rule("r1", { description: "@@" })]));
    const [before, after] = signed.split("@@") as [string, string];
    const invalid = [
      [0xff], // never valid
      [0x80], // a lone continuation byte
      [0xc0, 0xaf], // an overlong "/"
      [0xe0, 0x80, 0xaf], // an overlong "/" in three bytes
      [0xed, 0xa0, 0x80], // a UTF-16 surrogate encoded in UTF-8
      [0xf4, 0x90, 0x80, 0x80], // above U+10FFFF
      [0xf8, 0x88, 0x80, 0x80, 0x80], // a five-byte form
      [0xe2, 0x82], // cut short
    ];
    for (const sequence of invalid) {
      await rejectsWith(loadBundle(bytes(before, sequence, after), VERIFY), "BUNDLE_PARSE_ERROR");
    }
    // Cut short at the very end of the file, too.
    await rejectsWith(loadBundle(bytes(signed, [0xe2, 0x82]), VERIFY), "BUNDLE_PARSE_ERROR");
    // A lone surrogate written as a JSON escape is valid UTF-8 text: it is kept, and signs and
    // verifies like any other string (the canonical payload escapes it again).
    const escaped = await signedText(bundleOf([rule("r1", { description: "\ud800" })]));
    assert.ok(escaped.includes("\\ud800"));
    assert.equal((await loadBundle(escaped, VERIFY)).status.signature.status, "verified");
  },
);

// Duplicate keys ----------------------------------------------------------------------------

/**
 * A JSON writer that can emit one object member twice: at the object found at
 * `path`, `key` is written once more with `value`, before or after the real one.
 */
function withDuplicate(
  document: unknown,
  path: (string | number)[],
  key: string,
  value: unknown,
  position: "before" | "after",
): string {
  const write = (node: unknown, at: (string | number)[]): string => {
    if (Array.isArray(node)) return `[${node.map((v, i) => write(v, [...at, i])).join(",")}]`;
    if (node === null || typeof node !== "object") return JSON.stringify(node);
    const members = Object.entries(node).map(([k, v]) =>
      `${JSON.stringify(k)}:${write(v, [...at, k])}`
    );
    if (at.length === path.length && at.every((segment, i) => segment === path[i])) {
      const index = Object.keys(node).indexOf(key);
      assert.ok(index >= 0, `${key} is a member at /${path.join("/")}`);
      const duplicate = `${JSON.stringify(key)}:${JSON.stringify(value)}`;
      members.splice(position === "before" ? index : index + 1, 0, duplicate);
    }
    return `{${members.join(",")}}`;
  };
  return write(document, []);
}

/** A different value of the same kind, so a duplicate changes the meaning if it wins. */
function evil(value: unknown): unknown {
  if (typeof value === "string") return value === "allow" ? "deny" : `${value}-evil`;
  if (typeof value === "number") return value + 1;
  if (typeof value === "boolean") return !value;
  if (Array.isArray(value)) return [];
  if (value !== null && typeof value === "object") {
    return "type" in value ? { type: "deny" } : { ...value, extra: "evil" };
  }
  return 1;
}

/** Every object member of `node`: its object's path and its key. */
function members(node: unknown, at: (string | number)[] = []): [(string | number)[], string][] {
  if (Array.isArray(node)) return node.flatMap((v, i) => members(v, [...at, i]));
  if (node === null || typeof node !== "object") return [];
  return Object.entries(node).flatMap(([k, v]) => [[at, k], ...members(v, [...at, k])]);
}

const REQUESTS: EvaluationRequest[] = [
  { target: TARGET },
  { target: TARGET, context: { plan: "pro" } },
  { target: TARGET, context: { plan: "free" } },
  { target: { ...TARGET, action: "write" } },
];

function decisions(loaded: LoadedBundle): unknown[] {
  const evaluate = createEvaluator(loaded.compiled);
  return REQUESTS.map((request) => evaluate(request));
}

hostileTest(
  import.meta.url,
  "a duplicated key anywhere in a signed bundle either verifies and means what was signed (JSON.parse keeps the last), or fails",
  async () => {
    const original = JSON.parse(
      await signedText({
        schemaVersion: 1,
        env: "prod",
        orgId: "acme",
        bundleVersion: 3,
        policies: [{
          policyKey: "p",
          activeVersion: 1,
          defaults: { effect: "deny" },
          rules: [
            rule("pro", {
              when: { op: "eq", path: "ctx.plan", value: "pro" },
              elseEffect: { type: "deny" },
            }),
            rule("write", { target: { ...TARGET, action: "write" }, status: "disabled" }),
          ],
        }],
      }),
    );
    const reference = await loadBundle(JSON.stringify(original), VERIFY);
    const expected = decisions(reference);
    let verified = 0;
    let refused = 0;
    for (const [path, key] of members(original)) {
      let target: unknown = original;
      for (const segment of path) target = (target as Record<string, unknown>)[segment];
      const value = evil((target as Record<string, unknown>)[key]);
      for (const position of ["before", "after"] as const) {
        const text = withDuplicate(original, path, key, value, position);
        const where = `${position} /${[...path, key].join("/")}`;
        let loaded: LoadedBundle;
        try {
          loaded = await loadBundle(text, VERIFY);
        } catch (error) {
          assert.ok(error instanceof PolicyError, `${where}: ${error}`);
          refused++;
          continue;
        }
        verified++;
        assert.equal(loaded.status.checksum, original.checksum, where);
        assert.equal(loaded.status.signature.status, "verified", where);
        assert.deepEqual(decisions(loaded), expected, where);
      }
    }
    // The signed value written last wins, so every "before" duplicate verifies; "after"
    // duplicates inside the payload or of the signature fail.
    assert.ok(verified > 0 && refused > 0, `verified ${verified}, refused ${refused}`);
  },
);

// Numbers -----------------------------------------------------------------------------------

hostileTest(
  import.meta.url,
  "1e400 cannot stand in for null in a signed bundle: a number that is not finite is BUNDLE_INVALID (NUMBER_NOT_FINITE)",
  async () => {
    // Signed meaning: allow unless "suspended" is set.
    const original = bundleOf([rule("r1", {
      when: { op: "eq", path: "suspended", value: null },
      elseEffect: { type: "deny" },
    })]);
    const signed = await signedText(original);
    assert.equal(
      createEvaluator((await loadBundle(signed, VERIFY)).compiled)({ target: TARGET }).decision,
      "allow",
    );
    // JSON.stringify writes Infinity as null, so a canonical payload holding 1e400 would equal
    // the signed one while the engine read "always false" (deny). It is refused instead.
    for (const literal of ["1e400", "-1e400", "1E+999"]) {
      const tampered = signed.replace('"value":null', `"value":${literal}`);
      assert.notEqual(tampered, signed);
      const error = await rejectsWith(loadBundle(tampered, VERIFY), "BUNDLE_INVALID");
      assert.deepEqual(error.issues.map((i) => [i.code, i.path]), [
        ["NUMBER_NOT_FINITE", "/policies/0/rules/0/when/value"],
      ]);
    }
    const inList = await signedText(bundleOf([rule("r1", {
      when: { op: "in", path: "suspended", values: [null] },
    })]));
    await rejectsWith(loadBundle(inList.replace("[null]", "[1e400]"), VERIFY), "BUNDLE_INVALID");
    // Anywhere in a rule or a default, known field or not.
    for (
      const document of [
        bundleOf([rule("r1", { extra: { n: "<n>" } })]),
        bundleOf([rule()], {}, { defaults: { effect: "deny", n: "<n>" } }),
      ]
    ) {
      const error = await rejectsWith(
        loadBundle(withRaw(document, { "<n>": "1e400" }), UNSIGNED),
        "BUNDLE_INVALID",
      );
      assert.deepEqual(issueCodes(error), ["NUMBER_NOT_FINITE"]);
    }
    // An overflowing priority is reported once, as a priority.
    const priority = await rejectsWith(
      loadBundle(
        withRaw(bundleOf([rule("r1", { priority: "<n>" })]), { "<n>": "1e400" }),
        UNSIGNED,
      ),
      "BUNDLE_INVALID",
    );
    assert.deepEqual(issueCodes(priority), ["INVALID_RULE_PRIORITY"]);
    // 1e-400 underflows to 0, a finite number: the same meaning as 0, and it verifies as 0.
    const zero = await signedText(
      bundleOf([rule("r1", { when: { op: "gt", path: "n", value: 0 } })]),
    );
    const underflow = zero.replace('"value":0', '"value":1e-400');
    assert.notEqual(underflow, zero);
    assert.equal((await loadBundle(underflow, VERIFY)).status.signature.status, "verified");
  },
);

hostileTest(
  import.meta.url,
  "NaN and Infinity in JavaScript objects are refused by validateBundle, compileBundle and signBundle",
  async () => {
    for (const bad of [NaN, Infinity, -Infinity]) {
      const withValue = bundleOf([rule("r1", { when: { op: "eq", path: "x", value: bad } })]);
      assert.deepEqual(validateBundle(withValue).errors.map((e) => e.code), ["NUMBER_NOT_FINITE"]);
      throwsWith(() => compileBundle(withValue), "BUNDLE_INVALID");
      await rejectsWith(
        signBundle(withValue as unknown as RuntimeBundleV1, {
          algorithm: "ECDSA_SHA_256",
          key: keys.privateKey,
          keyId: "k",
        }),
        "BUNDLE_INVALID",
      );
      const activeVersion = {
        ...bundleOf(),
        policies: [{ policyKey: "p", activeVersion: bad, rules: [] }],
      };
      assert.deepEqual(validateBundle(activeVersion).errors.map((e) => e.code), [
        "INVALID_ACTIVE_VERSION",
      ]);
      throwsWith(() => compileBundle(activeVersion), "BUNDLE_INVALID");
    }
  },
);

hostileTest(
  import.meta.url,
  "priorities at the ends of the double range (±1e308, ±5e-324, -0) are ordered correctly in any bundle order",
  async () => {
    const priorities = [
      1.7976931348623157e308,
      -1.7976931348623157e308,
      1e308,
      -1e308,
      5e-324,
      -5e-324,
      0,
      -0,
    ];
    const ruleOf = (p: number, i: number) => rule(`r${i}`, { priority: p });
    for (let round = 0; round < 20; round++) {
      const order = priorities.map((p, i) => ({ p, i, k: random.next() })).sort((a, b) =>
        a.k - b.k
      );
      const text = JSON.stringify(bundleOf(order.map(({ p, i }) => ruleOf(p, i))));
      const loaded = await loadBundle(text, UNSIGNED);
      const decision = createEvaluator(loaded.compiled)({ target: TARGET });
      assert.equal(decision.ruleId, "r0", `order ${order.map((o) => o.i)}`);
      // Without the top one, the next: 1e308 (r2).
      const rest = order.filter(({ i }) => i !== 0);
      const next = await loadBundle(
        JSON.stringify(bundleOf(rest.map(({ p, i }) => ruleOf(p, i)))),
        UNSIGNED,
      );
      assert.equal(createEvaluator(next.compiled)({ target: TARGET }).ruleId, "r2");
    }
    // -0 and 0 tie: bundle order decides.
    for (const [a, b] of [[0, -0], [-0, 0]]) {
      const loaded = await loadBundle(
        JSON.stringify(bundleOf([ruleOf(a!, 0), ruleOf(b!, 1)])),
        UNSIGNED,
      );
      assert.equal(createEvaluator(loaded.compiled)({ target: TARGET }).ruleId, "r0");
    }
  },
);

hostileTest(
  import.meta.url,
  "throttle rates that overflow to Infinity, or underflow, still pick the most restrictive throttle",
  async () => {
    const throttle = (id: string, limit: number, windowSeconds: number, priority = 1) =>
      rule(id, {
        priority,
        effect: { type: "throttle", throttle: { limit, windowSeconds, key: "k" } },
      });
    const cases: [Record<string, unknown>[], string][] = [
      [[throttle("inf", 1e308, 5e-324), throttle("one", 1, 1)], "one"],
      [[throttle("one", 1, 1), throttle("inf", 1e308, 5e-324)], "one"],
      // Two infinite rates tie: the higher priority wins, whatever the order.
      [[throttle("inf1", 1e308, 5e-324, 1), throttle("inf2", 1e308, 1e-308, 2)], "inf2"],
      [[throttle("inf2", 1e308, 1e-308, 2), throttle("inf1", 1e308, 5e-324, 1)], "inf2"],
      [[throttle("zero", 0, 5e-324), throttle("tiny", 5e-324, 1e308)], "zero"],
    ];
    for (const [rules, winner] of cases) {
      const loaded = await loadBundle(JSON.stringify(bundleOf(rules)), UNSIGNED);
      assert.equal(createEvaluator(loaded.compiled)({ target: TARGET }).ruleId, winner);
    }
  },
);

hostileTest(
  import.meta.url,
  "-0 and 0, and 2^53+1 and 2^53, are the same parsed number: they share a signature and the same meaning",
  async () => {
    const signed = await signedText(bundleOf([rule("r1", {
      priority: 0,
      when: { op: "eq", path: "n", value: 9007199254740992 },
      elseEffect: { type: "deny" },
    })]));
    const variant = signed.replace('"priority":0', '"priority":-0').replace(
      "9007199254740992",
      "9007199254740993",
    );
    assert.notEqual(variant, signed);
    const a = await loadBundle(signed, VERIFY);
    const b = await loadBundle(variant, VERIFY);
    assert.equal(b.status.signature.status, "verified");
    assert.equal(a.status.checksum, b.status.checksum);
    for (const n of [9007199254740992, 9007199254740993, 9007199254740991, 0]) {
      const request = { target: TARGET, context: { n } };
      assert.deepEqual(createEvaluator(b.compiled)(request), createEvaluator(a.compiled)(request));
    }
    // eq with -0 matches 0 (=== semantics), like the canonical payload, which writes -0 as 0.
    const zero = await loadBundle(
      JSON.stringify(bundleOf([rule("r1", { when: { op: "eq", path: "n", value: -0 } })])),
      UNSIGNED,
    );
    assert.equal(
      createEvaluator(zero.compiled)({ target: TARGET, context: { n: 0 } }).decision,
      "allow",
    );
    // bundleVersion must be a safe integer: 2^53 + 1 parses to 2^53, which is not.
    for (const version of ["9007199254740993", "1e308", "1.5", "0", "-1"]) {
      const error = await rejectsWith(
        loadBundle(
          withRaw(bundleOf([rule()], { bundleVersion: "<v>" }), { "<v>": version }),
          UNSIGNED,
        ),
        "BUNDLE_INVALID",
      );
      assert.deepEqual(error.issues.map((i) => i.path), ["/bundleVersion"], version);
    }
  },
);

hostileTest(
  import.meta.url,
  "numeric-looking strings stay strings: distinct keys and ids, strict equality, ordering only for exact JSON number literals",
  async () => {
    const loaded = await loadBundle(
      JSON.stringify({
        schemaVersion: 1,
        env: "prod",
        policies: ["1000", "1e3", "01", "1"].map((policyKey, i) => ({
          policyKey,
          activeVersion: 1,
          rules: [
            rule("1"),
            rule("01", { status: "disabled" }),
            rule("1.0", { status: "disabled" }),
          ]
            .map((r) => ({ ...r, target: { ...TARGET, action: `a${i}` } })),
        })),
      }),
      UNSIGNED,
    );
    assert.equal(loaded.status.policies, 4);
    const evaluate = createEvaluator(loaded.compiled);
    assert.equal(evaluate({ target: { ...TARGET, action: "a1" } }).policyKey, "1e3");
    const ruleOf = (when: unknown) =>
      createEvaluator(compileBundle(bundleOf([rule("r1", { when })])));
    const eq = ruleOf({ op: "eq", path: "0", value: 1000 });
    assert.equal(eq({ target: TARGET, context: { "0": 1000 } }).decision, "allow");
    for (const v of ["1000", "1e3", "1000.0"]) {
      assert.equal(eq({ target: TARGET, context: { "0": v } }).decision, "deny", v);
    }
    const gt = ruleOf({ op: "gt", path: "n", value: "999" });
    for (
      const [v, want] of [
        ["1e3", "allow"],
        ["1000", "allow"],
        [" 1000", "deny"],
        ["0x3e8", "deny"],
        ["Infinity", "deny"],
        ["1e999", "deny"],
        ["+1000", "deny"],
        ["01000", "deny"],
      ] as const
    ) {
      assert.equal(gt({ target: TARGET, context: { n: v } }).decision, want, v);
    }
    // Integer-like keys sort as strings in the canonical payload ("10" < "9" < "__proto__" < "a"),
    // not in the order JavaScript enumerates them (integers first).
    const document = JSON.parse('{"b":1,"a":2,"9":3,"10":4,"__proto__":5,"-1":6,"1.5":7}');
    assert.deepEqual(Object.keys(document).slice(0, 2), ["9", "10"]);
    assert.equal(
      canonicalJson(document),
      '{"-1":6,"1.5":7,"10":4,"9":3,"__proto__":5,"a":2,"b":1}',
    );
  },
);
