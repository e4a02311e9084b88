// This module is browser compatible.
/**
 * The canonical payload that checksum and signature cover (`docs/bundle-format.md`,
 * "Canonical payload, checksum, ETag"): a projection of the bundle serialised with keys
 * sorted at every depth (UTF-16 code unit order), no whitespace, and
 * `JSON.stringify` escaping and number format.
 *
 * @module
 */
import type { RuntimeBundleV1 } from "./types.ts";
import { MAX_JSON_DEPTH, tooDeep, Utf8Writer } from "./_utf8_writer.ts";
import { isCanonicallyOrdered, prototypesAsBuilt } from "./_canonical_order.ts";
import { subtleCrypto } from "../_internal/subtle_crypto.ts";
import { toHex } from "../_internal/encoding.ts";
import { isRecord } from "../_internal/guards.ts";
import { PolicyError } from "../public/policy_error.ts";

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
  // A document whose keys are already in order (as our tools write bundles) is
  // what JSON.stringify writes, natively and about three times faster.
  if (isCanonicallyOrdered(value)) return new TextEncoder().encode(JSON.stringify(value));
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
 * @throws {PolicyError} `BUNDLE_INVALID` for a document without the shape of
 * a bundle (see {@link sortBundleKeys}), nested too deep, or holding a number
 * that is not finite.
 */
export function canonicalPayloadBytes(
  bundle: RuntimeBundleV1,
  sizeHint?: number,
): Uint8Array<ArrayBuffer> {
  return canonicalJsonBytes(projection(bundle), sizeHint);
}

/**
 * {@link canonicalPayloadBytes} for the load pipeline (`loadBundle`), of a
 * document it parsed with `parseJson` (plain objects and arrays, strings,
 * finite numbers, booleans and null) and validated, which told in
 * `keysInOrder` whether every rule and default lists its keys in canonical
 * order (`validateForLoad`). The payload is then what `JSON.stringify`
 * writes, without a walk of its own to find out; otherwise the writer's.
 * Not exported by `mod.ts`.
 */
export function canonicalPayloadBytesOfParsed(
  bundle: RuntimeBundleV1,
  sizeHint: number,
  keysInOrder: boolean,
): Uint8Array<ArrayBuffer> {
  const value = projection(bundle);
  if (keysInOrder && prototypesAsBuilt()) {
    return new TextEncoder().encode(JSON.stringify(value));
  }
  const out = new Utf8Writer(sizeHint);
  out.value(value, 0);
  return out.bytes();
}

/**
 * The part of a bundle the payload covers, as an object whose own keys are
 * in order, so that only the bundle's own objects decide whether the fast
 * path of {@link canonicalJsonBytes} applies.
 */
function projection(bundle: RuntimeBundleV1): Record<string, unknown> {
  checkShape(bundle);
  const projection: Record<string, unknown> = { env: bundle.env };
  if (hasOwn(bundle, "orgId")) projection.orgId = bundle.orgId;
  projection.policies = bundle.policies.map((policy) => {
    const p: Record<string, unknown> = { activeVersion: policy.activeVersion };
    if (hasOwn(policy, "defaults")) p.defaults = policy.defaults;
    p.policyKey = policy.policyKey;
    p.rules = policy.rules;
    return p;
  });
  if (hasOwn(bundle, "projectId")) projection.projectId = bundle.projectId;
  projection.schemaVersion = bundle.schemaVersion;
  return projection;
}

/**
 * A copy of `bundle` in which every rule and every policy default lists its
 * keys in canonical order (by UTF-16 code units, at every depth), as the
 * canonical payload does; the top level and each policy keep their own order
 * (`schemaVersion` and `policyKey` first, for readers). The canonical payload
 * of such a bundle is what `JSON.stringify` writes, so loading it takes a
 * faster path. `signBundle` and `policy build` return and write bundles in
 * this form. The bundle must be plain JSON data; values are not copied
 * beyond the rules and defaults.
 *
 * @throws {PolicyError} `BUNDLE_INVALID` when the bundle is not an object
 * whose `policies` is a list of objects, each with a `rules` list.
 *
 * @example
 * ```ts
 * import { sortBundleKeys } from "./canonical_payload.ts";
 * import assert from "node:assert/strict";
 *
 * const rule = { id: "r", status: "active" as const, priority: 1, target: { service: "s", resource: "r", action: "a" }, effect: { type: "allow" as const } };
 * const sorted = sortBundleKeys({ schemaVersion: 1, env: "dev", policies: [{ policyKey: "p", activeVersion: 1, rules: [rule] }] });
 * assert.deepEqual(Object.keys(sorted.policies[0]!.rules[0]!), ["effect", "id", "priority", "status", "target"]);
 * assert.deepEqual(Object.keys(sorted.policies[0]!.rules[0]!.target), ["action", "resource", "service"]);
 * ```
 */
export function sortBundleKeys<T extends RuntimeBundleV1>(bundle: T): T {
  checkShape(bundle);
  return {
    ...bundle,
    policies: bundle.policies.map((policy) => {
      const copy = { ...policy, rules: policy.rules.map((rule) => sortedCopy(rule, 0)) };
      if (policy.defaults !== undefined) copy.defaults = sortedCopy(policy.defaults, 0);
      return copy;
    }),
  };
}

function sortedCopy<T>(value: T, depth: number): T {
  if (typeof value !== "object" || value === null) return value;
  if (depth >= MAX_JSON_DEPTH) throw tooDeep();
  if (Array.isArray(value)) return value.map((item) => sortedCopy(item, depth + 1)) as T;
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    const item = sortedCopy((value as Record<string, unknown>)[key], depth + 1);
    // A "__proto__" key of a parsed document is data: define it, do not set the prototype.
    if (key === "__proto__") {
      Object.defineProperty(copy, key, {
        value: item,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    } else {
      copy[key] = item;
    }
  }
  return copy as T;
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
 * @throws {PolicyError} `BUNDLE_INVALID` as {@link canonicalPayloadBytes}.
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
  const hex = toHex(await subtleCrypto().digest("SHA-256", canonicalPayloadBytes(bundle)));
  return { checksum: `sha256:${hex}`, etag: `"${hex}"` };
}

/**
 * Refuses a bundle the payload cannot be projected from: what the functions
 * here read (the bundle, its `policies` list, each policy, each `rules`
 * list) must have its shape, so that a malformed document is
 * `BUNDLE_INVALID`, never a `TypeError` (docs/errors.md). The rest is
 * `validateBundle`'s to judge.
 */
function checkShape(bundle: unknown): asserts bundle is RuntimeBundleV1 {
  const problem = !isRecord(bundle)
    ? "it is not an object"
    : !Array.isArray(bundle.policies)
    ? "its policies is not a list"
    : bundle.policies.findIndex((policy) => !isRecord(policy) || !Array.isArray(policy.rules));
  if (problem === -1) return;
  throw new PolicyError(
    "BUNDLE_INVALID",
    `the bundle has no canonical payload: ${
      typeof problem === "string"
        ? problem
        : `policies[${problem}] is not an object with a rules list`
    }; validate it with validateBundle (or policy validate) for every issue`,
  );
}

function hasOwn(object: object, key: string): boolean {
  return Object.hasOwn(object, key) && (object as Record<string, unknown>)[key] !== undefined;
}
