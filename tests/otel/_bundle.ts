// The bundle of the telemetry tests: a throttle, and a conditional allow
// whose policy denies by default; and the targets that reach them.
import type { RuntimeBundleV1 } from "../../mod.ts";

/** The targets: a throttled report, an admin page (allow or the policy's deny), none. */
export const TARGETS = {
  REPORT: { service: "app", resource: "report", action: "read" },
  ADMIN: { service: "app", resource: "admin", action: "open" },
  OTHER: { service: "app", resource: "other", action: "x" },
} as const;

const { REPORT, ADMIN } = TARGETS;

/** A bundle of `bundleVersion` with a throttle, a conditional allow with a deny default. */
export function bundle(bundleVersion: number): RuntimeBundleV1 {
  return {
    schemaVersion: 1,
    env: "test",
    bundleVersion,
    policies: [{
      policyKey: "reports",
      activeVersion: 1,
      rules: [{
        id: "per-user",
        status: "active",
        priority: 1,
        target: REPORT,
        effect: { type: "throttle", throttle: { limit: 2, windowSeconds: 60, key: "user" } },
      }],
    }, {
      policyKey: "admin",
      activeVersion: 1,
      defaults: { effect: "deny" },
      rules: [{
        id: "admins",
        status: "active",
        priority: 1,
        target: ADMIN,
        when: { op: "eq", path: "role", value: "admin" },
        effect: { type: "allow" },
      }],
    }],
  };
}
