// This module is browser compatible.
/**
 * The bucket of a throttle decision (docs/enforcement.md "Buckets"): the
 * policy, the rule (null for a policy default), the `key`, the window, and
 * the context's value at `key`. The limit is not part of it, so a reload that
 * changes only the limit keeps the counts; a new window starts a new bucket.
 * What does not depend on the request is computed once per throttle rule
 * ({@link throttleShape}).
 *
 * @module
 */
import { compilePath } from "../engine/compile_condition.ts";
import { subtleCrypto } from "../_internal/subtle_crypto.ts";
import { toHex } from "../_internal/encoding.ts";
import type { Decision, ThrottleDescriptor } from "../engine/types.ts";
import { rateLimitPolicy, sfString } from "./_rate_limit_fields.ts";

/** Identities longer than this are replaced by their SHA-256, so a bucket's size is bounded. */
const MAX_IDENTITY_LENGTH = 256;

/** What a throttle rule's requests share: its bucket identity but the value, its names and fields. */
export interface ThrottleShape {
  /** `[policyKey, ruleId, key, window,` as JSON: the bucket identity without the value. */
  identity: string;
  /** Reads the value at `key` from a context. */
  read: (context: Record<string, unknown>) => unknown;
  /** The throttle's name (`<policyKey>/<ruleId>`, or the policy key of a default). */
  name: string;
  /** {@link name} as a Structured Field String. */
  quotedName: string;
  /** The `RateLimit-Policy` field. */
  policyField: string;
}

/** Shapes by rule, limit and window; bundles hold few throttles, the cap bounds odd callers. */
const shapes = new Map<string, ThrottleShape>();
const MAX_SHAPES = 1024;

/** The shape of `decision`'s throttle with the enforced `limit` and `window`, computed once. */
export function throttleShape(
  decision: Decision,
  throttle: ThrottleDescriptor,
  limit: number,
  window: number,
): ThrottleShape {
  const { policyKey, ruleId } = decision;
  const { key } = throttle;
  // Length-prefixed, so that no two rules share a cache key.
  const cacheKey = `${policyKey?.length ?? -1}:${policyKey ?? ""}${ruleId?.length ?? -1}:${
    ruleId ?? ""
  }${key.length}:${key}${window}:${limit}`;
  let shape = shapes.get(cacheKey);
  if (shape === undefined) {
    const policy = policyKey ?? "policy";
    const name = ruleId === undefined ? policy : `${policy}/${ruleId}`;
    const identity = JSON.stringify([policyKey ?? null, ruleId ?? null, key, window]);
    shape = {
      identity: `${identity.slice(0, -1)},`,
      read: compilePath(key),
      name,
      quotedName: sfString(name),
      policyField: rateLimitPolicy(name, limit, window),
    };
    if (shapes.size >= MAX_SHAPES) shapes.clear();
    shapes.set(cacheKey, shape);
  }
  return shape;
}

/**
 * The context's value at the throttle's `key`, read as conditions read
 * paths (own properties of plain objects, one leading `ctx.` stripped).
 * Strings, finite numbers and booleans are values; anything else — absent,
 * null, objects, arrays — is `null`: one shared bucket, so omitting the key
 * never escapes the limit.
 */
export function keyValue(
  shape: ThrottleShape,
  context: Record<string, unknown> | undefined,
): string | number | boolean | null {
  if (context === undefined) return null;
  const value = shape.read(context);
  return typeof value === "string" || typeof value === "boolean" ||
      (typeof value === "number" && Number.isFinite(value))
    ? value
    : null;
}

/**
 * The bucket name a store counts in: the identity as JSON, or (a promise of)
 * `sha256:<hex>` of it when long.
 */
export function bucketOf(
  shape: ThrottleShape,
  context: Record<string, unknown> | undefined,
): string | Promise<string> {
  const identity = `${shape.identity}${JSON.stringify(keyValue(shape, context))}]`;
  if (identity.length <= MAX_IDENTITY_LENGTH) return identity;
  return subtleCrypto().digest("SHA-256", new TextEncoder().encode(identity))
    .then((digest) => `sha256:${toHex(digest)}`);
}
