/**
 * Huge inputs: 10 MB strings in every kind of field, as many rules as fit in
 * the size limit, a million rules, huge `in` lists and `and`s, huge context
 * keys and values. `maxFileBytes` (default 8 MiB) is the only bound on a
 * bundle's size and so on its number of rules; everything the engine does
 * is linear in the bundle's size. Each case runs in its own worker under a
 * deadline (see `_isolated.ts`).
 */
import { makeTempDir } from "../temp_dir.ts";
import assert from "node:assert/strict";
import { createEvaluator, createLocalClient, loadBundle, PolicyError } from "../../mod.ts";
import { DEFAULT_MAX_FILE_BYTES } from "../../src/verify/load_bundle.ts";

import { hostileTest } from "./_isolated.ts";
import { LONG, noteLong } from "../_long.ts";
import { bundleOf, rejectsWith, rule, signedText, TARGET, timed, VERIFY } from "./_inputs.ts";
import { HANG_BOUND_MS } from "../_hang_bound.ts";

const TEN_MB = 10_000_000;
const UNSIGNED = { allowUnsigned: true };
const RAISED = { maxFileBytes: 64 * 1024 * 1024 };

/** A 10 MB string of one repeated character (plus a marker, so two of them can differ). */
const huge = (marker = "") => "x".repeat(TEN_MB) + marker;

noteLong(
  "tests/hostile/huge_inputs_test.ts",
  "3 of its 5 cases (10 MB fields, 8 MiB of rules, huge lists)",
);

hostileTest(
  import.meta.url,
  "10 MB strings in any field: BUNDLE_TOO_LARGE under the default limit; with maxFileBytes raised they sign, verify and evaluate",
  async () => {
    const big = huge();
    const fields: [string, Record<string, unknown>][] = [
      ["policyKey", { policies: [{ policyKey: big, activeVersion: 1, rules: [rule()] }] }],
      ["rule id", bundleOf([rule(big)])],
      ["description", bundleOf([rule("r1", { description: big })])],
      ["target.service", bundleOf([rule("r1", { target: { ...TARGET, service: big } })])],
      ["condition value", bundleOf([rule("r1", { when: { op: "eq", path: "v", value: big } })])],
      ["condition path", bundleOf([rule("r1", { when: { op: "exists", path: big } })])],
      ["in values", bundleOf([rule("r1", { when: { op: "in", path: "v", values: [big] } })])],
      ["custom value", bundleOf([rule("r1", { effect: { type: "custom", value: big } })])],
      [
        "kill switch reason",
        bundleOf([rule("r1", {
          effect: { type: "kill_switch", killSwitch: { service: "s", reason: big } },
        })]),
      ],
    ];
    for (const [field, document] of fields) {
      const full = { schemaVersion: 1, env: "prod", ...document };
      const text = await signedText(full);
      assert.ok(text.length > DEFAULT_MAX_FILE_BYTES, field);
      await rejectsWith(loadBundle(text, VERIFY), "BUNDLE_TOO_LARGE");
      const { ms, value: loaded } = await timed(() => loadBundle(text, { ...VERIFY, ...RAISED }));
      assert.equal(loaded.status.signature.status, "verified", field);
      assert.ok(ms < HANG_BOUND_MS, `${field}: loaded in ${Math.round(ms)} ms`);
    }
    // Evaluation with 10 MB on both sides of an equality, and as a target.
    const target = { ...TARGET, service: huge() };
    const loaded = await loadBundle(
      JSON.stringify(bundleOf([
        rule("r1", { target, when: { op: "eq", path: "v", value: huge("!") } }),
      ])),
      { ...UNSIGNED, ...RAISED },
    );
    const evaluate = createEvaluator(loaded.compiled);
    assert.equal(evaluate({ target: { ...target }, context: { v: huge("!") } }).decision, "allow");
    assert.equal(evaluate({ target: { ...target }, context: { v: huge("?") } }).decision, "deny");
    assert.equal(evaluate({ target: TARGET, context: { v: huge("!") } }).decision, "deny");
  },
  { ignore: !LONG },
);

hostileTest(
  import.meta.url,
  "a 10 MB context key, value or path is evaluated in bounded time; a refused context key is named in at most 100 characters, JSON-quoted",
  async () => {
    const loaded = await loadBundle(
      JSON.stringify(bundleOf([rule("r1", {
        when: { op: "in", path: "plan", values: ["pro", "enterprise"] },
        elseEffect: { type: "deny" },
      })])),
      UNSIGNED,
    );
    const open = createEvaluator(loaded.compiled);
    const { ms } = await timed(() => {
      for (let i = 0; i < 100; i++) {
        assert.equal(
          open({ target: TARGET, context: { plan: huge(), [huge()]: 1 } }).decision,
          "deny",
        );
      }
    });
    assert.ok(ms < HANG_BOUND_MS, `${Math.round(ms)} ms`);
    const strict = createEvaluator(loaded.compiled, { contextPolicy: { allowedKeys: ["plan"] } });
    for (const key of [huge(), "evil\nlevel=error msg=forged", '"quoted"']) {
      try {
        strict({ target: TARGET, context: { plan: "pro", [key]: 1 } });
        assert.fail("the key is not allowed");
      } catch (error) {
        assert.ok(error instanceof PolicyError && error.code === "CONTEXT_KEY_NOT_ALLOWED");
        assert.ok(error.message.length < 300, `message of ${error.message.length} characters`);
        assert.ok(!error.message.includes("\n"), "no raw newline from the key");
        assert.ok(error.message.includes(JSON.stringify(key.slice(0, 20)).slice(0, -1)));
      }
    }
  },
);

/** The minimal rule `i`, at one target or at a distinct one per rule. */
function minimalRule(i: number, sameTarget: boolean): string {
  const action = sameTarget ? "a" : `a${i}`;
  const effect = i % 3 === 0 ? "deny" : "allow";
  return `{"id":"${i}","status":"active","priority":${
    i % 7
  },"target":{"service":"s","resource":"r","action":"${action}"},"effect":{"type":"${effect}"}}`;
}

const HEAD =
  '{"schemaVersion":1,"env":"prod","policies":[{"policyKey":"p","activeVersion":1,"rules":[';
const TAIL = "]}]}";

/** A bundle of as many minimal rules as fit in `limit` bytes once signed. */
function fillingBundle(sameTarget: boolean, limit: number): { text: string; count: number } {
  const room = limit - HEAD.length - TAIL.length - 512; // checksum and signature
  const rules: string[] = [];
  let size = 0;
  for (let i = 0;; i++) {
    const next = minimalRule(i, sameTarget);
    if (size + next.length + 1 > room) break;
    rules.push(next);
    size += next.length + 1;
  }
  return { text: HEAD + rules.join(",") + TAIL, count: rules.length };
}

hostileTest(
  import.meta.url,
  "as many minimal rules as fit in 8 MiB (about 60,000) load, verify and evaluate in bounded time, at one target or at distinct ones",
  async () => {
    for (const sameTarget of [true, false]) {
      const filling = fillingBundle(sameTarget, DEFAULT_MAX_FILE_BYTES);
      const count = filling.count;
      const text = await signedText(JSON.parse(filling.text));
      assert.ok(text.length <= DEFAULT_MAX_FILE_BYTES, `${text.length} bytes`);
      const { ms, value: loaded } = await timed(() => loadBundle(text, VERIFY));
      assert.equal(loaded.compiled.ruleCount, count);
      assert.ok(ms < HANG_BOUND_MS, `${count} rules loaded in ${Math.round(ms)} ms`);
      const evaluate = createEvaluator(loaded.compiled);
      const request = { target: { service: "s", resource: "r", action: sameTarget ? "a" : "a0" } };
      const evaluated = await timed(() => {
        for (let i = 0; i < 20; i++) assert.equal(evaluate(request).decision, "deny");
      });
      // At one target, every evaluation visits every rule of it: linear, but bounded by the size.
      assert.ok(evaluated.ms < HANG_BOUND_MS, `20 evaluations in ${Math.round(evaluated.ms)} ms`);
    }
  },
  { ignore: !LONG, seconds: 60 },
);

hostileTest(
  import.meta.url,
  "a million rules (about 110 MB) are refused with BUNDLE_TOO_LARGE before anything is parsed: loadBundle, and the local client before reading the file",
  async () => {
    const one =
      '{"id":"r","status":"active","priority":0,"target":{"service":"s","resource":"r","action":"a"},"effect":{"type":"allow"}},';
    const text =
      `{"schemaVersion":1,"env":"prod","policies":[{"policyKey":"p","activeVersion":1,"rules":[${
        one.repeat(1_000_000)
      }]}]}`;
    const bytes = new TextEncoder().encode(text);
    const { ms } = await timed(() => rejectsWith(loadBundle(bytes, UNSIGNED), "BUNDLE_TOO_LARGE"));
    assert.ok(ms < HANG_BOUND_MS, `refused in ${Math.round(ms)} ms`);
    // Before parsing: as many bytes that are not JSON get the same code, not BUNDLE_PARSE_ERROR.
    await rejectsWith(loadBundle(bytes.fill(0x78), UNSIGNED), "BUNDLE_TOO_LARGE");
    // The local client checks the size with stat: a sparse file of that size is never read.
    const { dir, remove } = await makeTempDir("hostile-");
    try {
      const bundlePath = `${dir}/bundle.json`;
      await Deno.writeTextFile(bundlePath, "");
      await Deno.truncate(bundlePath, bytes.byteLength);
      const local = await timed(() =>
        rejectsWith(createLocalClient({ bundlePath, allowUnsigned: true }), "BUNDLE_TOO_LARGE")
      );
      assert.ok(local.ms < HANG_BOUND_MS, `refused in ${Math.round(local.ms)} ms`);
    } finally {
      await remove();
    }
  },
);

hostileTest(
  import.meta.url,
  "a huge in list (a million values), a wide and (250,000 children) and a path of a million segments fit in 8 MiB and evaluate linearly",
  async () => {
    const values = Array.from({ length: 1_000_000 }, (_, i) => i % 10);
    const children = Array.from(
      { length: 250_000 },
      (_, i) => ({ op: "exists", path: `k${i % 10}` }),
    );
    const path = Array.from({ length: 1_000_000 }, () => "a").join(".");
    const cases: [string, unknown, Record<string, unknown>, Record<string, unknown>][] = [
      ["in", { op: "in", path: "v", values: [...values, "needle"] }, { v: "needle" }, { v: "hay" }],
      [
        "and",
        { op: "and", conditions: children },
        Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`k${i}`, 1])),
        { k0: 1 },
      ],
      ["path", { op: "exists", path }, {}, { a: { a: 1 } }],
    ];
    for (const [name, when, context, other] of cases) {
      const text = JSON.stringify(bundleOf([rule("r1", { when, elseEffect: { type: "deny" } })]));
      assert.ok(text.length <= DEFAULT_MAX_FILE_BYTES, `${name}: ${text.length} bytes`);
      const loaded = await loadBundle(text, UNSIGNED);
      const evaluate = createEvaluator(loaded.compiled);
      const { ms } = await timed(() => {
        for (let i = 0; i < 10; i++) {
          evaluate({ target: TARGET, context });
          evaluate({ target: TARGET, context: other });
        }
      });
      assert.ok(ms < HANG_BOUND_MS, `${name}: 20 evaluations in ${Math.round(ms)} ms`);
      if (name !== "path") {
        assert.equal(evaluate({ target: TARGET, context }).decision, "allow", name);
      }
      assert.equal(evaluate({ target: TARGET, context: other }).decision, "deny", name);
    }
  },
  { ignore: !LONG },
);
