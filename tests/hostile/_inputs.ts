/**
 * Builders of hostile inputs: minimal valid rules and bundles, signed texts,
 * and deeply nested JSON built as text (so the builders themselves never
 * recurse).
 *
 * @module
 */
import assert from "node:assert/strict";
import {
  type LoadBundleOptions,
  type PolicyError,
  type RuntimeBundleV1,
  signBundle,
} from "../../mod.ts";

/** The target of {@link rule}. */
export const TARGET = Object.freeze({ service: "svc", resource: "doc", action: "read" });

/** A minimal valid rule at {@link TARGET}, with `extra` fields merged over it. */
export function rule(id = "r1", extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id,
    status: "active",
    priority: 1,
    target: { ...TARGET },
    effect: { type: "allow" },
    ...extra,
  };
}

/** A bundle with one policy `p` holding `rules`; `extra` is merged over the top level. */
export function bundleOf(
  rules: unknown[] = [rule()],
  extra: Record<string, unknown> = {},
  policyExtra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    schemaVersion: 1,
    env: "prod",
    policies: [{ policyKey: "p", activeVersion: 1, rules, ...policyExtra }],
    ...extra,
  };
}

/** The ECDSA P-256 key pair bundles are signed with. */
export const keys = await crypto.subtle.generateKey(
  { name: "ECDSA", namedCurve: "P-256" },
  false,
  ["sign", "verify"],
);

/** Load options that verify with {@link keys}. */
export const VERIFY: LoadBundleOptions = {
  verify: { algorithm: "ECDSA_SHA_256", publicKey: keys.publicKey },
};

/** `bundle` signed with {@link keys}, as compact JSON text. */
export async function signedText(bundle: Record<string, unknown>): Promise<string> {
  const signed = await signBundle(bundle as unknown as RuntimeBundleV1, {
    algorithm: "ECDSA_SHA_256",
    key: keys.privateKey,
    keyId: "hostile-test",
  });
  return JSON.stringify(signed);
}

/** `[[[…]]]`, `depth` levels. */
export function deepArray(depth: number): string {
  return "[".repeat(depth) + "]".repeat(depth);
}

/** `{"a":{"a":…1…}}`, `depth` levels. */
export function deepObject(depth: number): string {
  return '{"a":'.repeat(depth) + "1" + "}".repeat(depth);
}

/** A `not` chain of `depth` conditions in all: `depth - 1` nots around an `exists` leaf. */
export function notChain(depth: number, leaf = '{"op":"exists","path":"x"}'): string {
  return '{"op":"not","condition":'.repeat(depth - 1) + leaf + "}".repeat(depth - 1);
}

/**
 * The JSON text of `value` with the string `"<slot>"` replaced by raw JSON
 * text, so that deep or odd values can be put anywhere without building them
 * as objects.
 */
export function withRaw(value: unknown, raw: Record<string, string>): string {
  let text = JSON.stringify(value);
  for (const [slot, replacement] of Object.entries(raw)) {
    const quoted = JSON.stringify(slot);
    assert.ok(text.includes(quoted), `slot ${slot} is in the document`);
    text = text.replace(quoted, () => replacement);
  }
  return text;
}

// PolicyError assertions accepting one code or several: the project's shared helpers.
export {
  assertRejectsCode as rejectsWith,
  assertThrowsCode as throwsWith,
} from "../_assert_policy_error.ts";

/** The codes of a `BUNDLE_INVALID` error's issues. */
export function issueCodes(error: PolicyError): string[] {
  return error.issues.map((issue) => issue.code);
}

/** Milliseconds `fn` took, and its result. */
export async function timed<T>(fn: () => T | Promise<T>): Promise<{ ms: number; value: T }> {
  const started = performance.now();
  const value = await fn();
  return { ms: performance.now() - started, value };
}
