// A remote client fed from memory, for the client benchmarks: the same object
// a service holds (a verified bundle, a poll timer that never falls due in a
// run), with no network. Close it when done.
import {
  createRemoteClient,
  type RemoteClientOptions,
  type RuntimeBundleV1,
  signBundle,
  signFreshness,
} from "../mod.ts";

const scope = { orgId: "bench", projectId: "bench", env: "prod" as const };

/**
 * `bundle` (given the bench scope) signed with a fresh key, and a factory of
 * clients serving it; with `freshness`, the bundle also carries a signed
 * freshness statement valid for 30 days (its expiry is watched by a timer).
 */
export async function memoryClients(
  bundle: RuntimeBundleV1,
  options: { freshness?: boolean } = {},
) {
  const pair = await crypto.subtle.generateKey(
    { name: "ECDSA", namedCurve: "P-256" },
    false,
    ["sign", "verify"],
  );
  const key = { algorithm: "ECDSA_SHA_256" as const, key: pair.privateKey, keyId: "bench" };
  const signed = await signBundle({ bundleVersion: 1, ...bundle, ...scope }, key);
  const now = Date.now();
  const body = JSON.stringify(
    options.freshness
      ? {
        ...signed,
        freshness: await signFreshness(signed, {
          ...key,
          issuedAt: now,
          expiresAt: now + 30 * 86_400_000,
        }),
      }
      : signed,
  );
  return (extra: Partial<RemoteClientOptions> = {}) =>
    createRemoteClient({
      baseUrl: "https://bench.invalid",
      runtimeKey: "rk_bench",
      ...scope,
      verify: { algorithm: "ECDSA_SHA_256", publicKey: pair.publicKey },
      poll: { intervalMs: 2_147_483_647 },
      fetch: () => Promise.resolve(new Response(body)),
      ...extra,
    });
}
