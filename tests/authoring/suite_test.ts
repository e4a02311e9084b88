import assert from "node:assert/strict";
import { compileBundle } from "../../src/engine/compile_bundle.ts";
import { checkSuite, describeOutcome, runSuite } from "../../src/authoring/suite.ts";

const target = { service: "billing", resource: "invoice", action: "create" };
const compiled = compileBundle({
  schemaVersion: 1,
  env: "test",
  policies: [{
    policyKey: "billing",
    activeVersion: 1,
    defaults: { effect: "deny" },
    rules: [
      {
        id: "pro",
        status: "active",
        priority: 10,
        target,
        when: { op: "eq", path: "plan", value: "pro" },
        effect: { type: "allow" },
      },
      {
        id: "never-reached",
        status: "active",
        priority: 5,
        target,
        when: { op: "eq", path: "plan", value: "gold" },
        effect: { type: "allow" },
      },
      {
        id: "off",
        status: "disabled",
        priority: 1,
        target,
        effect: { type: "kill_switch", killSwitch: { service: "billing" } },
      },
    ],
  }],
});

Deno.test("checkSuite returns the scenarios of a valid suite and warns on unknown fields", () => {
  const checked = checkSuite({
    name: "s",
    scenarios: [{ name: "a", target, expected: { decision: "allow", ruleID: "pro" } }],
  });
  assert.deepEqual(checked.problems, []);
  assert.equal(checked.name, "s");
  assert.deepEqual(checked.scenarios, [{
    name: "a",
    target,
    context: {},
    expected: { decision: "allow" },
  }]);
  assert.deepEqual(checked.warnings.map((w) => [w.code, w.path]), [
    ["UNKNOWN_FIELD", "/scenarios/0/expected/ruleID"],
  ]);
  assert.match(checked.warnings[0]!.message, /did you mean "ruleId"/);
  // Under --strict the unknown field is a problem, and no scenario is returned.
  const strict = checkSuite({
    name: "s",
    scenarios: [{ name: "a", target, expected: { decision: "allow", ruleID: "pro" } }],
  }, { strict: true });
  assert.deepEqual(strict.problems, ["1 unknown field(s), which --strict refuses"]);
  assert.deepEqual(strict.scenarios, []);
});

Deno.test("checkSuite lists every problem of an invalid suite", () => {
  assert.deepEqual(checkSuite([]).problems, [
    "a suite must be a JSON object with name and scenarios",
  ]);
  assert.deepEqual(
    checkSuite({
      scenarios: [
        7,
        { name: "", target: { service: "s" }, context: [], expected: { decision: "maybe" } },
      ],
    }).problems,
    [
      "name must be a non-empty string",
      "scenarios[0] must be an object",
      "scenarios[1].name must be a non-empty string",
      "scenarios[1].target must be {service, resource, action} (strings)",
      "scenarios[1].context must be an object",
      "scenarios[1].expected.decision must be one of kill_switch, deny, throttle, allow, custom",
    ],
  );
});

Deno.test("runSuite compares only the expected fields and reports the rules no scenario fired", () => {
  const { scenarios } = checkSuite({
    name: "s",
    scenarios: [
      { name: "pro", target, context: { plan: "pro" }, expected: { decision: "allow" } },
      {
        name: "free, wrong rule expected",
        target,
        context: { plan: "free" },
        expected: { decision: "deny", ruleId: "pro", reason: "default" },
      },
    ],
  });
  let clock = 100;
  const run = runSuite(compiled, scenarios, { now: () => (clock += 5) });
  assert.deepEqual(run.results.map((r) => [r.name, r.passed, r.mismatches, r.durationMs]), [
    ["pro", true, [], 5],
    ["free, wrong rule expected", false, ["ruleId"], 5],
  ]);
  assert.deepEqual(run.results[1]!.actual, {
    decision: "deny",
    reason: "default",
    policyKey: "billing",
  });
  assert.deepEqual(run.summary, { scenarios: 2, passed: 1, failed: 1, durationMs: 25 });
  // Disabled rules are not counted; "never-reached" never fired.
  assert.deepEqual(run.coverage, {
    activeRules: 2,
    exercised: 1,
    unexercised: [{ policyKey: "billing", ruleId: "never-reached" }],
  });
  assert.equal(
    describeOutcome(run.results[1]!.actual),
    "deny (reason default, policy billing)",
  );
});
