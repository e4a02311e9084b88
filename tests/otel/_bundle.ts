// The bundle of the telemetry tests: a throttle, and a conditional allow
// whose policy denies by default; and the targets that reach them.
import type { RuntimeBundleV1 } from "../../mod.ts";
import BUNDLE from "../testdata/otel/bundle.json" with { type: "json" };

/** The targets: a throttled report, an admin page (allow or the policy's deny), none. */
export const TARGETS = {
  REPORT: { service: "app", resource: "report", action: "read" },
  ADMIN: { service: "app", resource: "admin", action: "open" },
  OTHER: { service: "app", resource: "other", action: "x" },
} as const;

/**
 * The bundle (tests/testdata/otel/bundle.json, which the Node test reads
 * too) with `bundleVersion`: a throttle of 2 per minute per user, and a
 * conditional allow whose policy denies by default.
 */
export function bundle(bundleVersion: number): RuntimeBundleV1 {
  return { ...structuredClone(BUNDLE as RuntimeBundleV1), bundleVersion };
}
