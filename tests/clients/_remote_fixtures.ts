/**
 * Bundles, keys and small helpers shared by the remote client tests.
 *
 * @module
 */
import assert from "node:assert/strict";
import { type RuntimeBundleV1, signBundle, signFreshness } from "../../mod.ts";
import type { PollResult, RemoteClientOptions } from "../../src/clients/create_remote_client.ts";
import type { PolicyError } from "../../src/public/policy_error.ts";

/** The scope every test client is configured with. */
export const SCOPE = { orgId: "acme", projectId: "storefront", env: "prod" } as const;
/** The runtime key the test servers accept. */
export const RUNTIME_KEY = "rk_test_4f1d9c";
/** The target whose decision tells which bundle is in force. */
export const TARGET = { service: "shop", resource: "cart", action: "checkout" } as const;

/** An ECDSA P-256 key pair: the control plane's signing key and its SPKI PEM. */
export const ecdsa = await (async () => {
  const pair = await crypto.subtle.generateKey(
    { name: "ECDSA", namedCurve: "P-256" },
    true,
    ["sign", "verify"],
  );
  const spki = new Uint8Array(await crypto.subtle.exportKey("spki", pair.publicKey));
  const base64 = btoa(String.fromCharCode(...spki)).replace(/.{1,64}/g, "$&\n");
  return {
    privateKey: pair.privateKey,
    publicKeyPem: `-----BEGIN PUBLIC KEY-----\n${base64}-----END PUBLIC KEY-----\n`,
  };
})();

/** Signing options with the control plane's key, key id `cp-1`. */
export const CP_KEY = {
  algorithm: "ECDSA_SHA_256" as const,
  key: ecdsa.privateKey,
  keyId: "cp-1",
};

/** The trusted key for {@link CP_KEY}, with its key id. */
export const CP_VERIFY = {
  algorithm: "ECDSA_SHA_256" as const,
  publicKey: ecdsa.publicKeyPem,
  keyId: "cp-1",
};

/**
 * `bundle` signed with {@link CP_KEY}, with a freshness statement (signed
 * with it too) issued at `issuedAt` (wall ms) and lasting `lifetime` ms.
 */
export async function withStatement(
  bundle: RuntimeBundleV1,
  issuedAt: number,
  lifetime: number,
): Promise<RuntimeBundleV1> {
  const signed = await signBundle(bundle, CP_KEY);
  const freshness = await signFreshness(signed, {
    ...CP_KEY,
    issuedAt,
    expiresAt: issuedAt + lifetime,
  });
  return { ...signed, freshness };
}

/** Another key pair: bundles it signs do not verify. */
export const otherEcdsa = await crypto.subtle.generateKey(
  { name: "ECDSA", namedCurve: "P-256" },
  false,
  ["sign", "verify"],
);

/** An HMAC secret (64 hex characters). */
export const HMAC_SECRET = "3a5f0c7e9b1d2f4a6c8e0b2d4f6a8c0e1b3d5f7a9c1e3b5d7f9a1c3e5b7d9f1a";

/**
 * A bundle of the test scope; `version` 1 allows {@link TARGET}, any other
 * version denies it, so `decisionOf` tells which is in force.
 */
export function bundleOf(version: number, scope: Partial<RuntimeBundleV1> = {}): RuntimeBundleV1 {
  return {
    schemaVersion: 1,
    ...SCOPE,
    bundleVersion: version,
    generatedAt: "2026-11-21T09:00:00Z",
    policies: [{
      policyKey: "checkout",
      activeVersion: version,
      rules: [{
        id: `v${version}`,
        status: "active",
        priority: 10,
        target: { ...TARGET },
        effect: { type: version === 1 ? "allow" : "deny" },
      }],
    }],
    ...scope,
  };
}

/** The bundle of `version`, ECDSA-signed by the control plane key, as JSON text. */
export async function signedText(
  version: number,
  scope: Partial<RuntimeBundleV1> = {},
): Promise<string> {
  const signed = await signBundle(bundleOf(version, scope), {
    algorithm: "ECDSA_SHA_256",
    key: ecdsa.privateKey,
    keyId: "control-plane-1",
  });
  return JSON.stringify(signed, null, 2);
}

/** Version 1 and 2, signed. */
export const V1 = await signedText(1);
export const V2 = await signedText(2);

/**
 * Options that leave a client's polls to `refresh()`: no timer falls due
 * within a test (an hour between polls, and after failures), jitter fixed,
 * failures not written to the console.
 */
export const DRIVEN_BY_REFRESH = {
  random: () => 0.5,
  poll: { intervalMs: 3_600_000 },
  maxBackoffMs: 3_600_000,
  onError: () => {},
} as const satisfies Partial<RemoteClientOptions>;

/** Options of a client for `baseUrl`, with the test scope, key and verify key. */
export function remoteOptions(
  baseUrl: string,
  extra: Partial<RemoteClientOptions> = {},
): RemoteClientOptions {
  return {
    baseUrl,
    runtimeKey: RUNTIME_KEY,
    ...SCOPE,
    verify: { algorithm: "ECDSA_SHA_256", publicKey: ecdsa.publicKeyPem },
    ...extra,
  };
}

/** Records what a client reports through `onError` and `onPoll`, and waits for polls. */
export class Recorder {
  readonly errors: PolicyError[] = [];
  readonly polls: PollResult[] = [];
  #waiting: Array<{ count: number; resolve: () => void }> = [];

  /** The callbacks, to spread into the client options. */
  get callbacks(): Pick<RemoteClientOptions, "onError" | "onPoll"> {
    return {
      onError: (error) => this.errors.push(error),
      onPoll: (result) => {
        this.polls.push(result);
        this.#waiting = this.#waiting.filter((w) => {
          if (this.polls.length < w.count) return true;
          w.resolve();
          return false;
        });
      },
    };
  }

  /** The codes passed to `onError`, in order. */
  get codes(): string[] {
    return this.errors.map((error) => error.code);
  }

  /** Resolves once `count` polls in all have been reported. */
  untilPolls(count: number): Promise<void> {
    if (this.polls.length >= count) return Promise.resolve();
    return new Promise((resolve) => this.#waiting.push({ count, resolve }));
  }
}

/** Asserts a string is an ISO 8601 timestamp as `Date.toISOString` writes it. */
export function assertIso(value: unknown): asserts value is string {
  assert.equal(typeof value, "string");
  assert.equal(new Date(value as string).toISOString(), value);
}

/**
 * `Deno.test` with the op and resource sanitizers on (Deno 2.9 turns them off
 * by default): a client must leave no timer, request or file open once
 * `close()` has resolved, and a test fails if it does.
 */
export function test(
  name: string,
  fn: (t: Deno.TestContext) => void | Promise<void>,
  options: { ignore?: boolean } = {},
): void {
  Deno.test({ name, fn, sanitizeOps: true, sanitizeResources: true, ...options });
}
