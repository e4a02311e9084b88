/**
 * The rollout benchmark's floor (bench/rollout/rollout_scenario.ts) decides
 * exactly as the engine does, on the benchmark's requests and on odd user
 * ids (numbers beyond 2^53, fractions, empty strings, non-ASCII text, lone
 * surrogates, inherited values): it does the same work, and nothing less.
 */
import assert from "node:assert/strict";
import { compileBundle, createEvaluator } from "../../mod.ts";
import {
  rolloutBundle,
  rolloutFloor,
  rolloutRequests,
} from "../../bench/rollout/rollout_scenario.ts";
import { threeRuleTarget } from "../../bench/scenarios/three_rules.ts";
import { fc } from "../properties/_arbitraries.ts";

const N = 24;

Deno.test("the rollout floor decides as the engine, on the benchmark's requests and odd user ids", () => {
  const evaluate = createEvaluator(compileBundle(rolloutBundle(N)));
  const floor = rolloutFloor(N);
  const requests = rolloutRequests(N, 256);
  for (const request of requests) assert.deepEqual(floor(request), evaluate(request));
  const decisions = new Set(requests.map((r) => floor(r).decision));
  assert.deepEqual([...decisions].sort(), ["allow", "deny"], "both outcomes are exercised");
  const userId = fc.oneof(
    fc.string({ maxLength: 400, unit: "binary" }),
    fc.integer(),
    fc.constantFrom(2 ** 53, -(2 ** 53 - 1), 1.5, -0, NaN, Infinity, "", true, null, undefined),
  );
  fc.assert(
    fc.property(userId, fc.nat(N - 1), fc.boolean(), (id, t, inherited) => {
      const request = { target: threeRuleTarget(t), context: inherited ? {} : { userId: id } };
      // An inherited userId (a polluted Object.prototype) is absent for both.
      const proto = Object.prototype as Record<string, unknown>;
      if (inherited) proto.userId = id;
      try {
        assert.deepEqual(floor(request), evaluate(request));
      } finally {
        delete proto.userId;
      }
    }),
    { numRuns: 2000 },
  );
  const missing = { target: { service: "x", resource: "y", action: "z" }, context: {} };
  assert.deepEqual(floor(missing), evaluate(missing));
});
