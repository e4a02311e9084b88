/**
 * Deep nesting, through every stage that walks a document: JSON.parse,
 * validation, the canonical payload, compilation, evaluation, and the local
 * client. V8's JSON.parse is iterative: it parses 200,000 levels, and the
 * 4 million levels that fit in 8 MiB, without overflowing the stack, so the
 * stages after it must bound their own recursion. Each case runs in its own
 * worker under a deadline (see `_isolated.ts`).
 */
import { makeTempDir } from "../temp_dir.ts";
import assert from "node:assert/strict";
import {
  compileBundle,
  createEvaluator,
  createLocalClient,
  loadBundle,
  type RuntimeBundleV1,
  signBundle,
  validateBundle,
} from "../../mod.ts";
import { canonicalJson, computeDigest } from "../../src/engine/mod.ts";

import { hostileTest } from "./_isolated.ts";
import { LONG, noteLong, sampled } from "../_long.ts";
import {
  bundleOf,
  deepArray,
  deepObject,
  issueCodes,
  keys,
  notChain,
  rejectsWith,
  rule,
  signedText,
  TARGET,
  throwsWith,
  VERIFY,
  withRaw,
} from "./_inputs.ts";

const DEEP = 200_000;
const UNSIGNED = { allowUnsigned: true };

hostileTest(
  import.meta.url,
  "conditions nest 64 deep at most: 65 is BUNDLE_INVALID (CONDITION_TOO_DEEP), 64 loads and evaluates",
  async () => {
    for (const depth of [64, 65]) {
      const text = withRaw(bundleOf([rule("r1", { when: "<when>" })]), {
        "<when>": notChain(depth),
      });
      if (depth === 64) {
        const loaded = await loadBundle(text, UNSIGNED);
        // 63 nots around `exists x`: odd, so true when x is absent.
        const decide = createEvaluator(loaded.compiled);
        assert.equal(decide({ target: TARGET }).decision, "allow");
        assert.equal(decide({ target: TARGET, context: { x: 1 } }).decision, "deny");
      } else {
        const error = await rejectsWith(loadBundle(text, UNSIGNED), "BUNDLE_INVALID");
        assert.deepEqual(issueCodes(error), ["CONDITION_TOO_DEEP"]);
      }
    }
  },
);

hostileTest(
  import.meta.url,
  "a condition nested 200,000 deep is CONDITION_TOO_DEEP in loadBundle, validateBundle and compileBundle, never a stack overflow",
  async () => {
    for (const when of [notChain(DEEP), andChain(DEEP)]) {
      const text = withRaw(bundleOf([rule("r1", { when: "<when>" })]), { "<when>": when });
      assert.ok(text.length < 8 * 1024 * 1024, "within the default maxFileBytes");
      const error = await rejectsWith(loadBundle(text, UNSIGNED), "BUNDLE_INVALID");
      assert.deepEqual(issueCodes(error), ["CONDITION_TOO_DEEP"]);
      const document = JSON.parse(text);
      assert.deepEqual(validateBundle(document).errors.map((e) => e.code), ["CONDITION_TOO_DEEP"]);
      // Without validation, the compiler and the canonical payload bound their recursion too.
      throwsWith(() => compileBundle(document, { skipValidation: true }), "BUNDLE_INVALID");
      throwsWith(() => canonicalJson(document), "BUNDLE_INVALID");
      await rejectsWith(computeDigest(document as RuntimeBundleV1), "BUNDLE_INVALID");
    }
  },
);

hostileTest(
  import.meta.url,
  "a whole document nested 200,000 deep is BUNDLE_INVALID (JSON.parse copes; validation does not recurse into it)",
  async () => {
    for (const text of [deepArray(DEEP), deepObject(DEEP)]) {
      const error = await rejectsWith(loadBundle(text, UNSIGNED), "BUNDLE_INVALID");
      assert.ok(issueCodes(error).length > 0);
      assert.equal(validateBundle(JSON.parse(text)).valid, false);
    }
  },
);

hostileTest(
  import.meta.url,
  "the deepest JSON that fits in 8 MiB (4 million levels) is BUNDLE_INVALID, and one byte more is BUNDLE_TOO_LARGE",
  async () => {
    const depth = 4 * 1024 * 1024;
    const text = deepArray(depth);
    assert.equal(text.length, 8 * 1024 * 1024);
    const error = await rejectsWith(loadBundle(text, UNSIGNED), "BUNDLE_INVALID");
    assert.deepEqual(issueCodes(error), ["DOCUMENT_NOT_OBJECT"]);
    await rejectsWith(loadBundle(deepArray(depth + 1), UNSIGNED), "BUNDLE_TOO_LARGE");
  },
  { seconds: 40 },
);

/**
 * 200,000 levels in each place of a bundle. Inside the signed payload, the
 * bundle is refused with the issue named; outside it (fields the engine
 * never reads), the deep value is never walked and the bundle loads.
 */
const PLACES: {
  where: string;
  document: unknown;
  /** The issues, or null when the bundle loads. */
  issues: string[] | null;
  /** The issues when the deep value is an object, if they differ. */
  objectIssues?: string[];
}[] = [
  {
    where: "a policy",
    document: { schemaVersion: 1, env: "prod", policies: ["<deep>"] },
    issues: ["POLICY_NOT_OBJECT"],
    objectIssues: ["MISSING_POLICY_KEY", "INVALID_ACTIVE_VERSION", "RULES_NOT_ARRAY"],
  },
  {
    where: "a rule",
    document: bundleOf(["<deep>"]),
    issues: ["RULE_NOT_OBJECT"],
    objectIssues: [
      "MISSING_RULE_ID",
      "INVALID_RULE_STATUS",
      "INVALID_RULE_PRIORITY",
      "INVALID_RULE_TARGET",
      "INVALID_RULE_EFFECT",
      "DOCUMENT_TOO_DEEP",
    ],
  },
  {
    where: "an unknown field of a rule",
    document: bundleOf([rule("r1", { extra: "<deep>" })]),
    issues: ["DOCUMENT_TOO_DEEP"],
  },
  {
    where: "a condition value",
    document: bundleOf([rule("r1", { when: { op: "eq", path: "x", value: "<deep>" } })]),
    issues: ["DOCUMENT_TOO_DEEP"],
  },
  {
    where: "the values of an in condition",
    document: bundleOf([rule("r1", { when: { op: "in", path: "x", values: ["<deep>"] } })]),
    issues: ["DOCUMENT_TOO_DEEP"],
  },
  {
    where: "a target field",
    document: bundleOf([rule("r1", { target: { ...TARGET, service: "<deep>" } })]),
    issues: ["INVALID_RULE_TARGET", "DOCUMENT_TOO_DEEP"],
  },
  {
    where: "a throttle descriptor",
    document: bundleOf([
      rule("r1", {
        effect: { type: "throttle", throttle: { limit: 1, windowSeconds: 1, key: "<deep>" } },
      }),
    ]),
    issues: ["INVALID_RULE_EFFECT", "DOCUMENT_TOO_DEEP"],
  },
  {
    where: "an unknown field of a policy default",
    document: bundleOf([rule()], {}, { defaults: { effect: "deny", extra: "<deep>" } }),
    issues: ["DOCUMENT_TOO_DEEP"],
  },
  {
    where: "a kill switch default descriptor",
    document: bundleOf([rule()], {}, {
      defaults: { effect: "kill_switch", killSwitch: { service: "s", reason: "<deep>" } },
    }),
    issues: ["INVALID_DEFAULT_EFFECT", "DOCUMENT_TOO_DEEP"],
  },
  { where: "orgId", document: bundleOf([rule()], { orgId: "<deep>" }), issues: ["INVALID_FIELD"] },
  {
    where: "generatedAt",
    document: bundleOf([rule()], { generatedAt: "<deep>" }),
    issues: ["INVALID_FIELD"],
  },
  // Outside the payload: never walked.
  {
    where: "an unknown top-level field",
    document: bundleOf([rule()], { x: "<deep>" }),
    issues: null,
  },
  {
    where: "an unknown field of a policy (friendlyName)",
    document: bundleOf([rule()], {}, { friendlyName: "<deep>" }),
    issues: null,
  },
];

/** The places the quick suite tries: a policy's member, a condition, a payload field, outside it. */
const QUICK_PLACES = new Set([
  "a rule",
  "a condition value",
  "orgId",
  "an unknown top-level field",
]);
noteLong(
  "tests/hostile/deep_nesting_test.ts",
  `${PLACES.length - QUICK_PLACES.size} of the ${PLACES.length} places of 200,000 levels`,
);

hostileTest(
  import.meta.url,
  "JSON nested 200,000 deep anywhere in a bundle is refused with the issue named when the engine would read it, and never walked when it would not",
  async () => {
    const places = sampled(PLACES, (place) => QUICK_PLACES.has(place.where));
    assert.equal(places.length, LONG ? PLACES.length : QUICK_PLACES.size);
    for (const { where, document, issues, objectIssues } of places) {
      for (const deep of [deepArray(DEEP), deepObject(DEEP)]) {
        const text = withRaw(document, { "<deep>": deep });
        const expected = deep.startsWith("{") && objectIssues ? objectIssues : issues;
        if (expected === null) {
          const loaded = await loadBundle(text, UNSIGNED);
          assert.equal(loaded.status.policies, 1, where);
          continue;
        }
        const error = await rejectsWith(loadBundle(text, UNSIGNED), "BUNDLE_INVALID");
        assert.deepEqual(issueCodes(error).sort(), [...expected].sort(), where);
        // validateBundle agrees with the load: it never calls a bundle valid that cannot load.
        assert.equal(validateBundle(JSON.parse(text)).valid, false, where);
      }
    }
  },
);

hostileTest(
  import.meta.url,
  "a signed bundle carrying 200,000 levels outside the payload (top level, policy, signature) still verifies",
  async () => {
    const signed = JSON.parse(await signedText(bundleOf()));
    signed.x = "<a>";
    signed.policies[0].friendlyName = "<b>";
    signed.signature.extra = "<c>";
    const text = withRaw(signed, {
      "<a>": deepArray(DEEP),
      "<b>": deepObject(DEEP),
      "<c>": deepArray(DEEP),
    });
    const loaded = await loadBundle(text, VERIFY);
    assert.equal(loaded.status.signature.status, "verified");
  },
);

hostileTest(
  import.meta.url,
  "signBundle refuses a bundle nested too deep with BUNDLE_INVALID, never a RangeError or an unhandled rejection",
  async () => {
    const sign = (document: unknown) =>
      signBundle(document as RuntimeBundleV1, {
        algorithm: "ECDSA_SHA_256",
        key: keys.privateKey,
        keyId: "k",
      });
    // Deeper than the canonical payload allows, in a default.
    const inDefault = JSON.parse(withRaw(
      bundleOf([rule()], {}, {
        defaults: { effect: "deny", extra: "<deep>" },
      }),
      { "<deep>": deepArray(600) },
    ));
    await rejectsWith(sign(inDefault), "BUNDLE_INVALID");
    // Deeper than structuredClone copes with, outside the payload.
    const outside = JSON.parse(
      withRaw(bundleOf([rule()], { x: "<deep>" }), { "<deep>": deepArray(DEEP) }),
    );
    await rejectsWith(sign(outside), "BUNDLE_INVALID");
  },
);

hostileTest(
  import.meta.url,
  "the local client refuses a bundle file nested 200,000 deep with BUNDLE_INVALID",
  async () => {
    const { dir, remove } = await makeTempDir("hostile-");
    try {
      const bundlePath = `${dir}/bundle.json`;
      await Deno.writeTextFile(bundlePath, deepArray(DEEP));
      await rejectsWith(createLocalClient({ bundlePath, allowUnsigned: true }), "BUNDLE_INVALID");
      await Deno.writeTextFile(
        bundlePath,
        withRaw(bundleOf([rule("r1", { when: "<w>" })]), { "<w>": notChain(DEEP) }),
      );
      await rejectsWith(createLocalClient({ bundlePath, allowUnsigned: true }), "BUNDLE_INVALID");
    } finally {
      await remove();
    }
  },
);

hostileTest(
  import.meta.url,
  "evaluate() reads a context nested 200,000 deep, and a 1,000-segment path, with recursion bounded at 16 levels",
  async () => {
    const path = Array.from({ length: 1000 }, () => "a").join(".");
    const loaded = await loadBundle(
      JSON.stringify(bundleOf([rule("r1", {
        when: { op: "eq", path: `ctx.${path}`, value: 1 },
        elseEffect: { type: "deny" },
      })])),
      UNSIGNED,
    );
    const decide = createEvaluator(loaded.compiled);
    assert.equal(
      decide({ target: TARGET, context: JSON.parse(deepObject(1000)) }).decision,
      "allow",
    );
    assert.equal(
      decide({ target: TARGET, context: JSON.parse(deepObject(DEEP)) }).decision,
      "deny",
    );
    assert.equal(decide({ target: TARGET, context: JSON.parse(deepObject(999)) }).decision, "deny");
  },
);

hostileTest(
  import.meta.url,
  "parseCustomEffect parses a custom value nested 200,000 deep without overflowing",
  async () => {
    const loaded = await loadBundle(
      JSON.stringify(
        bundleOf([rule("r1", { effect: { type: "custom", value: deepArray(DEEP) } })]),
      ),
      UNSIGNED,
    );
    const decision = createEvaluator(loaded.compiled, { parseCustomEffect: true })({
      target: TARGET,
    });
    assert.equal(decision.decision, "custom");
    assert.ok(Array.isArray(decision.parsedValue));
  },
);

/** An `and` chain (legacy `args`) of `depth` conditions: each `and` holds the next. */
function andChain(depth: number): string {
  const leaf = '{"op":"exists","path":"x"}';
  return '{"op":"and","args":['.repeat(depth - 1) + leaf + "]}".repeat(depth - 1);
}
