/**
 * The toolkit licence (`docs/license.md`): the signed licence document, the
 * built-in issuer key, the grace period and the activation protocol. Used by
 * the `policy` CLI only (`build`, `sign`, `activate`); the library never
 * needs a licence and does not import this module.
 *
 * @example Issuing and verifying a licence with a throwaway key pair
 * ```ts
 * import { signLicense, verifyLicense } from "./mod.ts";
 * import assert from "node:assert/strict";
 *
 * const pair = await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, false, ["sign", "verify"]);
 * const license = await signLicense({
 *   schemaVersion: 1,
 *   licenseId: "lic_0001",
 *   licensee: "Acme Corp",
 *   issuedAt: "2026-01-01T00:00:00Z",
 *   expiresAt: "2027-01-01T00:00:00Z",
 *   features: ["toolkit"],
 * }, pair.privateKey, "stub-1");
 *
 * const now = new Date("2026-12-31T00:00:00Z");
 * const verified = await verifyLicense(license, { publicKey: pair.publicKey, now, source: "the licence" });
 * assert.equal(verified.daysLeft, 1);
 * await assert.rejects(
 *   verifyLicense({ ...license, licensee: "Someone else" }, { publicKey: pair.publicKey, now, source: "the licence" }),
 *   { code: "LICENSE_INVALID" },
 * );
 * ```
 *
 * @module
 */
export * from "./license_document.ts";
export * from "./license_public_key.ts";
export * from "./grace_period.ts";
export * from "./request_license.ts";
