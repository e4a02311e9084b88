// This module is browser compatible.
/**
 * The bucket of a throttle decision (docs/enforcement.md "Buckets"): the
 * policy, the rule (null for a policy default), the `key`, the window, and
 * the context's value at `key`. The limit is not part of it, so a reload that
 * changes only the limit keeps the counts; a new window starts a new bucket.
 *
 * @module
 */
import { compilePath } from "../engine/_compile_condition.ts";
import { toHex } from "../engine/canonical_payload.ts";
import type { Decision, ThrottleDescriptor } from "../engine/types.ts";

/** Identities longer than this are replaced by their SHA-256, so a bucket's size is bounded. */
const MAX_IDENTITY_LENGTH = 256;

/** Compiled readers of `key` paths; bundles hold few keys, the cap bounds a hostile caller. */
const readers = new Map<string, (context: Record<string, unknown>) => unknown>();
const MAX_READERS = 1024;

/**
 * The context's value at `key`, read as conditions read paths (own
 * properties of plain objects, one leading `ctx.` stripped). Strings,
 * finite numbers and booleans are values; anything else — absent, null,
 * objects, arrays — is `null`: one shared bucket, so omitting the key never
 * escapes the limit.
 */
export function keyValue(
  key: string,
  context: Record<string, unknown> | undefined,
): string | number | boolean | null {
  if (context === undefined) return null;
  let read = readers.get(key);
  if (read === undefined) {
    if (readers.size >= MAX_READERS) readers.clear();
    read = compilePath(key);
    readers.set(key, read);
  }
  const value = read(context);
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
  decision: Decision,
  throttle: ThrottleDescriptor,
  window: number,
  context: Record<string, unknown> | undefined,
): string | Promise<string> {
  const identity = JSON.stringify([
    decision.policyKey ?? null,
    decision.ruleId ?? null,
    throttle.key,
    window,
    keyValue(throttle.key, context),
  ]);
  if (identity.length <= MAX_IDENTITY_LENGTH) return identity;
  return crypto.subtle.digest("SHA-256", new TextEncoder().encode(identity))
    .then((digest) => `sha256:${toHex(digest)}`);
}
