// Traces explain conditions leaf by leaf (docs/bundle-format.md "Traces"): the tree with each
// leaf's path, operator, operand, the value read and the outcome, the first leaf that made a
// `when` false, values cut to a bound and never more than the request held, and one renderer for
// conditions as written and as tested, including unknown operators, legacy spellings and
// malformed nodes.
import assert from "node:assert/strict";
import {
  compileBundle,
  type ConditionTrace,
  evaluate,
  formatCondition,
  formatConditionTrace,
  MAX_TRACED_STRING,
  policiesOf,
  type Rule,
  traceEvaluation,
} from "../../src/engine/mod.ts";

const target = { service: "billing", resource: "invoice", action: "create" };

/** A bundle of one policy whose rules have the given conditions, in order. */
function bundleWith(...conditions: unknown[]) {
  return compileBundle({
    schemaVersion: 1,
    env: "prod",
    policies: [{
      policyKey: "p",
      activeVersion: 1,
      defaults: { effect: "allow" },
      rules: conditions.map((when, i) => ({
        id: `r${i}`,
        status: "active",
        priority: 10 - i,
        target,
        when,
        effect: { type: "deny" },
      } as Rule)),
    }],
  });
}

function trace(when: unknown, context: Record<string, unknown>) {
  return traceEvaluation(bundleWith(when), { target, context }).rules[0]!;
}

const FREE_MANY_SEATS = {
  op: "and",
  conditions: [
    { op: "eq", path: "plan", value: "free" },
    { op: "gt", path: "seats", value: 5 },
  ],
};

Deno.test("a skipped rule's trace names the leaf that made its condition false, with the value read", () => {
  const rule = trace(FREE_MANY_SEATS, { plan: "free", seats: 3 });
  assert.equal(rule.outcome, "skipped (when_false)");
  assert.deepEqual(rule.condition, {
    kind: "and",
    outcome: false,
    conditions: [
      {
        kind: "leaf",
        op: "eq",
        path: "plan",
        operand: "free",
        operandCount: null,
        problem: null,
        value: "free",
        absent: false,
        outcome: true,
      },
      {
        kind: "leaf",
        op: "gt",
        path: "seats",
        operand: 5,
        operandCount: null,
        problem: null,
        value: 3,
        absent: false,
        outcome: false,
      },
    ],
  });
  assert.equal(
    rule.falseBecause,
    (rule.condition as { conditions: ConditionTrace[] }).conditions[1],
  );
  assert.equal(formatConditionTrace(rule.condition!), 'plan == "free" ✓ and seats (3) > 5 ✗');
  assert.equal(formatConditionTrace(rule.falseBecause!), "seats (3) > 5 ✗");
  // Every leaf is tested, also after the first false one: the trace shows them all.
  const both = trace(FREE_MANY_SEATS, { plan: "pro" });
  assert.equal(
    formatConditionTrace(both.condition!),
    'plan ("pro") == "free" ✗ and seats (absent) > 5 ✗',
  );
  assert.equal(formatConditionTrace(both.falseBecause!), 'plan ("pro") == "free" ✗');
  // A true condition has no falseBecause.
  const fired = trace(FREE_MANY_SEATS, { plan: "free", seats: 9 });
  assert.equal(fired.outcome, "fired (when_true)");
  assert.equal(fired.falseBecause, null);
});

Deno.test("falseBecause follows not and or: the leaf whose outcome decided", () => {
  const when = {
    op: "or",
    conditions: [
      { op: "eq", path: "region", value: "eu" },
      { op: "not", condition: { op: "exists", path: "user.beta" } },
    ],
  };
  const rule = trace(when, { region: "us", user: { beta: true } });
  assert.equal(
    formatConditionTrace(rule.condition!),
    'region ("us") == "eu" ✗ or not (user.beta (true) exists ✓) ✗',
  );
  // An `or` that is false: its first child stands for all of them.
  assert.equal(formatConditionTrace(rule.falseBecause!), 'region ("us") == "eu" ✗');
  const notOnly = trace(when.conditions[1], { user: { beta: 0 } });
  assert.equal(formatConditionTrace(notOnly.falseBecause!), "user.beta (0) exists ✓");
  const nested = trace({ op: "and", conditions: [when, { op: "exists", path: "x" }] }, {
    region: "us",
    user: {},
  });
  assert.equal(
    formatConditionTrace(nested.condition!),
    '(region ("us") == "eu" ✗ or not (user.beta (absent) exists ✗) ✓) ✓ and x (absent) exists ✗',
  );
  assert.equal(formatConditionTrace(nested.falseBecause!), "x (absent) exists ✗");
});

Deno.test("trace values are cut to a bound: the trace of a huge request stays small", () => {
  const long = "x".repeat(1_000_000);
  const list = Array.from({ length: 100_000 }, (_, i) => i);
  const big = Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`k${i}`, long]));
  const when = {
    op: "and",
    conditions: [
      { op: "eq", path: "name", value: "n" },
      { op: "exists", path: "list" },
      { op: "exists", path: "big" },
      { op: "in", path: "n", values: Array.from({ length: 1_000 }, (_, i) => `v${i}`) },
    ],
  };
  const rule = trace(when, { name: long, list, big, n: 3 });
  const text = JSON.stringify(rule);
  assert.ok(text.length < 3_000, `trace JSON is ${text.length} characters`);
  const [name, listLeaf, bigLeaf, inLeaf] = (rule.condition as { conditions: ConditionTrace[] })
    .conditions as (ConditionTrace & { value: unknown; operand: unknown; operandCount: unknown })[];
  assert.deepEqual(name!.value, {
    type: "string",
    preview: `"${"x".repeat(MAX_TRACED_STRING - 1)}…`,
    length: 1_000_000,
  });
  assert.deepEqual(listLeaf!.value, {
    type: "array",
    preview: `[${Array.from({ length: 30 }, (_, i) => i).join(", ")}`.slice(0, 64) + "…",
    length: 100_000,
  });
  const preview = (bigLeaf!.value as { preview: string }).preview;
  assert.ok(preview.startsWith('{"k0": "xxxx') && preview.endsWith("…") && preview.length === 65);
  assert.equal((inLeaf!.operand as unknown[]).length, 16);
  assert.equal(inLeaf!.operandCount, 1_000);
  assert.match(
    formatConditionTrace(inLeaf as ConditionTrace),
    /^n \(3\) in \["v0", "v1", .*"v15", … 984 more\] ✗$/,
  );
});

Deno.test("a trace shows nothing the request did not hold: inherited and prototype keys read as absent", () => {
  const inherited = Object.create({ plan: "free" });
  inherited.seats = 9;
  const rule = trace(
    {
      op: "and",
      conditions: [
        { op: "exists", path: "constructor" },
        { op: "exists", path: "user.toString" },
        { op: "eq", path: "user.org.plan", value: "free" },
        { op: "exists", path: "__proto__" },
      ],
    },
    { user: { org: inherited } },
  );
  const leaves = (rule.condition as { conditions: { value: unknown; absent: boolean }[] })
    .conditions;
  assert.deepEqual(leaves.map((l) => [l.value, l.absent]), [
    [null, true],
    [null, true],
    [null, true], // org is not a plain object: not traversed
    [null, true],
  ]);
  // A value that is not a plain object is named, not walked.
  const date = trace({ op: "exists", path: "at" }, { at: new Date(0) });
  assert.deepEqual((date.condition as { value: unknown }).value, {
    type: "object",
    preview: "(not a plain object)",
    length: null,
  });
  // NaN and Infinity are not JSON: summarised.
  const nan = trace({ op: "gt", path: "n", value: 1 }, { n: Infinity });
  assert.deepEqual((nan.condition as { value: unknown }).value, {
    type: "number",
    preview: "Infinity",
    length: null,
  });
  assert.deepEqual(JSON.parse(JSON.stringify(nan)), nan);
});

Deno.test("one renderer: conditions as written, legacy spellings, unknown operators and malformed nodes", () => {
  const cases: [unknown, string][] = [
    [FREE_MANY_SEATS, 'plan == "free" and seats > 5'],
    [{ op: "ne", path: "plan", value: "free" }, 'plan != "free"'],
    [{ op: "neq", path: "ctx.plan", value: null }, "ctx.plan != null"],
    [{ op: "gte", path: "seats", value: "6" }, 'seats >= "6"'],
    [{ op: "lt", path: "a", value: 1 }, "a < 1"],
    [{ op: "lte", path: "a", value: -1.5 }, "a <= -1.5"],
    [
      { op: "in", path: "region", values: ["eu", 1, null, true] },
      'region in ["eu", 1, null, true]',
    ],
    [{ op: "exists", path: "user.beta" }, "user.beta exists"],
    [
      {
        op: "or",
        args: [{ op: "eq", path: "a", value: 1 }, { op: "not", arg: { op: "exists", path: "b" } }],
      },
      "a == 1 or not (b exists)",
    ],
    [
      {
        op: "and",
        conditions: [{
          op: "or",
          conditions: [{ op: "exists", path: "a" }, { op: "exists", path: "b" }],
        }, { op: "exists", path: "c" }],
      },
      "(a exists or b exists) and c exists",
    ],
    [
      {
        op: "not",
        condition: {
          op: "and",
          conditions: [{ op: "exists", path: "a" }, { op: "exists", path: "b" }],
        },
      },
      "not (a exists and b exists)",
    ],
    [
      { op: "regex", path: "plan", value: "^f" },
      'plan regex "^f" [unknown operator regex: always false]',
    ],
    [{ op: "xor", conditions: [] }, "[invalid: unknown operator xor]"],
    [{ op: "and", conditions: [] }, "[invalid: and without a non-empty conditions list]"],
    [{ op: "or" }, "[invalid: or without a non-empty conditions list]"],
    [{ op: "not", condition: "x" }, "[invalid: not without a condition]"],
    [{ op: "eq", value: 1 }, "[invalid: eq without a string path]"],
    [{ path: "plan" }, "[invalid: no op]"],
    ["plan == free", "[invalid: not an object]"],
    [
      { op: "eq", path: "plan" },
      "plan == (missing) [value is missing: always false]",
    ],
    [
      { op: "eq", path: "plan", value: { a: 1 } },
      'plan == {"a": 1} [value is not a JSON primitive: always false]',
    ],
    [
      { op: "gt", path: "seats", value: "many" },
      'seats > "many" [value is not a number: always false]',
    ],
    [
      { op: "in", path: "plan", values: "free" },
      'plan in "free" [values is not an array: always false]',
    ],
    [{ op: "eq", path: "bio", value: "y".repeat(100) }, `bio == "${"y".repeat(63)}…`],
  ];
  for (const [condition, text] of cases) assert.equal(formatCondition(condition), text);
  // And as tested: malformed nodes are false, and say why.
  const rule = trace({ op: "and", conditions: [{ op: "regex", path: "plan", value: "^f" }, 5] }, {
    plan: "free",
  });
  assert.equal(
    formatConditionTrace(rule.condition!),
    'plan ("free") regex "^f" [unknown operator regex: always false] ✗ and [invalid: not an object] ✗',
  );
  assert.equal(
    formatConditionTrace(rule.falseBecause!),
    'plan ("free") regex "^f" [unknown operator regex: always false] ✗',
  );
  const not = trace({ op: "not", condition: { op: "regex", path: "plan" } }, {});
  assert.equal(not.outcome, "fired (when_true)");
  assert.equal(
    formatConditionTrace(not.condition!),
    "not (plan (absent) regex (missing) [unknown operator regex: always false] ✗)",
  );
});

Deno.test("a trace plan explains each traced target: disabled rules and rules without when have no condition", () => {
  const compiled = compileBundle({
    schemaVersion: 1,
    env: "prod",
    policies: [{
      policyKey: "p",
      activeVersion: 1,
      rules: [
        {
          id: "off",
          status: "disabled",
          priority: 1,
          target,
          when: FREE_MANY_SEATS,
          effect: { type: "deny" },
        },
        { id: "all", status: "active", priority: 1, target, effect: { type: "allow" } },
      ],
    }],
  } as never);
  const rules = traceEvaluation(compiled, { target, context: { plan: "free" } }).rules;
  assert.deepEqual(rules.map((r) => [r.ruleId, r.outcome, r.condition, r.falseBecause]), [
    ["off", "skipped (disabled)", null, null],
    ["all", "fired", null, null],
  ]);
});

Deno.test("trace plans: each action of a resource keeps its own plan, whatever the order first traced", () => {
  const rule = (id: string, action: string, type: "allow" | "deny") => ({
    id,
    status: "active",
    priority: 1,
    target: { service: "s", resource: "r", action },
    effect: { type },
  });
  const bundle = {
    schemaVersion: 1,
    env: "prod",
    policies: [{
      policyKey: "p",
      activeVersion: 1,
      rules: [rule("a", "read", "allow"), rule("b", "write", "deny"), rule("c", "list", "allow")],
    }],
  } as never;
  const at = (action: string) => ({ service: "s", resource: "r", action });
  for (const order of [["read", "write", "list"], ["list", "write", "read"]]) {
    const compiled = compileBundle(bundle);
    for (let round = 0; round < 2; round++) {
      for (const action of order) {
        const { rules, selected } = traceEvaluation(compiled, { target: at(action) });
        const id = { read: "a", write: "b", list: "c" }[action];
        assert.deepEqual(rules.map((r) => r.ruleId), [id]);
        assert.equal(selected!.ruleId, id);
      }
      // An action no rule names, on a resource traced before, and another resource: no rules.
      for (const target of [at("delete"), { service: "s", resource: "x", action: "read" }]) {
        const trace = traceEvaluation(compiled, { target });
        assert.deepEqual([trace.rulesSeen, trace.selected], [0, null]);
      }
    }
  }
});

Deno.test("each leaf's outcome in a trace agrees with evaluate at the edges of its comparison", () => {
  // At the bound, absent, null and of the wrong type: where the operators differ.
  const leaves = [
    ...["gt", "gte", "lt", "lte"].map((op) => ({ op, path: "n", value: 5 })),
    { op: "eq", path: "n", value: 5 },
    { op: "neq", path: "n", value: 5 },
    { op: "eq", path: "n", value: null },
    { op: "neq", path: "n", value: null },
    { op: "exists", path: "n" },
    { op: "in", path: "n", values: [5, null] },
    { op: "in", path: "n", values: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10] },
  ];
  const contexts: Record<string, unknown>[] = [
    { n: 5 },
    { n: "5" },
    { n: 4.5 },
    { n: 6 },
    { n: null },
    {},
    { n: true },
    { n: [5] },
  ];
  for (const when of leaves) {
    const bundle = bundleWith(when);
    for (const context of contexts) {
      const traced = traceEvaluation(bundle, { target, context });
      const fired = evaluate(bundle, { target, context }).decision === "deny";
      assert.equal(
        traced.rules[0]!.condition?.outcome,
        fired,
        `${JSON.stringify(when)} on ${JSON.stringify(context)}`,
      );
    }
  }
});

Deno.test("a rule's trace shows its condition as written when an identical-behaving one came first", () => {
  // `and` and `or` of one condition compile to that condition's test, so these rules share a
  // test with the first; each trace must still show the rule's own condition.
  const leaf = { op: "exists", path: "ctx.user.tier" };
  const written = [
    leaf,
    { op: "and", conditions: [{ op: "and", conditions: [leaf] }] },
    { op: "or", conditions: [leaf] },
    { op: "not", condition: { op: "and", conditions: [{ op: "not", condition: leaf }] } },
  ];
  const compiled = bundleWith(...written);
  const trace = traceEvaluation(compiled, { target, context: {} });
  assert.deepEqual(
    trace.rules.map((r) => formatConditionTrace(r.condition!)),
    written.map((when) => formatConditionTrace(traceOf(when))),
  );
  assert.deepEqual(trace.rules.map((r) => r.condition!.kind), ["leaf", "and", "or", "not"]);
  // The rules as compiled keep them as written too.
  assert.deepEqual(policiesOf(compiled)[0]!.rules.map((r) => r.when), written);
});

/** The trace of a one-rule bundle with `when` (nothing shared with another rule). */
function traceOf(when: unknown): ConditionTrace {
  return traceEvaluation(bundleWith(when), { target, context: {} }).rules[0]!.condition!;
}
