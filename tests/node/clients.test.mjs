// The clients under Node, from the npm build. Timers are checked too: after
// close(), a client leaves none on the system clock, so Node can exit. A
// reload is driven by a fake clock: no test waits on a timer of the library.
import assert from "node:assert/strict";
import { generateKeyPairSync } from "node:crypto";
import { createServer } from "node:http";
import { mkdtempSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { test } from "node:test";
import { FakeClock } from "./_fake_clock.mjs";
import { importPackage, testdata } from "./_package.mjs";

const runtime = await importPackage(".");
const clients = await importPackage("./clients");
const { signBundle } = await importPackage("./verify");

const pair = generateKeyPairSync("ec", { namedCurve: "prime256v1" });
const PRIVATE_KEY = pair.privateKey.export({ type: "pkcs8", format: "pem" });
const PUBLIC_KEY = pair.publicKey.export({ type: "spki", format: "pem" });
const VERIFY = { algorithm: "ECDSA_SHA_256", publicKey: PUBLIC_KEY };

const timers = () => process.getActiveResourcesInfo().filter((r) => r === "Timeout").length;

function tempDir(t) {
  const dir = mkdtempSync(join(tmpdir(), "policy-node-client-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

test("the root export re-exports the clients of ./clients, the same functions", () => {
  // The root is a named list (tests/root_api_test.ts): the clients' tuning constants and parts
  // are in ./clients only; what the root does export of it is the very same.
  for (const name of ["createLocalClient", "createRemoteClient"]) {
    assert.equal(typeof runtime[name], "function", name);
  }
  for (const [name, value] of Object.entries(runtime)) {
    if (Object.hasOwn(clients, name)) assert.equal(value, clients[name], name);
  }
});

test("local client: decides the shared fixtures exactly as the engine", {
  timeout: 10_000,
}, async (t) => {
  const fixture = testdata("engine/precedence.json");
  const bundlePath = join(tempDir(t), "bundle.json");
  writeFileSync(bundlePath, JSON.stringify(fixture.bundle));
  const client = await clients.createLocalClient({ bundlePath, allowUnsigned: true });
  try {
    for (const c of fixture.cases.filter((c) => c.options === undefined)) {
      assert.deepEqual(client.evaluate(c.request), c.want, c.name);
    }
    assert.equal(client.status().origin, "local");
    assert.equal(client.status().signature.status, "unsigned");
  } finally {
    await client.close();
  }
});

test("local client: verifies an ECDSA-signed file, watches it, and stops its timers", {
  timeout: 10_000,
}, async (t) => {
  const dir = tempDir(t);
  const bundlePath = join(dir, "bundle.json");
  const bundle = testdata("verify/bundle.json");
  const write = async (document) => {
    const signed = await signBundle(document, {
      algorithm: "ECDSA_SHA_256",
      key: PRIVATE_KEY,
      keyId: "node",
    });
    // Atomic replacement, as the CLI writes bundles.
    writeFileSync(join(dir, "next.json"), JSON.stringify(signed));
    renameSync(join(dir, "next.json"), bundlePath);
  };
  await write(bundle);
  // On the system clock: the watch arms a real timer, and close() clears it at once.
  const before = timers();
  const system = await clients.createLocalClient({ bundlePath, verify: VERIFY, watch: true });
  assert.equal(timers(), before + 1, "the watch timer");
  await system.close();
  assert.equal(timers(), before, "close() cleared the watch timer");

  const errors = [];
  const clock = new FakeClock();
  const client = await clients.createLocalClient({
    bundlePath,
    verify: VERIFY,
    watch: { intervalMs: 20 },
    onError: (error) => errors.push(error),
    clock,
  });
  const request = { target: { service: "search", resource: "index", action: "query" } };
  try {
    // VERIFY has no key id: the one the signature records is reported apart, as claimed.
    assert.deepEqual(client.status().signature, {
      status: "verified",
      algorithm: "ECDSA_SHA_256",
      keyId: "node",
    });
    assert.deepEqual(client.evaluate(request), { decision: "deny", reason: "default" });
    const next = structuredClone(bundle);
    next.policies[1].rules[0].status = "active";
    next.bundleVersion = bundle.bundleVersion + 1;
    await write(next);
    // One check of the watch: its timer fires; the check is over when it schedules the next.
    const checked = clock.nextTimer();
    clock.tick(20);
    await checked;
    assert.equal(client.evaluate(request).decision, "kill_switch", "the reload");
    assert.equal(client.status().bundleVersion, next.bundleVersion);
    assert.deepEqual(errors, []);
  } finally {
    await client.close();
  }
  assert.equal(clock.pending, 0, "close() cleared the watch timer");
});

test("local client: a missing file is BUNDLE_READ_ERROR", async (t) => {
  await assert.rejects(
    clients.createLocalClient({ bundlePath: join(tempDir(t), "none.json"), allowUnsigned: true }),
    { code: "BUNDLE_READ_ERROR" },
  );
});

test("remote client: fetches a signed bundle over HTTP with Node's fetch", {
  timeout: 10_000,
}, async (t) => {
  const scope = { orgId: "org_acme", projectId: "proj_checkout", env: "prod" };
  const signed = await signBundle(testdata("verify/bundle.json"), {
    algorithm: "ECDSA_SHA_256",
    key: PRIVATE_KEY,
    keyId: "node",
  });
  const body = JSON.stringify(signed);
  const requests = [];
  const server = createServer((request, response) => {
    requests.push({ url: request.url, headers: request.headers });
    if (request.headers.authorization !== "Bearer rk_test") {
      response.writeHead(401).end();
    } else {
      response.writeHead(200, { "content-type": "application/json", etag: '"e1"' }).end(body);
    }
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  t.after(() => new Promise((resolve) => server.close(resolve)));
  const before = timers();
  const client = await clients.createRemoteClient({
    baseUrl: `http://127.0.0.1:${server.address().port}`,
    ...scope,
    runtimeKey: "rk_test",
    verify: VERIFY,
  });
  try {
    const status = client.status();
    assert.equal(status.origin, "remote");
    assert.equal(status.signature.status, "verified");
    assert.equal(status.degraded, false);
    const decision = client.evaluate({
      target: { service: "checkout", resource: "refund", action: "create" },
      context: { plan: "free", amount: 10 },
    });
    assert.equal(decision.decision, "throttle");
    assert.equal(requests[0].url, "/v1/org_acme/proj_checkout/prod/bundle.json");
    assert.match(requests[0].headers["user-agent"] ?? "", /node/i);
  } finally {
    await client.close();
  }
  assert.equal(timers(), before, "close() cleared the poll timer");
});
