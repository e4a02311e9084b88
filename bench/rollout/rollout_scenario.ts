// The rollout benchmark's workload (docs/performance.md "Rollouts"): N targets, each with one
// rule, allow when `rollout` puts `userId` in [0, 30) of salt "new-checkout", and a policy
// default of deny; and its floor, the same decision in straight-line code: the request checked,
// the target looked up, `userId` read as an own property, `salt:userId` encoded as UTF-8 into a
// buffer kept between calls, MurmurHash3 x86 32-bit over the bytes, the bucket compared.
import type { RuntimeBundleV1 } from "../../mod.ts";
import type { BenchRequest, Floor } from "../scenarios/scenario.ts";
import { TargetIndex } from "../scenarios/scenario.ts";
import { threeRuleTarget } from "../scenarios/three_rules.ts";

/** The salt and the upper bound of every target's rollout. */
export const SALT = "new-checkout";
export const TO = 30;

/** A bundle of `n` targets, each with the rollout rule and a deny default. */
export function rolloutBundle(n: number): RuntimeBundleV1 {
  const policies = [];
  for (let i = 0; i < n; i++) {
    policies.push({
      policyKey: `policy-${i}`,
      activeVersion: 1,
      defaults: { effect: "deny" as const },
      rules: [{
        id: "thirty-percent",
        status: "active" as const,
        priority: 1,
        target: threeRuleTarget(i),
        when: { op: "rollout" as const, path: "userId", salt: SALT, to: TO },
        effect: { type: "allow" as const },
      }],
    });
  }
  return { schemaVersion: 1, env: "prod", policies };
}

/** User ids the requests rotate over: strings of the usual shapes, and whole numbers. */
export const USER_IDS: readonly unknown[] = Array.from(
  { length: 64 },
  (_, i) =>
    i % 4 === 0
      ? 100_000 + i
      : i % 4 === 1
      ? `user-${i}`
      : i % 4 === 2
      ? `9f1c2e7a-4b3d-4c8e-9a2f-${String(i).padStart(12, "0")}`
      : `cus_${i}@example.com`,
);

/** The requests of the benchmark at `n` targets: targets spread over the bundle, users in turn. */
export function rolloutRequests(n: number, count: number): BenchRequest[] {
  return Array.from({ length: count }, (_, q) => ({
    target: threeRuleTarget((q * 7919) % n),
    context: { userId: USER_IDS[q % USER_IDS.length], plan: "pro" },
  }));
}

const INVALID = "a request needs a target of three strings and a plain-object context";
const OBJECT = Object.prototype;
const hasOwn = Object.hasOwn;
const getPrototypeOf = Object.getPrototypeOf;
const isSafeInteger = Number.isSafeInteger;

/** The floor at `n` targets (tests/bench/rollout_floor_test.ts checks it decides as the engine). */
export function rolloutFloor(n: number): Floor {
  const index = new TargetIndex<string>();
  for (let i = 0; i < n; i++) index.set(threeRuleTarget(i), `policy-${i}`);
  const services = index.maps();
  const encoder = new TextEncoder();
  const prefix = encoder.encode(`${SALT}:`);
  let buffer = new Uint8Array(1024);
  buffer.set(prefix);
  let rest = buffer.subarray(prefix.length);
  return (request) => {
    const target = request.target;
    if (
      typeof target !== "object" || target === null || typeof target.service !== "string" ||
      typeof target.resource !== "string" || typeof target.action !== "string"
    ) throw new TypeError(INVALID);
    let ctx = request.context;
    if (ctx === undefined) ctx = {};
    else if (typeof ctx !== "object" || ctx === null) throw new TypeError(INVALID);
    else {
      const proto = getPrototypeOf(ctx);
      if (proto !== OBJECT && proto !== null) throw new TypeError(INVALID);
    }
    const policyKey = services.get(target.service)?.get(target.resource)?.get(target.action);
    if (policyKey === undefined) return { decision: "deny", reason: "default" };
    const id = ctx.userId;
    const text = typeof id === "string"
      ? (id.length > 0 ? id : undefined)
      : isSafeInteger(id)
      ? String(id)
      : undefined;
    if (text !== undefined && hasOwn(ctx, "userId")) {
      if (text.length * 3 > rest.length) {
        buffer = new Uint8Array(prefix.length + text.length * 3);
        buffer.set(prefix);
        rest = buffer.subarray(prefix.length);
      }
      const length = prefix.length + encoder.encodeInto(text, rest).written;
      const whole = length & ~3;
      let h = 0;
      for (let i = 0; i < whole; i += 4) {
        let k = buffer[i]! | (buffer[i + 1]! << 8) | (buffer[i + 2]! << 16) |
          (buffer[i + 3]! << 24);
        k = Math.imul(k, 0xcc9e2d51);
        k = (k << 15) | (k >>> 17);
        h ^= Math.imul(k, 0x1b873593);
        h = (h << 13) | (h >>> 19);
        h = (Math.imul(h, 5) + 0xe6546b64) | 0;
      }
      const left = length & 3;
      if (left > 0) {
        let k = buffer[whole]!;
        if (left > 1) k |= buffer[whole + 1]! << 8;
        if (left > 2) k |= buffer[whole + 2]! << 16;
        k = Math.imul(k, 0xcc9e2d51);
        k = (k << 15) | (k >>> 17);
        h ^= Math.imul(k, 0x1b873593);
      }
      h ^= length;
      h ^= h >>> 16;
      h = Math.imul(h, 0x85ebca6b);
      h ^= h >>> 13;
      h = Math.imul(h, 0xc2b2ae35);
      h ^= h >>> 16;
      if ((h >>> 0) / 4294967296 * 100 < TO) {
        return { decision: "allow", reason: "rule", policyKey, ruleId: "thirty-percent" };
      }
    }
    return { decision: "deny", reason: "default", policyKey };
  };
}
