/**
 * Helpers of the client tests: temporary folders under the repository's
 * `.tmp/`, polling until a condition holds, and the ways a bundle file gets
 * written in production.
 *
 * @module
 */

import { type RuntimeBundleV1, signBundle } from "../../mod.ts";
import { toHex } from "../../src/_internal/encoding.ts";

/**
 * Deno.test with the op and resource sanitizers on: Deno 2.9 turns them off
 * by default, and the client tests need them to see a timer, a read or a
 * file left behind by close().
 */
export function test(name: string, fn: () => Promise<void>): void {
  Deno.test({ name, sanitizeOps: true, sanitizeResources: true, fn });
}

/**
 * Runs `fn` with `crypto.subtle.digest` replaced by `replacement(original)`,
 * then restores it. The load pipeline computes one digest per load, so this
 * counts loads or holds one midway.
 */
export async function withDigest<T>(
  replacement: (original: SubtleCrypto["digest"]) => SubtleCrypto["digest"],
  fn: () => Promise<T>,
): Promise<T> {
  const subtle = crypto.subtle;
  const original = subtle.digest;
  Object.defineProperty(subtle, "digest", {
    configurable: true,
    value: replacement(original.bind(subtle)),
  });
  try {
    return await fn();
  } finally {
    delete (subtle as { digest?: unknown }).digest;
  }
}

let counter = 0;

/** Writes `data` to a new file beside `path` and renames it over `path`, as editors and the CLI do. */
export async function writeAtomic(
  path: string,
  data: string | Uint8Array,
  mtime?: Date,
): Promise<void> {
  const temp = `${path}.${Deno.pid}.${++counter}.tmp`;
  if (typeof data === "string") await Deno.writeTextFile(temp, data);
  else await Deno.writeFile(temp, data);
  if (mtime !== undefined) await Deno.utime(temp, mtime, mtime);
  await Deno.rename(temp, path);
}

/** The target of {@link numberedBundle}. */
export const TARGET = Object.freeze({ service: "svc", resource: "doc", action: "read" });

/**
 * A bundle with one policy and one rule `rule-<n>` at {@link TARGET}, and
 * bundleVersion `n`. For n from 1 to 9 and one effect, every text has the
 * same length (so do their HMAC signatures).
 */
export function numberedBundle(n: number, effect: "allow" | "deny" = "allow"): RuntimeBundleV1 {
  return {
    schemaVersion: 1,
    env: "test",
    bundleVersion: n,
    policies: [{
      policyKey: "p",
      activeVersion: 1,
      rules: [{
        id: `rule-${n}`,
        status: "active",
        priority: 0,
        target: { ...TARGET },
        effect: { type: effect },
      }],
    }],
  };
}

/** A fresh 64-hex HMAC secret. */
export function hmacSecret(): string {
  return toHex(crypto.getRandomValues(new Uint8Array(32)));
}

/** `bundle` signed with HMAC-SHA256 under `secret`, as JSON text. */
export async function signedText(bundle: RuntimeBundleV1, secret: string): Promise<string> {
  return JSON.stringify(
    await signBundle(bundle, { algorithm: "HMAC_SHA256", key: secret, keyId: "k" }),
  );
}

/**
 * Creates the symlink `path` pointing at `target` with `ln -s`: Deno.symlink
 * needs unscoped --allow-read and --allow-write, which the test task does not
 * grant, while `--allow-run=ln` is enough for this.
 */
export async function symlink(target: string, path: string): Promise<void> {
  const { code, stderr } = await new Deno.Command("ln", {
    args: ["-s", "--", target, path],
    stdout: "null",
    stderr: "piped",
  }).output();
  if (code !== 0) {
    throw new Error(`ln -s ${target} ${path} failed: ${new TextDecoder().decode(stderr)}`);
  }
}
