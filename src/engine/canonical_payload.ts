// This module is browser compatible.
/**
 * The canonical payload that checksum and signature cover (SPEC.md "Canonical
 * payload", CONTRACT.md §3): a projection of the bundle serialised with keys
 * sorted at every depth (UTF-16 code unit order), no whitespace, and
 * `JSON.stringify` escaping and number format.
 *
 * @module
 */
import type { RuntimeBundleV1 } from "./types.ts";
import { Utf8Writer } from "./_utf8_writer.ts";

/**
 * Serialises `value` as JSON with object keys sorted at every depth and no
 * whitespace. Properties whose value is `undefined` are left out, as
 * `JSON.stringify` does. Works on the keys directly, so a `__proto__` key
 * of a parsed document is serialised like any other key.
 *
 * @example
 * ```ts
 * import { canonicalJson } from "./canonical_payload.ts";
 * import assert from "node:assert/strict";
 *
 * assert.equal(canonicalJson({ b: [2, { d: 1, c: null }], a: "é" }), '{"a":"é","b":[2,{"c":null,"d":1}]}');
 * ```
 */
export function canonicalJson(value: unknown): string {
  return new TextDecoder().decode(canonicalJsonBytes(value));
}

/**
 * {@link canonicalJson} as UTF-8 bytes, written directly (no intermediate string).
 *
 * @param sizeHint The expected size in bytes, so the buffer is allocated once.
 */
export function canonicalJsonBytes(value: unknown, sizeHint?: number): Uint8Array<ArrayBuffer> {
  const out = new Utf8Writer(sizeHint);
  out.value(value, 0);
  return out.bytes();
}

/**
 * The canonical payload of a bundle as a string: `{schemaVersion, orgId?,
 * projectId?, env, policies: [{policyKey, activeVersion, defaults?, rules}]}`,
 * with `?` fields only when present and every rule included whole.
 *
 * @example Excluded fields do not change the payload
 * ```ts
 * import { canonicalPayload } from "./canonical_payload.ts";
 * import assert from "node:assert/strict";
 *
 * const bundle = { schemaVersion: 1 as const, env: "prod" as const, policies: [] };
 * assert.equal(canonicalPayload(bundle), canonicalPayload({ ...bundle, bundleVersion: 7, etag: '"x"' }));
 * assert.equal(canonicalPayload(bundle), '{"env":"prod","policies":[],"schemaVersion":1}');
 * ```
 */
export function canonicalPayload(bundle: RuntimeBundleV1): string {
  return new TextDecoder().decode(canonicalPayloadBytes(bundle));
}

/**
 * The canonical payload as UTF-8 bytes: what is hashed and signed.
 *
 * @param sizeHint The expected size in bytes (the bundle file's size is a
 * good one), so the buffer is allocated once.
 */
export function canonicalPayloadBytes(
  bundle: RuntimeBundleV1,
  sizeHint?: number,
): Uint8Array<ArrayBuffer> {
  const projection: Record<string, unknown> = {
    schemaVersion: bundle.schemaVersion,
    env: bundle.env,
    policies: bundle.policies.map((policy) => {
      const p: Record<string, unknown> = {
        policyKey: policy.policyKey,
        activeVersion: policy.activeVersion,
        rules: policy.rules,
      };
      if (hasOwn(policy, "defaults")) p.defaults = policy.defaults;
      return p;
    }),
  };
  if (hasOwn(bundle, "orgId")) projection.orgId = bundle.orgId;
  if (hasOwn(bundle, "projectId")) projection.projectId = bundle.projectId;
  return canonicalJsonBytes(projection, sizeHint);
}

/** Lowercase hex of bytes. */
export function toHex(bytes: ArrayBuffer | Uint8Array): string {
  const view = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  let out = "";
  for (let i = 0; i < view.length; i++) out += view[i]!.toString(16).padStart(2, "0");
  return out;
}

/** The checksum and ETag of a bundle. */
export interface BundleDigest {
  /** `sha256:<64 lowercase hex>` over the canonical payload. */
  checksum: string;
  /** The same hex digest in double quotes. */
  etag: string;
}

/**
 * Computes the `sha256:` checksum and the ETag of a bundle's canonical payload.
 *
 * @example
 * ```ts
 * import { computeDigest } from "./canonical_payload.ts";
 * import assert from "node:assert/strict";
 *
 * const { checksum, etag } = await computeDigest({ schemaVersion: 1, env: "prod", policies: [] });
 * assert.match(checksum, /^sha256:[0-9a-f]{64}$/);
 * assert.equal(etag, `"${checksum.slice(7)}"`);
 * ```
 */
export async function computeDigest(bundle: RuntimeBundleV1): Promise<BundleDigest> {
  const hex = toHex(await crypto.subtle.digest("SHA-256", canonicalPayloadBytes(bundle)));
  return { checksum: `sha256:${hex}`, etag: `"${hex}"` };
}

function hasOwn(object: object, key: string): boolean {
  return Object.hasOwn(object, key) && (object as Record<string, unknown>)[key] !== undefined;
}
