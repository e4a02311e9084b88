// A remote client fed from memory, for the client benchmarks: the same object
// a service holds (a verified bundle, a poll timer that never falls due in a
// run), with no network. Close it when done.
import {
  createRemoteClient,
  type RemoteClientOptions,
  type RuntimeBundleV1,
  signBundle,
} from "../mod.ts";

const scope = { orgId: "bench", projectId: "bench", env: "prod" as const };

/** `bundle` (given the bench scope) signed with a fresh key, and a factory of clients serving it. */
export async function memoryClients(bundle: RuntimeBundleV1) {
  const pair = await crypto.subtle.generateKey(
    { name: "ECDSA", namedCurve: "P-256" },
    false,
    ["sign", "verify"],
  );
  const body = JSON.stringify(
    await signBundle({ ...bundle, ...scope }, {
      algorithm: "ECDSA_SHA_256",
      key: pair.privateKey,
      keyId: "bench",
    }),
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
