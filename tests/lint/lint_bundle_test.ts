import assert from "node:assert/strict";
import type { RuntimeBundleV1 } from "../../mod.ts";
import { lintBundle } from "../../src/lint/mod.ts";

const T = { service: "billing", resource: "invoice", action: "create" };
const OTHER = { service: "billing", resource: "invoice", action: "read" };

type Obj = Record<string, unknown>;

/** A rule at {@link T} (active, priority 1, allow), with `extra` merged over it. */
function rule(id: string, extra: Obj = {}): Obj {
  return { id, status: "active", priority: 1, target: T, effect: { type: "allow" }, ...extra };
}

/** A policy's rules, or its rules and defaults. */
type PolicySpec = Obj[] | { rules: Obj[]; defaults: Obj };

/** A bundle with policies `p0`, `p1`, … */
function bundleOf(...policies: PolicySpec[]): RuntimeBundleV1 {
  return {
    schemaVersion: 1,
    env: "prod",
    policies: policies.map((p, i) => ({
      policyKey: `p${i}`,
      activeVersion: 1,
      ...(Array.isArray(p) ? { rules: p } : p),
    })),
  } as unknown as RuntimeBundleV1;
}

/** `[code, path]` of every finding. */
function lint(b: RuntimeBundleV1): [string, string][] {
  return lintBundle(b).map((f) => [f.code, f.path]);
}

const eq = (path: string, value: unknown) => ({ op: "eq", path, value });
const and = (...conditions: unknown[]) => ({ op: "and", conditions });
const or = (...conditions: unknown[]) => ({ op: "or", conditions });
const not = (condition: unknown) => ({ op: "not", condition });
const kill = { type: "kill_switch", killSwitch: { service: "billing" } };
const throttle = (limit: number, windowSeconds: number) => ({
  type: "throttle",
  throttle: { limit, windowSeconds, key: "tenant" },
});

Deno.test("an unconditional kill_switch makes every weaker rule of its target dead, and only those", () => {
  const b = bundleOf([
    rule("allow-pro", { when: eq("plan", "pro"), priority: 50 }),
    rule("off", { effect: kill, priority: 0 }),
    rule("deny-free", { effect: { type: "deny" }, when: eq("plan", "free") }),
    rule("stronger", { effect: kill, priority: 9, when: eq("plan", "x") }),
    rule("elsewhere", { target: OTHER }),
  ]);
  assert.deepEqual(lint(b), [
    ["RULE_SHADOWED", "/policies/0/rules/0"],
    ["RULE_SHADOWED", "/policies/0/rules/2"],
  ]);
  const [first] = lintBundle(b);
  assert.match(first!.message, /rule "off" of policy "p0" always fires \(kill_switch\)/);
  assert.match(first!.message, /billing\/invoice\/create/);
});

Deno.test("an unconditional deny outranks allow, throttle and custom in any policy, not a kill_switch", () => {
  const b = bundleOf(
    [rule("deny-all", { effect: { type: "deny" }, priority: -5 })],
    [
      rule("t", { effect: throttle(1, 1), priority: 99 }),
      rule("c", { effect: { type: "custom", value: "x" } }),
      rule("k", { effect: kill, when: eq("plan", "free") }),
    ],
  );
  assert.deepEqual(lint(b), [
    ["RULE_SHADOWED", "/policies/1/rules/0"],
    ["RULE_SHADOWED", "/policies/1/rules/1"],
  ]);
});

Deno.test("throttles rank by rate: an unconditional throttle outranks only looser ones", () => {
  const b = bundleOf([
    rule("ten-per-minute", { effect: throttle(10, 60) }),
    rule("looser", { effect: throttle(100, 60), priority: 99, when: eq("plan", "free") }),
    rule("tighter", { effect: throttle(1, 60), when: eq("plan", "free") }),
    rule("same-rate-lower-priority", { effect: throttle(1, 6), priority: 0, when: eq("a", 1) }),
    rule("same-rate-higher-priority", { effect: throttle(1, 6), priority: 2, when: eq("a", 2) }),
  ]);
  assert.deepEqual(lint(b), [
    ["RULE_SHADOWED", "/policies/0/rules/1"],
    ["RULE_SHADOWED", "/policies/0/rules/3"],
  ]);
});

Deno.test("defaults that always apply outrank weaker rules; ignored defaults do not", () => {
  const b = bundleOf(
    { rules: [rule("off", { status: "disabled" })], defaults: { effect: "deny" } },
    { rules: [rule("allow", { priority: 9 })], defaults: { effect: "allow" } },
  );
  assert.deepEqual(lint(b), [
    ["RULE_SHADOWED", "/policies/1/rules/0"],
    ["DEFAULTS_SHADOWED", "/policies/1/defaults"],
  ]);
  assert.match(lintBundle(b)[0]!.message, /the defaults of policy "p0" always apply \(deny\)/);
  // A kill_switch default without its descriptor is ignored: it outranks nothing.
  const ignored = bundleOf(
    { rules: [rule("off", { status: "disabled" })], defaults: { effect: "kill_switch" } },
    [rule("allow")],
  );
  assert.deepEqual(lint(ignored), []);
});

Deno.test("contradictory conditions are never true: the rule never fires, or its then-branch never applies", () => {
  const cases: [unknown, string][] = [
    [and(eq("plan", "free"), eq("ctx.plan", "pro")), "/when"],
    [and({ op: "exists", path: "seats" }, eq("seats", null)), "/when"],
    [{
      op: "and",
      args: [{ op: "gt", path: "seats", value: 10 }, { op: "lt", path: "seats", value: "5" }],
    }, "/when"],
    [
      and({ op: "in", path: "plan", values: ["a", "b"] }, {
        op: "in",
        path: "plan",
        values: ["c"],
      }),
      "/when",
    ],
    [{ op: "in", path: "plan", values: [] }, "/when"],
    [{ op: "in", path: "plan", values: [{}, ["x"]] }, "/when"],
    [and(eq("n", 5), eq("n", "5")), "/when"], // 5 is not "5"
    [and(eq("n", "5"), { op: "gte", path: "n", value: 6 }), "/when"], // "5" compares as 5
    [and(eq("f", true), { op: "ne", path: "f", value: true }), "/when"],
    [or(eq("y", 1), and(eq("x", 1), eq("x", 2))), "/when/conditions/1"],
    [{ op: "not", arg: { op: "exists", path: "x" } }, ""],
  ];
  for (const [when, at] of cases) {
    if (at === "") continue;
    const b = bundleOf([rule("r", { when })]);
    assert.deepEqual(
      lint(b),
      [["CONDITION_NEVER_TRUE", `/policies/0/rules/0${at}`]],
      JSON.stringify(when),
    );
  }
  const never = and(eq("plan", "free"), eq("plan", "pro"));
  const [alone] = lintBundle(bundleOf([rule("r", { when: never })]));
  assert.match(
    alone!.message,
    /is never true \(no value of "plan" makes it true\), so the rule never fires/,
  );
  const [withElse] = lintBundle(
    bundleOf([
      rule("r", { when: never, thenEffect: { type: "deny" }, elseEffect: { type: "allow" } }),
    ]),
  );
  assert.match(withElse!.message, /so its thenEffect never applies \(only elseEffect can\)/);
});

Deno.test("conditions that are never false: the else-branch never applies", () => {
  const cases: unknown[] = [
    or({ op: "exists", path: "x" }, eq("x", null)),
    or({ op: "gt", path: "n", value: 5 }, not({ op: "gt", path: "n", value: 5 })),
    or({ op: "neq", path: "x", value: "a" }, { op: "neq", path: "x", value: "b" }),
    not({ op: "in", path: "plan", values: [] }),
    { op: "not", arg: and(eq("x", 1), eq("x", 2)) },
  ];
  for (const when of cases) {
    const b = bundleOf([rule("r", { when, elseEffect: { type: "deny" } })]);
    assert.deepEqual(
      lint(b),
      [["CONDITION_NEVER_FALSE", "/policies/0/rules/0/when"]],
      JSON.stringify(when),
    );
    assert.match(lintBundle(b)[0]!.message, /so its elseEffect never applies/);
  }
});

Deno.test("what can be true and false, or cannot be decided, is never reported", () => {
  const cases: unknown[] = [
    // Not a tautology: a value that is not numeric makes both false.
    or({ op: "gte", path: "n", value: 5 }, { op: "lt", path: "n", value: 5 }),
    // "5.0" is >= 5, <= 5 and not the number 5.
    and({ op: "gte", path: "n", value: 5 }, { op: "lte", path: "n", value: 5 }, {
      op: "neq",
      path: "n",
      value: 5,
    }),
    and(eq("n", "5"), { op: "gt", path: "n", value: 4 }),
    // Different paths.
    and(eq("a", 1), eq("b", 2)),
    and(eq("user.tier", 1), eq("user", null)), // correlated paths are not reasoned about
    // Unknown operators and malformed nodes prove nothing, nor does what contains them.
    { op: "regex", path: "x", value: "a" },
    not({ op: "regex", path: "x", value: "a" }),
    and(eq("x", 1), { op: "eq", path: "x" }),
    or(eq("x", 1), { op: "not" }),
    { op: "and", conditions: [] },
    // Set operations that must widen correctly.
    and(
      or(
        and({ op: "in", path: "x", values: [5, 6] }, { op: "gt", path: "x", value: 5 }),
        eq("x", 5),
      ),
      eq("x", 5),
    ),
    and(
      or(
        and({ op: "neq", path: "x", value: "a" }, { op: "exists", path: "y" }),
        and({ op: "neq", path: "x", value: "b" }, { op: "exists", path: "z" }),
      ),
      eq("x", "a"),
    ),
    and(or({ op: "lt", path: "x", value: 1 }, { op: "gt", path: "x", value: 9 }), eq("x", "10")),
    and(or(eq("x", 1), eq("x", "b")), not(eq("x", 1))),
  ];
  for (const when of cases) {
    assert.deepEqual(
      lint(bundleOf([rule("r", { when, elseEffect: { type: "deny" } })])),
      [],
      JSON.stringify(when),
    );
  }
});

Deno.test("a constant condition inside another is reported where it is, once", () => {
  // The or is never false (a tautology), the and around it is not constant.
  const when = and(or({ op: "neq", path: "x", value: "a" }, eq("ctx.x", "a")), eq("x", "a"));
  assert.deepEqual(lint(bundleOf([rule("r", { when })])), [
    ["CONDITION_NEVER_FALSE", "/policies/0/rules/0/when/conditions/0"],
  ]);
  assert.match(
    lintBundle(bundleOf([rule("r", { when })]))[0]!.message,
    /never makes the condition around it false/,
  );
  // Inside a constant condition, constant parts are not reported again.
  const outer = and(eq("y", 1), eq("y", 2), { op: "in", path: "x", values: [] });
  assert.deepEqual(lint(bundleOf([rule("r", { when: outer })])), [
    ["CONDITION_NEVER_TRUE", "/policies/0/rules/0/when"],
  ]);
});

Deno.test("a rule whose when and elseEffect cover every context outranks what ranks after both branches", () => {
  const b = bundleOf([
    rule("both", { when: eq("plan", "pro"), effect: { type: "deny" }, elseEffect: throttle(1, 1) }),
    rule("throttle-between", { effect: throttle(0, 1), when: eq("x", 1) }),
    rule("allow", { priority: 99 }),
  ]);
  assert.deepEqual(lint(b), [["RULE_SHADOWED", "/policies/0/rules/2"]]);
  assert.match(lintBundle(b)[0]!.message, /through its when or its elseEffect/);
});

Deno.test("rules whose conditions together cover every context outrank what ranks after them", () => {
  const b = bundleOf([
    rule("free", { effect: { type: "deny" }, when: eq("plan", "free") }),
    rule("not-free", {
      effect: { type: "deny" },
      when: { op: "ne", path: "ctx.plan", value: "free" },
    }),
    rule("allow", { priority: 99 }),
  ]);
  assert.deepEqual(lint(b), [["RULE_SHADOWED", "/policies/0/rules/2"]]);
  assert.match(lintBundle(b)[0]!.message, /always include one that fires/);
});

Deno.test("a branch that is outranked is reported on its own when the other can still be selected", () => {
  const b = bundleOf([
    rule("rate", { effect: throttle(10, 60) }),
    rule("eu", {
      when: eq("region", "eu"),
      effect: { type: "deny" },
      elseEffect: { type: "allow" },
    }),
    rule("then", {
      when: eq("region", "us"),
      effect: { type: "allow" },
      thenEffect: { type: "allow" },
      elseEffect: { type: "deny" },
    }),
  ]);
  assert.deepEqual(lint(b), [
    ["RULE_BRANCH_SHADOWED", "/policies/0/rules/1/elseEffect"],
    ["RULE_BRANCH_SHADOWED", "/policies/0/rules/2/thenEffect"],
  ]);
});

Deno.test("duplicate rules: the one that ranks lower is never selected, across policies too", () => {
  const when = { op: "in", path: "plan", values: ["pro", "enterprise"] };
  const b = bundleOf(
    [
      rule("a", { when, priority: 1 }),
      rule("b", {
        when: { values: ["pro", "enterprise"], path: "plan", op: "in" },
        priority: 5,
        description: "same",
      }),
    ],
    [rule("c", { when, priority: 3 }), rule("d", { when, elseEffect: { type: "deny" } })],
  );
  assert.deepEqual(lint(b), [
    ["RULE_DUPLICATE", "/policies/0/rules/0"],
    ["RULE_DUPLICATE", "/policies/1/rules/0"],
    // Not a duplicate (it has an elseEffect), but its then-branch always loses to its twins'.
    ["RULE_BRANCH_SHADOWED", "/policies/1/rules/1/effect"],
  ]);
  assert.match(
    lintBundle(b)[0]!.message,
    /policy "p0", rule "b" has the same condition and effects and ranks above it/,
  );
});

Deno.test("a disabled twin ranked below its active twin in the same policy is pointless; other twins are not", () => {
  const when = eq("plan", "pro");
  const b = bundleOf(
    [
      rule("active", { when, priority: 5 }),
      rule("off-below", { when, priority: 1, status: "disabled" }),
      rule("off-above", { when, priority: 9, status: "disabled" }),
    ],
    [rule("off-elsewhere", { when, priority: 1, status: "disabled" })],
  );
  assert.deepEqual(lint(b), [["RULE_DISABLED_DUPLICATE", "/policies/0/rules/1"]]);
});

Deno.test("defaults that never decide, at every target of their policy", () => {
  const b = bundleOf(
    {
      rules: [
        rule("catch-all"),
        rule("other", { target: OTHER, when: eq("x", 1), elseEffect: { type: "deny" } }),
      ],
      defaults: { effect: "deny" },
    },
    {
      rules: [rule("x", { target: { ...OTHER, action: "list" }, when: eq("x", 1) })],
      defaults: { effect: "allow" },
    },
  );
  assert.deepEqual(lint(b), [["DEFAULTS_SHADOWED", "/policies/0/defaults"]]);
  assert.match(lintBundle(b)[0]!.message, /one of its own active rules fires on every context/);
});

Deno.test("findings come in bundle order and every message names the policy and rule", () => {
  const b = bundleOf(
    [rule("z", { when: { op: "in", path: "x", values: [] } }), rule("off", { effect: kill })],
    [rule("a", { when: or(eq("x", 1), { op: "in", path: "x", values: [] }) })],
  );
  const findings = lintBundle(b);
  assert.deepEqual(findings.map((f) => f.path), [
    "/policies/0/rules/0/when",
    "/policies/1/rules/0",
    "/policies/1/rules/0/when/conditions/1",
  ]);
  for (const f of findings) assert.match(f.message, /policy "p\d", rule "\w+"/);
});

Deno.test("prototype-like paths and keys are ordinary: reported as any other, never followed", () => {
  const doc = JSON.parse(
    `{"schemaVersion": 1, "env": "prod", "policies": [{"policyKey": "p", "activeVersion": 1,
    "rules": [{"id": "r", "status": "active", "priority": 1,
      "target": {"service": "billing", "resource": "invoice", "action": "create"},
      "effect": {"type": "allow"},
      "when": {"op": "and", "__proto__": {"op": "or"}, "conditions": [
        {"op": "eq", "path": "__proto__", "value": "a"},
        {"op": "eq", "path": "ctx.__proto__", "value": "b"}]}}]}]}`,
  );
  assert.deepEqual(lint(doc), [["CONDITION_NEVER_TRUE", "/policies/0/rules/0/when"]]);
  const constructor = and(eq("constructor", 1), { op: "exists", path: "toString" });
  assert.deepEqual(lint(bundleOf([rule("r", { when: constructor })])), []);
});

Deno.test("RULE_SHADOWED says when no priority can help: a stronger type or a lower rate decides first", () => {
  const stronger = lintBundle(bundleOf([
    rule("off", { effect: kill, priority: 0 }),
    rule("pro", { when: eq("plan", "pro"), priority: 99 }),
  ]))[0]!;
  assert.equal(stronger.code, "RULE_SHADOWED");
  assert.doesNotMatch(stronger.message, /raise it/);
  assert.match(stronger.message, /no priority can change that/);
  assert.match(stronger.message, /a kill_switch outranks an allow whatever the priorities/);
  assert.match(stronger.message, /narrow the condition of rule "off" of policy "p0"/);

  const tighter = lintBundle(bundleOf([
    rule("one-per-second", { effect: throttle(1, 1), priority: 0 }),
    rule("ten-per-second", { effect: throttle(10, 1), priority: 99 }),
  ]))[0]!;
  assert.equal(tighter.code, "RULE_SHADOWED");
  assert.doesNotMatch(tighter.message, /raise it/);
  assert.match(tighter.message, /a throttle of a lower rate outranks it whatever the priorities/);
  assert.match(tighter.message, /narrow the condition of rule "one-per-second"/);

  const byDefault = lintBundle(bundleOf(
    {
      rules: [rule("maybe", { effect: { type: "deny" }, when: eq("plan", "x") })],
      defaults: { effect: "deny" },
    },
    [rule("allow", { priority: 99 })],
  )).find((f) => f.path === "/policies/1/rules/0")!;
  assert.doesNotMatch(byDefault.message, /raise it/);
  assert.match(byDefault.message, /a deny outranks an allow whatever the priorities/);
  assert.match(byDefault.message, /change the rules or the defaults of policy "p0"/);
});

Deno.test("RULE_SHADOWED still suggests a higher priority where one would help", () => {
  const same = lintBundle(bundleOf([
    rule("first", { priority: 9 }),
    rule("second", {
      priority: 1,
      effect: { type: "custom", value: "x" },
      when: eq("plan", "pro"),
    }),
    rule("third", { priority: 1, when: eq("plan", "pro") }),
  ])).find((f) => f.path === "/policies/0/rules/2")!;
  assert.equal(same.code, "RULE_SHADOWED");
  assert.match(same.message, /raise it above what decides first/);
});

const rollout = (path: string, from: number, to: number, bucketing?: string) => ({
  op: "rollout",
  path,
  salt: "s",
  from,
  to,
  ...(bucketing === undefined ? {} : { bucketing }),
});

Deno.test("the added operators: what kind of value makes each true, and rollouts with no bucket in range", () => {
  // Each pair is a contradiction: no value of `plan` satisfies both.
  const contradictions = [
    and(eq("plan", "pro"), { op: "contains", path: "plan", value: "pro" }),
    and({ op: "containsAny", path: "plan", values: ["a"] }, {
      op: "startsWith",
      path: "plan",
      value: "",
    }),
    and({ op: "like", path: "plan", pattern: "free" }, eq("plan", "pro")),
    and({ op: "semver", path: "plan", cmp: "gte", value: "1.0.0" }, {
      op: "gt",
      path: "plan",
      value: 0,
    }),
    and({ op: "endsWith", path: "plan", value: "e" }, {
      op: "in",
      path: "plan",
      values: [1, true],
    }),
    rollout("userId", 30, 30),
    rollout("userId", 10.2, 10.8, "mod100"),
    rollout("userId", 99.5, 100, "mod100"),
  ];
  for (const when of contradictions) {
    assert.deepEqual(
      lint(bundleOf([rule("r", { when })])),
      [["CONDITION_NEVER_TRUE", "/policies/0/rules/0/when"]],
      JSON.stringify(when),
    );
  }
  // Tautologies: every string starts with "" and matches "*", "x" matches "x", and every value
  // with a bucket is in [0, 100) of fraction and [0, 99] of mod100.
  const neq = (path: string, value: unknown) => ({ op: "neq", path, value });
  const tautologies = [
    or({ op: "startsWith", path: "plan", value: "" }, neq("plan", "x")),
    or({ op: "endsWith", path: "plan", value: "" }, neq("plan", "x")),
    or({ op: "like", path: "plan", pattern: "**" }, neq("plan", "x")),
    or({ op: "like", path: "plan", pattern: "x" }, neq("plan", "x")),
    or(rollout("userId", 0, 100), neq("userId", "u-1")),
    or(rollout("userId", 0, 99.5, "mod100"), neq("userId", "u-1")),
  ];
  for (const when of tautologies) {
    assert.deepEqual(
      lint(bundleOf([rule("r", { when, elseEffect: { type: "deny" } })])),
      [["CONDITION_NEVER_FALSE", "/policies/0/rules/0/when"]],
      JSON.stringify(when),
    );
  }
  // What can be both is never reported: a rollout over part of the range, a prefix, a version.
  const open = [
    rollout("userId", 0, 30),
    rollout("userId", 10, 11, "mod100"),
    rollout("userId", 0, 100),
    { op: "startsWith", path: "email", value: "admin@" },
    { op: "like", path: "email", pattern: "*@acme.com" },
    { op: "semver", path: "v", cmp: "neq", value: "1.0.0" },
    { op: "containsAll", path: "roles", values: ["a", "b"] },
    and({ op: "contains", path: "roles", value: "a" }, { op: "exists", path: "roles" }),
  ];
  for (const when of open) {
    assert.deepEqual(lint(bundleOf([rule("r", { when })])), [], JSON.stringify(when));
  }
});

Deno.test("OPERATOR_NEEDS_NEWER_RUNTIME: a deny, kill_switch or throttle rule whose when uses an added operator", () => {
  const roles = { op: "contains", path: "roles", value: "admin" };
  const b = bundleOf([
    rule("deny", { effect: { type: "deny" }, when: and(eq("plan", "pro"), not(roles)) }),
    rule("kill", { effect: kill, when: rollout("userId", 0, 5), priority: 3 }),
    rule("throttle", {
      effect: { type: "allow" },
      thenEffect: throttle(5, 1),
      when: or(rollout("userId", 0, 50), { op: "semver", path: "v", cmp: "lt", value: "2.0.0" }),
    }),
    rule("allow", { when: roles, priority: 4 }),
    rule("else-deny", { when: roles, elseEffect: { type: "deny" }, priority: 5 }),
    rule("disabled", { status: "disabled", effect: { type: "deny" }, when: roles }),
    rule("spec-only", { effect: { type: "deny" }, when: eq("plan", "free") }),
  ]);
  const findings = lintBundle(b).filter((f) => f.code === "OPERATOR_NEEDS_NEWER_RUNTIME");
  assert.deepEqual(findings.map((f) => f.path), [
    "/policies/0/rules/0/when/conditions/1/condition",
    "/policies/0/rules/1/when",
    "/policies/0/rules/2/when/conditions/0",
  ]);
  assert.match(findings[0]!.message, /rule "deny" \(deny\) uses contains, added after/);
  assert.match(findings[2]!.message, /uses rollout, semver, .* reads each as false/);
  assert.match(findings[1]!.message, /so there this kill_switch may never fire/);
});
