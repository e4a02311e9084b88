/**
 * `__proto__`, `constructor` and other Object.prototype names as policy
 * keys, rule ids, target fields, effect and default fields, condition paths
 * and context keys. Each case runs in its own worker, which fails the case
 * if any built-in prototype changed (see `_isolated.ts`); the cases also
 * check `({}).polluted` themselves.
 */
import assert from "node:assert/strict";
import { createEvaluator, loadBundle, PolicyError } from "../../mod.ts";
import { canonicalJson, traceEvaluation } from "../../src/engine/mod.ts";
import { hostileTest } from "./_isolated.ts";
import { bundleOf, issueCodes, rejectsWith, rule, signedText, TARGET, VERIFY } from "./_inputs.ts";

const NAMES = ["__proto__", "constructor", "prototype", "toString", "hasOwnProperty", "valueOf"];
const UNSIGNED = { allowUnsigned: true };

function assertClean(): void {
  const probe: Record<string, unknown> = {};
  for (const key of ["polluted", "isAdmin", "effect", "type", "policyKey", "schemaVersion"]) {
    assert.equal(probe[key], undefined, `({}).${key} is not inherited`);
  }
}

hostileTest(
  import.meta.url,
  "policy keys, rule ids and target fields named __proto__, constructor, toString… are ordinary strings, signed and evaluated exactly",
  async () => {
    // A JSON text: "__proto__" must be an own key, as JSON.parse makes it.
    // Per name: a policy of that name whose rule of that name targets (name, name, name), and a
    // policy "<name>.ids" with rules "__proto__" and "constructor" at (svc, doc, <name>).
    const text = JSON.stringify({
      schemaVersion: 1,
      env: "prod",
      policies: NAMES.flatMap((name) => [
        {
          policyKey: name,
          activeVersion: 1,
          defaults: { effect: "deny" },
          rules: [rule(name, { target: { service: name, resource: name, action: name } })],
        },
        {
          policyKey: `${name}.ids`,
          activeVersion: 1,
          rules: [
            rule("constructor", { target: { ...TARGET, action: name }, priority: 0 }),
            rule("__proto__", { target: { ...TARGET, action: name }, priority: 2 }),
          ],
        },
      ]),
    });
    const signed = await signedText(JSON.parse(text));
    const loaded = await loadBundle(signed, VERIFY);
    assert.equal(loaded.status.signature.status, "verified");
    assert.equal(loaded.status.policies, 2 * NAMES.length);
    const evaluate = createEvaluator(loaded.compiled);
    for (const name of NAMES) {
      assert.deepEqual(evaluate({ target: { service: name, resource: name, action: name } }), {
        decision: "allow",
        reason: "rule",
        policyKey: name,
        ruleId: name,
      });
      assert.deepEqual(evaluate({ target: { ...TARGET, action: name } }), {
        decision: "allow",
        reason: "rule",
        policyKey: `${name}.ids`,
        ruleId: "__proto__",
      });
      // A target nobody names: the global deny, whatever its fields are called.
      assert.deepEqual(evaluate({ target: { service: name, resource: "x", action: name } }), {
        decision: "deny",
        reason: "default",
      });
      const trace = traceEvaluation(loaded.compiled, { target: { ...TARGET, action: name } });
      assert.equal(trace.decision.ruleId, "__proto__");
    }
    assertClean();
    // Duplicates are still duplicates.
    const twice = JSON.stringify(bundleOf([rule("__proto__"), rule("__proto__")], {}, {}));
    const error = await rejectsWith(loadBundle(twice, UNSIGNED), "BUNDLE_INVALID");
    assert.deepEqual(issueCodes(error), ["DUPLICATE_RULE_ID"]);
    const keys = JSON.stringify({
      schemaVersion: 1,
      env: "prod",
      policies: [0, 1].map(() => ({ policyKey: "__proto__", activeVersion: 1, rules: [] })),
    });
    const keyError = await rejectsWith(loadBundle(keys, UNSIGNED), "BUNDLE_INVALID");
    assert.deepEqual(issueCodes(keyError), ["DUPLICATE_POLICY_KEY"]);
  },
);

hostileTest(
  import.meta.url,
  "a __proto__ member inside a bundle is an own key: it is signed, never inherited from, and never read as the object's fields",
  async () => {
    // JSON text on purpose: in an object literal, __proto__ would set the prototype.
    const text = `{
      "schemaVersion": 1, "env": "prod",
      "__proto__": { "orgId": "evil", "bundleVersion": 99 },
      "policies": [{
        "__proto__": { "policyKey": "inherited", "defaults": { "effect": "kill_switch" } },
        "policyKey": "p", "activeVersion": 1,
        "defaults": { "effect": "deny", "__proto__": { "effect": "allow" } },
        "rules": [{
          "__proto__": { "status": "disabled", "when": { "op": "exists", "path": "never" } },
          "id": "r1", "status": "active", "priority": 1,
          "target": { "service": "svc", "resource": "doc", "action": "read", "__proto__": { "action": "x" } },
          "effect": { "type": "allow", "__proto__": { "type": "kill_switch" } },
          "when": { "op": "eq", "path": "plan", "value": "pro", "__proto__": { "op": "neq" } }
        }]
      }]
    }`;
    const signed = await signedText(JSON.parse(text));
    assert.ok(signed.includes('"__proto__"'));
    const loaded = await loadBundle(signed, VERIFY);
    assert.equal(loaded.status.signature.status, "verified");
    assert.equal(loaded.status.bundleVersion, null, "not inherited from __proto__");
    // The canonical payload holds the __proto__ members of the policy, the rule and below,
    // and not the top-level one (outside the projection).
    const payload = canonicalJson(JSON.parse(signed));
    assert.ok(payload.includes('"__proto__":{"op":"neq"}'));
    const evaluate = createEvaluator(loaded.compiled);
    assert.deepEqual(evaluate({ target: TARGET, context: { plan: "pro" } }), {
      decision: "allow",
      reason: "rule",
      policyKey: "p",
      ruleId: "r1",
    });
    assert.deepEqual(evaluate({ target: TARGET, context: { plan: "free" } }), {
      decision: "deny",
      reason: "default",
      policyKey: "p",
    });
    // Tampering with a __proto__ member breaks the signature like any other member.
    const tampered = signed.replace('{"op":"neq"}', '{"op":"eq"}');
    assert.notEqual(tampered, signed);
    await rejectsWith(loadBundle(tampered, VERIFY), "CHECKSUM_MISMATCH");
    // A policy whose fields exist only in a __proto__ member has no policyKey.
    const inherited =
      `{"schemaVersion":1,"env":"prod","policies":[{"__proto__":{"policyKey":"p","activeVersion":1,"rules":[]}}]}`;
    const error = await rejectsWith(loadBundle(inherited, UNSIGNED), "BUNDLE_INVALID");
    assert.deepEqual(issueCodes(error), [
      "MISSING_POLICY_KEY",
      "INVALID_ACTIVE_VERSION",
      "RULES_NOT_ARRAY",
    ]);
    assertClean();
  },
);

hostileTest(
  import.meta.url,
  "condition paths through __proto__, constructor, prototype or toString never resolve to anything inherited",
  async () => {
    const paths = [
      "__proto__",
      "constructor",
      "constructor.prototype",
      "constructor.name",
      "__proto__.polluted",
      "__proto__.constructor",
      "toString",
      "ctx.__proto__",
      "ctx.constructor.prototype.isAdmin",
      "plan.__proto__",
      "plan.length",
      "hasOwnProperty",
    ];
    const loaded = await loadBundle(
      JSON.stringify({
        schemaVersion: 1,
        env: "prod",
        policies: paths.map((path, i) => ({
          policyKey: `p${i}`,
          activeVersion: 1,
          rules: [
            rule("exists", {
              target: { ...TARGET, action: `a${i}` },
              when: { op: "exists", path },
              elseEffect: { type: "deny" },
            }),
          ],
        })),
      }),
      UNSIGNED,
    );
    const evaluate = createEvaluator(loaded.compiled);
    const decide = (i: number, context?: Record<string, unknown>) =>
      evaluate({ target: { ...TARGET, action: `a${i}` }, ...(context && { context }) })
        .decision;
    const contexts: (Record<string, unknown> | undefined)[] = [
      undefined,
      {},
      { plan: "pro" },
      Object.create(null),
    ];
    for (const context of contexts) {
      paths.forEach((path, i) => assert.equal(decide(i, context), "deny", path));
    }
    // Own keys of those names, from JSON, are ordinary keys.
    const own = JSON.parse(
      '{"__proto__": {"polluted": true, "constructor": 1}, "constructor": {"prototype": {"isAdmin": true}, "name": "n"}, "toString": "x", "hasOwnProperty": 0}',
    );
    const resolving = new Set([
      "__proto__",
      "constructor",
      "constructor.prototype",
      "constructor.name",
      "__proto__.polluted",
      "__proto__.constructor",
      "toString",
      "ctx.__proto__",
      "ctx.constructor.prototype.isAdmin",
      "hasOwnProperty",
    ]);
    paths.forEach((path, i) =>
      assert.equal(decide(i, own), resolving.has(path) ? "allow" : "deny", path)
    );
    assertClean();
    // Object.prototype polluted by someone else is still not read (this worker is thrown away).
    (Object.prototype as Record<string, unknown>).polluted = true;
    try {
      assert.equal(decide(paths.indexOf("__proto__.polluted"), {}), "deny");
    } finally {
      delete (Object.prototype as Record<string, unknown>).polluted;
    }
  },
);

hostileTest(
  import.meta.url,
  "contexts with __proto__ or constructor keys: checked against allowedKeys as own keys; a context whose prototype was set is INVALID_REQUEST",
  async () => {
    const loaded = await loadBundle(
      JSON.stringify(bundleOf([rule("r1", {
        when: { op: "eq", path: "role", value: "admin" },
        elseEffect: { type: "deny" },
      })])),
      UNSIGNED,
    );
    const strict = createEvaluator(loaded.compiled, { contextPolicy: { allowedKeys: ["role"] } });
    for (const key of ["__proto__", "constructor"]) {
      const context = JSON.parse(`{"${key}": {"role": "admin"}}`);
      assert.throws(
        () => strict({ target: TARGET, context }),
        (error) =>
          error instanceof PolicyError && error.code === "CONTEXT_KEY_NOT_ALLOWED" &&
          error.message.includes(`"${key}"`),
      );
    }
    // A key someone added to Object.prototype is not the context's: allowedKeys ignores it.
    (Object.prototype as Record<string, unknown>).injected = "x";
    try {
      assert.equal(strict({ target: TARGET, context: { role: "admin" } }).decision, "allow");
    } finally {
      delete (Object.prototype as Record<string, unknown>).injected;
    }
    // Allowed explicitly, it is just a key: role is still not found through it.
    const open = createEvaluator(loaded.compiled, {
      contextPolicy: { allowedKeys: ["role", "__proto__", "constructor"] },
    });
    const context = JSON.parse(
      '{"__proto__": {"role": "admin"}, "constructor": {"role": "admin"}}',
    );
    assert.equal(open({ target: TARGET, context }).decision, "deny");
    // An object whose prototype holds the key (an object literal with __proto__, a class
    // instance) is not a plain object: refused, never read through its prototype.
    const unplain = [
      { __proto__: { role: "admin" } },
      Object.create({ role: "admin" }),
      new (class {
        role = "admin";
      })(),
    ];
    for (const bad of unplain) {
      assert.throws(
        () => open({ target: TARGET, context: bad as Record<string, unknown> }),
        (error) => error instanceof PolicyError && error.code === "INVALID_REQUEST",
      );
    }
    // A null-prototype object is plain: only own keys count.
    const bare = Object.assign(Object.create(null), { role: "admin" });
    assert.equal(open({ target: TARGET, context: bare }).decision, "allow");
    assertClean();
  },
);

hostileTest(
  import.meta.url,
  "parseCustomEffect with a __proto__ or constructor payload returns it as own data and pollutes nothing",
  async () => {
    const value =
      '{"__proto__": {"polluted": true}, "constructor": {"prototype": {"isAdmin": true}}}';
    const loaded = await loadBundle(
      JSON.stringify(bundleOf([rule("r1", { effect: { type: "custom", value } })])),
      UNSIGNED,
    );
    const decision = createEvaluator(loaded.compiled, { parseCustomEffect: true })({
      target: TARGET,
    });
    const parsed = decision.parsedValue as Record<string, unknown>;
    assert.ok(Object.hasOwn(parsed, "__proto__"));
    assert.equal(Object.getPrototypeOf(parsed), Object.prototype);
    assert.equal(decision.value, value);
    // The decision object itself is a plain object with only its own fields.
    assert.deepEqual(Object.keys(decision).sort(), [
      "decision",
      "parsedValue",
      "policyKey",
      "reason",
      "ruleId",
      "value",
    ]);
    assertClean();
  },
);

/**
 * Deno removes the `Object.prototype.__proto__` accessor; Node.js (the npm
 * build) keeps it, so an assignment `object[key] = value` with a key
 * `"__proto__"` would set a prototype there. To test the Node semantics, this
 * file runs again in a child `deno test --unsafe-proto`, which keeps the accessor.
 */
const HAS_PROTO_ACCESSOR = (() => {
  const probe = {};
  const object: Record<string, unknown> = {};
  object["__proto__"] = probe; // Deno by default: an own property; Node: sets the prototype
  return Object.getPrototypeOf(object) === probe;
})();
const CAN_RUN_DENO = Deno.permissions.querySync({ name: "run", command: "deno" }).state ===
  "granted";

Deno.test({
  name:
    "the cases above pass as well with the __proto__ accessor in place (deno test --unsafe-proto), as on Node.js",
  ignore: HAS_PROTO_ACCESSOR || !CAN_RUN_DENO,
  sanitizeOps: true,
  sanitizeResources: true,
  fn: async () => {
    const file = new URL(import.meta.url).pathname;
    const { code, stdout, stderr } = await new Deno.Command("deno", {
      args: ["test", "--unsafe-proto", "--no-check", "--allow-read=.", file],
      env: { NO_COLOR: "1" },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const output = new TextDecoder().decode(stdout) + new TextDecoder().decode(stderr);
    assert.equal(code, 0, output);
    assert.match(output, /ok \| 5 passed/);
  },
});
