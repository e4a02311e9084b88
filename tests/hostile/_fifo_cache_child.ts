/**
 * Child of `named_pipes_test.ts`: starts a remote client against a closed
 * port with `cachePath` = the named pipe given as argument, prints how
 * creation ended as JSON, and then does nothing more: the process must exit
 * by itself (nothing left pending).
 *
 * @module
 */
import { createRemoteClient, type PolicyError } from "../../mod.ts";

const started = performance.now();
const publicKey = await crypto.subtle.generateKey(
  { name: "ECDSA", namedCurve: "P-256" },
  false,
  ["sign", "verify"],
);
try {
  const client = await createRemoteClient({
    baseUrl: "http://127.0.0.1:9", // discard port: nothing listens
    runtimeKey: "rk",
    orgId: "o",
    projectId: "p",
    env: "prod",
    verify: { algorithm: "ECDSA_SHA_256", publicKey: publicKey.publicKey },
    cachePath: Deno.args[0]!,
    startTimeoutMs: 10_000,
  });
  await client.close();
  console.log(JSON.stringify({ code: "started" }));
} catch (error) {
  const e = error as PolicyError;
  console.log(
    JSON.stringify({ code: e.code, message: e.message, ms: performance.now() - started }),
  );
}
