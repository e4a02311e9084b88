import assert from "node:assert/strict";
import { discover, targetsIn, warningsIn } from "./_helpers.ts";

const T = `{ service: "billing", resource: "invoice", action: "create" }`;
const FOUND = "billing/invoice/create";

Deno.test("discoverEvaluationPoints() reports target, file and 1-based line and column of the call", () => {
  const source =
    `import { client } from "./policy.ts";\n\n  await client.evaluate({ target: ${T} });\n`;
  assert.deepEqual(discover(source, "src/routes/a.ts"), {
    points: [{
      target: { service: "billing", resource: "invoice", action: "create" },
      file: "src/routes/a.ts",
      line: 3,
      column: 9,
    }],
    warnings: [],
  });
});

Deno.test("discoverEvaluationPoints() accepts evaluate on any object expression", () => {
  const callees = [
    "client.evaluate",
    "this.policy.evaluate",
    "this.#client.evaluate",
    "getClient().evaluate",
    "(await getClient()).evaluate",
    "a.b.c.evaluate",
    "a?.evaluate",
    "a?.evaluate?.",
    'a["evaluate"]',
    "a?.['evaluate']",
    "a[`evaluate`]",
    "client!.evaluate",
    "(client.evaluate)",
    "clients[0].evaluate",
  ];
  for (const callee of callees) {
    assert.deepEqual(targetsIn(`${callee}({ target: ${T} });`), [FOUND], callee);
  }
});

Deno.test("discoverEvaluationPoints() ignores calls not named evaluate", () => {
  const source = `
    evaluate({ target: ${T} });
    client.evaluateAll({ target: ${T} });
    client[name]({ target: ${T} });
    client.evaluate.call(client, { target: ${T} });
  `;
  assert.deepEqual(discover(source), { points: [], warnings: [] });
});

Deno.test("discoverEvaluationPoints() reads multi-line calls with comments inside, awaited or not", () => {
  const source = `
    const decision = await client.evaluate( // why: checkout
      /* the request */ {
        // the target
        target: {
          service: "billing", /* inline */
          resource: "invoice",
          action: "create", // trailing comma
        },
        context: { plan }, // more
      },
    );
    client
      .evaluate({ target: ${T} })
      .decision;
  `;
  const { points } = discover(source);
  assert.deepEqual(points.map((p) => [p.line, p.column]), [[2, 28], [13, 5]]);
  assert.deepEqual(points.map((p) => p.target.action), ["create", "create"]);
});

Deno.test("discoverEvaluationPoints() resolves a target held in a const at any visible scope", () => {
  const source = `
    const MODULE_TARGET = ${T};
    export function a() { return client.evaluate({ target: MODULE_TARGET }); }
    export function b() {
      const LOCAL = { service: "billing", resource: "refund", action: "create" };
      if (ok) {
        return client.evaluate({ target: LOCAL, context: {} });
      }
    }
    export const c = () => client.evaluate({ target: LATER });
    const LATER = { service: "billing", resource: "later", action: "read" };
  `;
  assert.deepEqual(targetsIn(source), [FOUND, "billing/refund/create", "billing/later/read"]);
});

Deno.test("discoverEvaluationPoints() looks through as const, satisfies, parentheses, ! and Object.freeze", () => {
  const source = `
    const A = { service: "s", resource: "r", action: "as-const" } as const;
    const B = ({ service: "s", resource: "r", action: "satisfies" }) satisfies Target;
    const C = Object.freeze({ service: "s", resource: "r", action: "freeze" });
    const D = <const>{ service: "s", resource: "r", action: "angle" };
    const E = (({ service: "s", resource: "r", action: "parens" } as Target)!);
    client.evaluate({ target: A });
    client.evaluate({ target: B });
    client.evaluate({ target: C });
    client.evaluate({ target: D });
    client.evaluate({ target: E });
    client.evaluate(({ target: A }) as EvaluationRequest);
  `;
  assert.deepEqual(targetsIn(source), [
    "s/r/as-const",
    "s/r/satisfies",
    "s/r/freeze",
    "s/r/angle",
    "s/r/parens",
    "s/r/as-const",
  ]);
});

Deno.test("discoverEvaluationPoints() resolves a request held in a const, with shorthand target", () => {
  const source = `
    const target = ${T};
    const request = { target, context: { plan: "free" } };
    const alias = request;
    client.evaluate(request);
    client.evaluate(alias);
    client.evaluate({ target });
    client.evaluate({ "target": target });
    client.evaluate({ ["target"]: target });
  `;
  assert.deepEqual(targetsIn(source), [FOUND, FOUND, FOUND, FOUND, FOUND]);
});

Deno.test("discoverEvaluationPoints() accepts string consts and no-substitution templates as fields", () => {
  const source = `
    const SERVICE = "billing";
    const ACTION = \`create\`;
    client.evaluate({ target: { service: SERVICE, resource: \`invoice\`, action: ACTION } });
    client.evaluate({ target: { "service": "billing", 'resource': 'invoice', [\`action\`]: "create" } });
  `;
  assert.deepEqual(targetsIn(source), [FOUND, FOUND]);
});

Deno.test("discoverEvaluationPoints() merges spreads of resolvable objects, later keys winning", () => {
  const source = `
    const BASE = { service: "billing", resource: "invoice", action: "read" };
    const DEFAULTS = { target: BASE, context: {} };
    client.evaluate({ target: { ...BASE, action: "create" } });
    client.evaluate({ ...DEFAULTS });
    client.evaluate({ ...DEFAULTS, target: { ...BASE, ...{ action: "void" } } });
    client.evaluate({ target: { action: "ignored", ...BASE } });
    client.evaluate({ ...unknownRequest, target: BASE });
  `;
  assert.deepEqual(targetsIn(source), [
    FOUND,
    "billing/invoice/read",
    "billing/invoice/void",
    "billing/invoice/read",
    "billing/invoice/read",
  ]);
  assert.deepEqual(discover(source).warnings, []);
});

Deno.test("discoverEvaluationPoints() never counts text in comments, strings, templates, regexes or JSX", () => {
  const source = `
    // client.evaluate({ target: ${T} })
    /* client.evaluate({ target: ${T} }) */
    /** @example client.evaluate({ target: ${T} }) */
    const a = 'client.evaluate({ target: ${T.replaceAll('"', "\\'")} })';
    const b = "client.evaluate({ target: ${T.replaceAll('"', "\\'")} })";
    const c = \`client.evaluate({ target: ${T} })\`;
    const d = /client\\.evaluate\\({ target: x }\\)/;
    const e = <p>client.evaluate({"{"} target: x {"}"})</p>;
  `;
  assert.deepEqual(discover(source, "src/view.tsx"), { points: [], warnings: [] });
});

Deno.test("discoverEvaluationPoints() counts a real call inside a template substitution", () => {
  const source = "const text = `decision: ${client.evaluate({ target: " + T + " }).decision}`;";
  assert.deepEqual(targetsIn(source), [FOUND]);
});

Deno.test("discoverEvaluationPoints() is silent for calls that are not evaluation points", () => {
  const source = `
    await page.evaluate(() => document.title);
    await page.evaluate(function () { return 1; });
    await page.evaluate(async (sel) => document.querySelector(sel), "#total");
    await page.evaluate("window.innerWidth");
    await page.evaluate(\`window.\${name}\`);
    math.evaluate(42);
    math.evaluate(-1);
    engine.evaluate();
    engine.evaluate(null);
    engine.evaluate(undefined);
    engine.evaluate([1, 2]);
    engine.evaluate({ service: "billing", resource: "invoice", action: "create" });
    engine.evaluate({ context: { plan } });
    function pageFunction() { return 1; }
    const arrow = () => 2;
    const script = "1 + 2";
    page.evaluate(pageFunction);
    page.evaluate(arrow);
    page.evaluate(script);
  `;
  assert.deepEqual(discover(source, "e2e/checkout.spec.ts"), { points: [], warnings: [] });
});

Deno.test("discoverEvaluationPoints() warns ANALYZE_TARGET_UNRESOLVED when the request cannot be resolved", () => {
  const source = [
    "import { sharedRequest } from './shared.ts';",
    "export function a(req) { return client.evaluate(req); }",
    "export function b() { return client.evaluate(sharedRequest); }",
    "export function c() { return client.evaluate(buildRequest()); }",
    "export function d() { return client.evaluate(this.request); }",
    "export function e(args) { return client.evaluate(...args); }",
    "export function f() { let r = { target: " + T + " }; return client.evaluate(r); }",
    "export function g() { return client.evaluate(globalRequest); }",
  ].join("\n");
  // Each warning points at the start of the call, `client.evaluate`.
  const expected = source.split("\n").slice(1).map((line, i) =>
    `ANALYZE_TARGET_UNRESOLVED@${i + 2}:${line.indexOf("client.evaluate") + 1}`
  );
  assert.deepEqual(warningsIn(source), expected);
  assert.equal(expected[0], "ANALYZE_TARGET_UNRESOLVED@2:33");
  const messages = discover(source).warnings.map((w) => w.message);
  assert.match(messages[0]!, /`req`, a function parameter/);
  assert.match(messages[1]!, /`sharedRequest`, imported from another module/);
  assert.match(messages[2]!, /`buildRequest\(\)`, a function call/);
  assert.match(messages[5]!, /`r`, declared with let/);
  assert.match(messages[6]!, /`globalRequest`, which is not declared in this file/);
  assert.equal(discover(source).points.length, 0);
});

Deno.test("discoverEvaluationPoints() warns ANALYZE_TARGET_UNRESOLVED when the target or a field cannot be resolved", () => {
  const cases: [string, RegExp][] = [
    ["function f(target) { client.evaluate({ target }); }", /`target`, a function parameter/],
    ["let t = " + T + "; client.evaluate({ target: t });", /`t`, declared with let/],
    ["var t = " + T + "; client.evaluate({ target: t });", /`t`, declared with var/],
    ["client.evaluate({ target: config.target });", /a property read at run time/],
    ["client.evaluate({ target: pick() });", /a function call/],
    ["client.evaluate({ target: { ...base, action: 'x' } });", /a spread of `base`/],
    ["client.evaluate({ ...base });", /a spread of `base`/],
    ["client.evaluate({ [key]: " + T + " });", /a computed property name/],
    [
      "function f(a) { client.evaluate({ target: { service: 's', resource: 'r', action: a } }); }",
      /"action" is `a`/,
    ],
    [
      "client.evaluate({ target: { service: `s${n}`, resource: 'r', action: 'a' } });",
      /built at run time/,
    ],
    ["const { target } = req; client.evaluate({ target });", /a destructured binding/],
    ["for (const t of ts) client.evaluate({ target: t });", /a loop variable/],
    ["try {} catch (t) { client.evaluate({ target: t }); }", /a catch binding/],
    ["client.evaluate({ get target() { return x; } });", /a method or accessor/],
    [
      "const t = ok ? a : b; client.evaluate({ target: t });",
      /`t`, which holds `ok \? a : b`, a conditional/,
    ],
  ];
  for (const [source, reason] of cases) {
    const { points, warnings } = discover(source);
    assert.deepEqual(points, [], source);
    assert.deepEqual(warnings.map((w) => w.code), ["ANALYZE_TARGET_UNRESOLVED"], source);
    assert.match(warnings[0]!.message, reason, source);
  }
});

Deno.test("discoverEvaluationPoints() warns ANALYZE_TARGET_INVALID for a target that can never be valid", () => {
  const cases: [string, RegExp][] = [
    ["client.evaluate({ target: { service: 's', resource: 'r' } });", /no "action"/],
    [
      "client.evaluate({ target: { service: '', resource: 'r', action: 'a' } });",
      /"service" is empty/,
    ],
    ["client.evaluate({ target: 'billing.invoice.create' });", /a string, not an object/],
    [
      "client.evaluate({ target: { service: 1, resource: 'r', action: 'a' } });",
      /a number, not a string/,
    ],
    [
      "client.evaluate({ target: { service: 's', resource: {}, action: 'a' } });",
      /an object, not a string/,
    ],
  ];
  for (const [source, reason] of cases) {
    const { points, warnings } = discover(source);
    assert.deepEqual(points, [], source);
    assert.deepEqual(warnings.map((w) => w.code), ["ANALYZE_TARGET_INVALID"], source);
    assert.match(warnings[0]!.message, reason, source);
  }
});

Deno.test("discoverEvaluationPoints() follows scopes: the innermost declaration wins", () => {
  const source = `
    const target = ${T};
    function shadowedByParameter(target) { return client.evaluate({ target }); }
    function shadowedByLet() { let target = other; return client.evaluate({ target }); }
    function shadowedByConst(target) {
      { const target = { service: "inner", resource: "block", action: "const" };
        client.evaluate({ target }); }
      return client.evaluate({ target });
    }
    function notShadowed() { return client.evaluate({ target }); }
    function hoistedVar() { if (x) { var target = other; } return client.evaluate({ target }); }
  `;
  const { points, warnings } = discover(source);
  assert.deepEqual(points.map((p) => [p.line, p.target.service]), [[7, "inner"], [10, "billing"]]);
  assert.deepEqual(warnings.map((w) => w.line), [3, 4, 8, 11]);
});

Deno.test("discoverEvaluationPoints() gives up on cycles instead of hanging", () => {
  const source = `
    const a = b;
    const b = a;
    const loop = { ...loop, target: loop.target };
    const self = { ...self };
    client.evaluate(a);
    client.evaluate(loop);
    client.evaluate({ target: self });
  `;
  const { points, warnings } = discover(source);
  assert.deepEqual(points, []);
  assert.deepEqual(warnings.map((w) => [w.code, w.line]), [
    ["ANALYZE_TARGET_UNRESOLVED", 6],
    ["ANALYZE_TARGET_UNRESOLVED", 7],
    ["ANALYZE_TARGET_UNRESOLVED", 8],
  ]);
});

Deno.test("discoverEvaluationPoints() parses each file ending with its own grammar", () => {
  // An angle-bracket assertion is TypeScript only; JSX is .tsx/.jsx (and .js) only.
  const assertion = `const t = <const>${T}; client.evaluate({ target: t });`;
  assert.deepEqual(targetsIn(assertion, "a.ts"), [FOUND]);
  assert.deepEqual(targetsIn(assertion, "a.mts"), [FOUND]);
  const jsx = `const el = <Button onClick={() => client.evaluate({ target: ${T} })} />;`;
  assert.deepEqual(targetsIn(jsx, "a.tsx"), [FOUND]);
  assert.deepEqual(targetsIn(jsx, "a.jsx"), [FOUND]);
  assert.deepEqual(targetsIn(jsx, "a.js"), [FOUND]);
  const commonJs =
    `const { x } = require("y"); module.exports = (c) => c.evaluate({ target: ${T} });`;
  assert.deepEqual(targetsIn(commonJs, "a.cjs"), [FOUND]);
  assert.deepEqual(targetsIn(`export default await c.evaluate({ target: ${T} });`, "a.mjs"), [
    FOUND,
  ]);
  // In a .tsx file `<T>` starts JSX: the generic arrow needs a comma, and still parses.
  assert.deepEqual(targetsIn(`const f = <X,>(x: X) => c.evaluate({ target: ${T} });`, "a.tsx"), [
    FOUND,
  ]);
});

Deno.test("discoverEvaluationPoints() still finds points in a file with syntax errors elsewhere", () => {
  const source = `client.evaluate({ target: ${T} });\nconst broken = {;\n`;
  assert.deepEqual(targetsIn(source), [FOUND]);
});

Deno.test("discoverEvaluationPoints() counts columns in UTF-16 code units and skips a byte order mark", () => {
  const source = `\uFEFFconst émoji = "😀"; client.evaluate({ target: ${T} });`;
  const [point] = discover(source).points;
  // "const émoji = "😀"; " is 20 code units ("😀" counts 2); the BOM is not a column.
  assert.deepEqual([point?.line, point?.column], [1, 21]);
});

Deno.test("discoverEvaluationPoints() returns points and warnings sorted by position", () => {
  const source = `
    a.evaluate(req1); b.evaluate({ target: ${T} });
    c.evaluate({ target: ${T} }); d.evaluate(req2);
  `;
  const lines = source.split("\n");
  const { points, warnings } = discover(source);
  assert.deepEqual(points.map((p) => [p.line, p.column]), [
    [2, lines[1]!.indexOf("b.evaluate") + 1],
    [3, lines[2]!.indexOf("c.evaluate") + 1],
  ]);
  assert.deepEqual(warnings.map((w) => [w.line, w.column]), [
    [2, lines[1]!.indexOf("a.evaluate") + 1],
    [3, lines[2]!.indexOf("d.evaluate") + 1],
  ]);
});

Deno.test("discoverEvaluationPoints() handles very long expression chains of minified code", () => {
  const chain = Array.from({ length: 50_000 }, (_, i) => `a${i}`).join("+");
  const source = `const x=${chain};client.evaluate({target:${T}});`;
  assert.deepEqual(targetsIn(source, "bundle.min.js"), [FOUND]);
});

Deno.test("discoverEvaluationPoints() skips a file nested too deeply to parse with ANALYZE_FILE_UNPARSABLE", () => {
  const source = `client.evaluate({ target: ${T} });\nconst y = ${"[".repeat(100_000)}${
    "]".repeat(100_000)
  };`;
  const { points, warnings } = discover(source, "generated.js");
  assert.deepEqual(points, []);
  assert.deepEqual(
    warnings.map(({ code, file, line, column }) => [code, file, line, column]),
    [["ANALYZE_FILE_UNPARSABLE", "generated.js", 1, 1]],
  );
});
