/**
 * A bundle with one target per decision, the requests the guard tests send,
 * and the response fields read back with an independent Structured Field
 * parser (`structured-headers`, RFC 9651).
 *
 * @module
 */
import assert from "node:assert/strict";
import { parseList } from "structured-headers";
import {
  compileBundle,
  createEvaluator,
  type RuntimeBundleV1,
  type Target,
} from "../../src/engine/mod.ts";
import type { EvaluatesRequests } from "../../src/enforce/mod.ts";

/** Targets by what their policy decides. */
export const TARGETS = {
  allow: { service: "shop", resource: "cart", action: "read" },
  deny: { service: "shop", resource: "cart", action: "delete" },
  kill: { service: "search", resource: "index", action: "query" },
  throttle: { service: "billing", resource: "invoice", action: "export" },
  custom: { service: "shop", resource: "banner", action: "read" },
  defaultThrottle: { service: "shop", resource: "report", action: "read" },
} as const satisfies Record<string, Target>;

/** `billing.invoice.export` admits `limit` per `windowSeconds` per tenant. */
export function enforcementBundle(limit = 3, windowSeconds = 60): RuntimeBundleV1 {
  const rule = (id: string, target: Target, effect: Record<string, unknown>) => ({
    id,
    status: "active" as const,
    priority: 10,
    target,
    effect: effect as never,
  });
  return {
    schemaVersion: 1,
    env: "test",
    policies: [
      {
        policyKey: "shop.cart",
        activeVersion: 1,
        rules: [
          rule("read", TARGETS.allow, { type: "allow" }),
          rule("no-delete", TARGETS.deny, { type: "deny" }),
        ],
      },
      {
        policyKey: "search.index.query",
        activeVersion: 1,
        rules: [rule("search-off", TARGETS.kill, {
          type: "kill_switch",
          killSwitch: { service: "search", reason: "index rebuild in progress" },
        })],
      },
      {
        policyKey: "billing.invoice.export",
        activeVersion: 1,
        rules: [rule("per-tenant", TARGETS.throttle, {
          type: "throttle",
          throttle: { limit, windowSeconds, key: "tenant" },
        })],
      },
      {
        policyKey: "shop.banner",
        activeVersion: 1,
        rules: [rule("banner", TARGETS.custom, { type: "custom", value: '{"color":"red"}' })],
      },
      {
        policyKey: "shop.report",
        activeVersion: 1,
        rules: [{
          ...rule("only-pro", TARGETS.defaultThrottle, { type: "allow" }),
          when: { op: "eq", path: "plan", value: "pro" },
        }],
        defaults: {
          effect: "throttle",
          throttle: { limit: 1, windowSeconds: 3600, key: "user.id" },
        },
      },
    ],
  };
}

/** A client (`{ evaluate }`) over {@link enforcementBundle}. */
export function enforcementClient(limit?: number, windowSeconds?: number): EvaluatesRequests {
  const evaluate = createEvaluator(compileBundle(enforcementBundle(limit, windowSeconds)), {
    parseCustomEffect: true,
  });
  return { evaluate };
}

/** The target a test request names in its path: `/allow`, `/throttle`, … */
export function targetOfPath(pathname: string): Target {
  const name = pathname.slice(1) as keyof typeof TARGETS;
  assert.ok(Object.hasOwn(TARGETS, name), `no target for ${pathname}`);
  return TARGETS[name];
}

/** `RateLimit-Policy` read with structured-headers: one item, a String name, `q` and `w`. */
export function readRateLimitPolicy(field: string | null): { name: string; q: number; w: number } {
  assert.ok(field !== null, "RateLimit-Policy is present");
  const list = parseList(field);
  assert.equal(list.length, 1);
  const [name, parameters] = list[0]!;
  assert.equal(typeof name, "string");
  assert.deepEqual([...parameters.keys()], ["q", "w"]);
  return {
    name: name as string,
    q: parameters.get("q") as number,
    w: parameters.get("w") as number,
  };
}

/** `RateLimit` read with structured-headers: one item, a String name, `r` and `t`. */
export function readRateLimit(field: string | null): { name: string; r: number; t?: number } {
  assert.ok(field !== null, "RateLimit is present");
  const list = parseList(field);
  assert.equal(list.length, 1);
  const [name, parameters] = list[0]!;
  assert.equal(typeof name, "string");
  const t = parameters.get("t");
  for (const key of parameters.keys()) assert.ok(key === "r" || key === "t", key);
  return {
    name: name as string,
    r: parameters.get("r") as number,
    ...(t === undefined ? {} : { t: t as number }),
  };
}
