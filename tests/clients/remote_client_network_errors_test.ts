// REMOTE_UNAVAILABLE says why the network failed, not just "fetch failed":
// real failures on 127.0.0.1 (a closed port, a TLS server whose certificate
// is not trusted, a server that closes the connection). The Node tests
// (tests/node/network_errors.test.mjs) add a DNS failure, which Deno's
// test permissions (--allow-net=127.0.0.1) do not allow.
import assert from "node:assert/strict";
import { createRemoteClient, type PolicyError } from "../../mod.ts";
import { assertRejectsCode } from "../_assert_policy_error.ts";
import { selfSignedCertificate } from "../_openssl.ts";
import { remoteOptions, RUNTIME_KEY } from "./_remote_fixtures.ts";

/** The error a client starting against `baseUrl` rejects with; it must be REMOTE_UNAVAILABLE. */
async function startFailure(baseUrl: string): Promise<PolicyError> {
  const error = await assertRejectsCode(
    createRemoteClient(remoteOptions(baseUrl, { startTimeoutMs: 10_000 })),
    "REMOTE_UNAVAILABLE",
  );
  assert.doesNotMatch(error.message, /^fetch failed$|: fetch failed$/);
  assert.doesNotMatch(error.message, new RegExp(RUNTIME_KEY));
  return error;
}

Deno.test("a closed port: the message says the connection was refused", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  const error = await startFailure(`http://127.0.0.1:${port}`);
  assert.match(error.message, /cannot fetch http:\/\/127\.0\.0\.1:\d+\/v1\/acme\/storefront\/prod/);
  assert.match(error.message, /connection refused: nothing listens at that host and port \(/);
  assert.match(error.message, /Connection refused|ECONNREFUSED/);
});

Deno.test("an untrusted certificate: the message says TLS failed and why", async () => {
  const { cert, key } = await selfSignedCertificate("127.0.0.1");
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, cert, key, onListen() {}, onError: () => new Response() },
    () => new Response("not reached"),
  );
  try {
    const error = await startFailure(`https://127.0.0.1:${server.addr.port}`);
    assert.match(error.message, /the TLS connection failed; check the server's certificate/);
    // …and why: the TLS library's own reason, not only our fixed advice.
    assert.match(error.message, /invalid peer certificate/);
  } finally {
    await server.shutdown();
  }
});

Deno.test("a server that closes the connection: the message says so", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const accepting = (async () => {
    for await (const connection of listener) connection.close();
  })();
  try {
    const error = await startFailure(`http://127.0.0.1:${(listener.addr as Deno.NetAddr).port}`);
    assert.match(error.message, /the connection was closed before the answer was complete/);
  } finally {
    listener.close();
    await accepting.catch(() => {});
  }
});
