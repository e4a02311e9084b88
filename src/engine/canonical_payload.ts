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
import { PolicyError } from "./policy_error.ts";

/** Nesting deeper than this cannot come from a valid bundle; refuse it rather than overflow the stack. */
const MAX_JSON_DEPTH = 512;

/**
 * Serialises `value` as JSON with object keys sorted at every depth and no
 * whitespace. Properties whose value is `undefined` are left out, as
 * `JSON.stringify` does. Works on the string directly, so a `__proto__` key
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
  return serialise(value, 0);
}

/** JSON-quoted object keys followed by ":", cached because bundles repeat their keys. */
const quotedKeys = new Map<string, string>();
const QUOTED_KEYS_MAX = 4096;

function serialise(value: unknown, depth: number): string {
  if (value === null || typeof value !== "object") {
    if (typeof value === "number" && !Number.isFinite(value)) {
      // JSON.stringify would write null: a signature over that could not tell
      // 1e400 (which parses to Infinity) from null, whose meaning differs.
      throw new PolicyError(
        "BUNDLE_INVALID",
        `the document holds a number that is not finite (${value}); JSON cannot represent it (a literal such as 1e400 overflows)`,
      );
    }
    // Primitives: JSON.stringify gives the escaping and number format.
    return JSON.stringify(value) ?? "null";
  }
  if (depth >= MAX_JSON_DEPTH) {
    throw new PolicyError(
      "BUNDLE_INVALID",
      `the document nests deeper than ${MAX_JSON_DEPTH} levels; flatten it`,
    );
  }
  if (Array.isArray(value)) {
    let out = "[";
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out += ",";
      out += serialise(value[i], depth + 1);
    }
    return out + "]";
  }
  const record = value as Record<string, unknown>;
  const keys = sortKeys(Object.keys(record));
  let out = "{";
  let first = true;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    const v = record[key];
    if (v === undefined || typeof v === "function" || typeof v === "symbol") continue;
    let quoted = quotedKeys.get(key);
    if (quoted === undefined) {
      quoted = JSON.stringify(key) + ":";
      if (quotedKeys.size < QUOTED_KEYS_MAX) quotedKeys.set(key, quoted);
    }
    out += first ? quoted : "," + quoted;
    first = false;
    out += serialise(v, depth + 1);
  }
  return out + "}";
}

/** Sorts keys by UTF-16 code units; insertion sort for the small objects bundles are made of. */
function sortKeys(keys: string[]): string[] {
  if (keys.length > 16) return keys.sort();
  for (let i = 1; i < keys.length; i++) {
    const key = keys[i]!;
    let j = i - 1;
    while (j >= 0 && keys[j]! > key) {
      keys[j + 1] = keys[j]!;
      j--;
    }
    keys[j + 1] = key;
  }
  return keys;
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
  return canonicalJson(projection);
}

/**
 * The canonical payload as UTF-8 bytes: what is hashed and signed.
 *
 * @example The bytes of the canonical payload
 * ```ts
 * import { canonicalPayload, canonicalPayloadBytes } from "./canonical_payload.ts";
 * import assert from "node:assert/strict";
 *
 * const bundle = { schemaVersion: 1 as const, env: "dev" as const, policies: [] };
 * assert.equal(new TextDecoder().decode(canonicalPayloadBytes(bundle)), canonicalPayload(bundle));
 * ```
 */
export function canonicalPayloadBytes(bundle: RuntimeBundleV1): Uint8Array<ArrayBuffer> {
  return new TextEncoder().encode(canonicalPayload(bundle));
}

/**
 * Lowercase hex of bytes.
 *
 * @example Two hex digits per byte
 * ```ts
 * import { toHex } from "./canonical_payload.ts";
 * import assert from "node:assert/strict";
 *
 * assert.equal(toHex(new Uint8Array([0, 15, 255])), "000fff");
 * ```
 */
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
