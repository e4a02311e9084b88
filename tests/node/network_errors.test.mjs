// REMOTE_UNAVAILABLE under Node says why the network failed. Node's fetch
// rejects with "fetch failed" and hides the reason in error.cause (a refused
// connection, a DNS failure, a TLS error); the message must carry it. Real
// failures: a closed port, a name under the reserved .invalid domain, an HTTPS
// server whose certificate (made with the openssl command line) is not
// trusted, a server that closes the connection, one that never answers.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer as createHttpsServer } from "node:https";
import { createServer as createTcpServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { importPackage } from "./_package.mjs";

const { createRemoteClient, generateEcdsaKeyPair } = await importPackage(".");
const { publicKey } = await generateEcdsaKeyPair();
const RUNTIME_KEY = "rk_node_network_test";

/** Starts a client against `baseUrl` and returns its REMOTE_UNAVAILABLE rejection. */
async function startFailure(baseUrl, options = {}) {
  const error = await createRemoteClient({
    baseUrl,
    runtimeKey: RUNTIME_KEY,
    orgId: "acme",
    projectId: "shop",
    env: "prod",
    verify: { algorithm: "ECDSA_SHA_256", publicKey },
    // Bounds on a hang only, far above what a loaded machine takes: these failures come at once
    // (the test that is about the request timeout sets its own).
    startTimeoutMs: 120_000,
    requestTimeoutMs: 60_000,
    ...options,
  }).then(() => assert.fail("the client started"), (e) => e);
  assert.equal(error.code, "REMOTE_UNAVAILABLE", error.message);
  assert.doesNotMatch(error.message, /: fetch failed$/);
  assert.ok(!error.message.includes(RUNTIME_KEY), "the runtime key stays out of messages");
  return error;
}

/** A server on a free loopback port; `close` when done. */
async function listen(server) {
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return server.address().port;
}

test("a closed port: connection refused, with Node's ECONNREFUSED", async () => {
  const server = createTcpServer();
  const port = await listen(server);
  await new Promise((resolve) => server.close(resolve));
  const error = await startFailure(`http://127.0.0.1:${port}`);
  assert.match(error.message, /connection refused: nothing listens at that host and port/);
  assert.match(error.message, new RegExp(`ECONNREFUSED 127\\.0\\.0\\.1:${port}`));
});

test("a host name that does not resolve: a DNS failure, with the name", async () => {
  const error = await startFailure("http://policy-runtime-test.invalid");
  assert.match(error.message, /the host name does not resolve \(DNS\)/);
  assert.match(error.message, /(ENOTFOUND|EAI_AGAIN) policy-runtime-test\.invalid/);
});

test("an untrusted certificate: the TLS failure and Node's reason", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "policy-tls-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const args = "req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 1".split(" ");
  const made = spawnSync("openssl", [
    ...args,
    ...["-subj", "/CN=127.0.0.1", "-keyout", join(dir, "key.pem"), "-out", join(dir, "cert.pem")],
  ], { encoding: "utf8" });
  assert.equal(made.status, 0, `openssl req (apt-get install openssl): ${made.stderr}`);
  const server = createHttpsServer({
    key: readFileSync(join(dir, "key.pem")),
    cert: readFileSync(join(dir, "cert.pem")),
  }, (_, response) => response.end("not reached"));
  const port = await listen(server);
  t.after(() => server.close());
  const error = await startFailure(`https://127.0.0.1:${port}`);
  assert.match(error.message, /the TLS connection failed; check the server's certificate/);
  assert.match(error.message, /self[- ]signed certificate|DEPTH_ZERO_SELF_SIGNED_CERT/);
});

test("a server that closes the connection: said so", async (t) => {
  const server = createTcpServer((socket) => socket.destroy());
  const port = await listen(server);
  t.after(() => server.close());
  const error = await startFailure(`http://127.0.0.1:${port}`);
  assert.match(error.message, /the connection was closed before the answer was complete/);
});

test("a server that never answers: the timeout, with requestTimeoutMs", async (t) => {
  const sockets = new Set();
  const server = createTcpServer((socket) => sockets.add(socket));
  const port = await listen(server);
  t.after(() => {
    for (const socket of sockets) socket.destroy();
    server.close();
  });
  const error = await startFailure(`http://127.0.0.1:${port}`, { requestTimeoutMs: 200 });
  assert.match(error.message, /did not answer .* within 200 ms \(requestTimeoutMs\)/);
});
